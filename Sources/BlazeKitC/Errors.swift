// The C ABI declared in Sources/CBlazeKit/include/blazekit.h, over BlazeKit's task API only
// (PoseLandmarker, HandLandmarker, HolisticLandmarker, their options and results, Image, TaskError). No Swift
// type crosses the boundary: handles are retained Swift objects seen as opaque pointers, results are malloc'd C
// structs. Every pointer and size is checked before memory is touched, and every throw becomes a status code
// plus a per-thread message (blazekit_last_error_message).
//
// This file: failures, the guard every function runs in, versioned structs and the option checks the tasks
// share. Images.swift, Models.swift, Results.swift and Handles.swift hold the rest of what the tasks share;
// PoseAPI.swift, HandAPI.swift and HolisticAPI.swift one task each.
import BlazeKit
import CBlazeKit
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - Errors

/// A failure on its way to the caller: a status code and the message to store.
struct CFailure: Error {
    var status: blazekit_status
    var message: String
    init(_ status: blazekit_status, _ message: String) { (self.status, self.message) = (status, message) }
}

func argument(_ message: String) -> CFailure { CFailure(BLAZEKIT_ERROR_INVALID_ARGUMENT, message) }
func option(_ name: String, expected: String, found: String) -> CFailure {
    CFailure(BLAZEKIT_ERROR_INVALID_OPTION, "option \(name): expected \(expected), found \(found)")
}

/// A Swift error as a status: BlazeKit's task errors by case, image errors as bad arguments, anything else
/// as `fallback` (model errors while creating, internal errors afterwards).
func failure(_ error: any Error, fallback: blazekit_status, function: String) -> CFailure {
    if let f = error as? CFailure { return f }
    let text = "\(function): \(error)"
    if let task = error as? TaskError {
        switch task {
        case .invalidOption: return CFailure(BLAZEKIT_ERROR_INVALID_OPTION, text)
        case .modelNotFound: return CFailure(BLAZEKIT_ERROR_MODEL, text)
        case .runningModeMismatch: return CFailure(BLAZEKIT_ERROR_RUNNING_MODE, text)
        case .unsupportedOrientation: return CFailure(BLAZEKIT_ERROR_INVALID_ARGUMENT, text)
        case let .nonIncreasingTimestamp(_, previous, actual):
            return CFailure(BLAZEKIT_ERROR_TIMESTAMP,
                            "\(function): timestamp_ms \(actual) is not greater than the previous timestamp \(previous); timestamps must increase strictly")
        }
    }
    if error is ImageError { return CFailure(BLAZEKIT_ERROR_INVALID_ARGUMENT, text) }
    if let runtime = error as? RuntimeError, case .invalidOption = runtime { return CFailure(BLAZEKIT_ERROR_INVALID_OPTION, text) }
    return CFailure(fallback, text)
}

/// Runs `body`, turning a throw into a status code and the thread's last error message.
func guarded(_ function: String, fallback: blazekit_status = BLAZEKIT_ERROR_INTERNAL,
             _ body: () throws -> Void) -> blazekit_status {
    do {
        try body()
        return BLAZEKIT_OK
    } catch {
        let f = failure(error, fallback: fallback, function: function)
        blazekit_internal_set_error(f.message.hasPrefix(function) ? f.message : "\(function): \(f.message)")
        return f.status
    }
}

// MARK: - Versioned structs

/// Copies a caller's struct of `struct_size` bytes over `defaults`: fields beyond the caller's size keep
/// their defaults; a size smaller than the `struct_size` field or larger than this library's struct is refused.
func readVersioned<S>(_ pointer: UnsafePointer<S>?, defaults: S, name: String) throws -> S {
    guard let pointer else { throw argument("\(name) is NULL") }
    let size = UnsafeRawPointer(pointer).load(as: Int.self)
    try checkStructSize(size, of: S.self, "\(name)->struct_size", hint: "set it with the *_init function or to sizeof")
    var value = defaults
    withUnsafeMutableBytes(of: &value) { dst in
        // `dst` ends at the last field; a struct_size that covers the trailing padding too copies no more.
        dst.copyMemory(from: UnsafeRawBufferPointer(start: UnsafeRawPointer(pointer), count: min(size, dst.count)))
    }
    return value
}

/// Refuses a caller's struct size below the `struct_size` field or above this library's struct, naming `what`.
func checkStructSize<S>(_ size: Int, of type: S.Type, _ what: String, hint: String) throws {
    let known = cSizeof(type)
    guard size >= MemoryLayout<Int>.size, size <= known else {
        throw argument("\(what) is \(size); expected \(MemoryLayout<Int>.size)…\(known) (\(hint))")
    }
}

/// C's `sizeof(S)`, the `struct_size` of a complete struct: Swift's stride (its `size` leaves out the trailing
/// padding that a struct ending in a 4-byte field after 8-byte ones has).
func cSizeof<S>(_ type: S.Type) -> Int { MemoryLayout<S>.stride }

/// Stores `defaults()` in the first `size` bytes of the caller's options struct, and `size` in its `struct_size`
/// (the *_options_init_sized functions, and the unsized ones with their frozen sizes): nothing beyond `size` is
/// written, so a caller built with an older header, whose struct is smaller, gets that version's fields.
func initOptions<S>(_ options: UnsafeMutablePointer<S>?, size: Int, _ function: String, _ defaults: () -> S) -> blazekit_status {
    guarded(function) {
        guard let options else { throw argument("options is NULL") }
        try checkStructSize(size, of: S.self, "size", hint: "sizeof the options struct of a header no newer than this library, "
                            + String(cString: blazekit_version_string()))
        var value = defaults()
        withUnsafeBytes(of: &value) { bytes in
            UnsafeMutableRawPointer(options).copyMemory(from: bytes.baseAddress!, byteCount: min(size, bytes.count))
        }
        UnsafeMutableRawPointer(options).storeBytes(of: size, as: Int.self)
    }
}

/// The bytes the unsized *_options_init functions write, frozen at the 0.7 structs' sizes: programs built with the
/// 0.7 header call them with structs of these sizes, and fields appended later are set only by the *_sized
/// functions (which the header's macros call). Never change these when a struct grows.
enum UnsizedInitBytes {
    static let pose = 136, hand = 136, holistic = 128
}

// MARK: - Options the tasks share

/// Checks the fields every landmarker has (and a count, when the task has one) by their C names; the running mode.
func checkCommon(runningMode: Int32, model: Int32, threadCount: Int32, hasCallback: Bool,
                 count: (name: String, value: Int32)?, confidences: [(String, Float)]) throws -> RunningMode {
    let modes: [RunningMode] = [.image, .video, .liveStream]
    guard (0...2).contains(runningMode) else {
        throw option("running_mode", expected: "0 (IMAGE), 1 (VIDEO) or 2 (LIVE_STREAM)", found: "\(runningMode)")
    }
    guard (0...1).contains(model) else { throw option("model", expected: "0 (FULL) or 1 (LITE)", found: "\(model)") }
    guard (1...64).contains(threadCount) else { throw option("thread_count", expected: "1…64", found: "\(threadCount)") }
    if let count, count.value <= 0 { throw option(count.name, expected: "> 0", found: "\(count.value)") }
    for (name, value) in confidences where !(value >= 0 && value <= 1) {
        throw option(name, expected: "a value in [0, 1]", found: "\(value)")
    }
    let mode = modes[Int(runningMode)]
    if mode == .liveStream, !hasCallback {
        throw option("result_callback", expected: "a callback in running mode LIVE_STREAM", found: "NULL")
    }
    if mode != .liveStream, hasCallback {
        throw option("result_callback", expected: "NULL in running mode \(mode == .image ? "IMAGE" : "VIDEO")", found: "a callback")
    }
    return mode
}

func modeName(_ mode: RunningMode) -> String {
    switch mode {
    case .image: return "IMAGE"
    case .video: return "VIDEO"
    case .liveStream: return "LIVE_STREAM"
    }
}

/// The base options of the fields every landmarker has: the model path (staged by ``ModelSource``), the threads
/// (checked by ``checkCommon``), `fixed_plan` (since 0.6) and `plan_cache_dir` (since 0.7), checked here.
func baseOptions(modelAssetPath: String?, threadCount: Int32, fixedPlan: Int32,
                 planCacheDir: UnsafePointer<CChar>?) throws -> BaseOptions {
    var planning: Planning = fixedPlan != 0 ? .fixed : .measured
    if let planCacheDir {
        let directory = String(cString: planCacheDir)
        guard !directory.isEmpty else { throw option("plan_cache_dir", expected: "NULL or a directory", found: "an empty string") }
        guard fixedPlan == 0 else {
            throw option("plan_cache_dir", expected: "NULL when fixed_plan is set (a fixed plan times nothing to keep)",
                         found: "\"\(directory)\"")
        }
        planning = .cached(directory: directory)
    }
    return BaseOptions(modelAssetPath: modelAssetPath, threadCount: Int(threadCount), kernelPlanning: planning)
}

/// The identity options of the C fields, checked by their C names.
func identityOptions(maxAbsentFrames: Int32, minSimilarity: Float, votesHandedness: Bool = false) throws -> IdentityOptions {
    let identity = IdentityOptions(maxAbsentFrames: Int(maxAbsentFrames), minSimilarity: minSimilarity, votesHandedness: votesHandedness)
    if let (name, expected, _) = identity.invalidOption {
        let cName = name == "maxAbsentFrames" ? "identity_max_absent_frames" : "identity_min_similarity"
        throw option(cName, expected: expected, found: name == "maxAbsentFrames" ? "\(maxAbsentFrames)" : "\(minSimilarity)")
    }
    return identity
}

/// The built-in pose landmark network the C `model` field names.
func poseModel(_ model: Int32) -> PoseLandmarkerModel { model == Int32(BLAZEKIT_MODEL_LITE.rawValue) ? .lite : .full }
