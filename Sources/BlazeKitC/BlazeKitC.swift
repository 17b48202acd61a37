// The C ABI declared in Sources/CBlazeKit/include/blazekit.h, over BlazeKit's task API only
// (PoseLandmarker, HandLandmarker, their options and results, Image, TaskError). No Swift type crosses
// the boundary: handles are retained Swift objects seen as opaque pointers, results are malloc'd C structs.
// Every pointer and size is checked before memory is touched, and every throw becomes a status code plus
// a per-thread message (blazekit_last_error_message).
import BlazeKit
import CBlazeKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Errors

/// A failure on its way to the caller: a status code and the message to store.
struct CFailure: Error {
    var status: blazekit_status
    var message: String
    init(_ status: blazekit_status, _ message: String) { (self.status, self.message) = (status, message) }
}

private func argument(_ message: String) -> CFailure { CFailure(BLAZEKIT_ERROR_INVALID_ARGUMENT, message) }
private func option(_ name: String, expected: String, found: String) -> CFailure {
    CFailure(BLAZEKIT_ERROR_INVALID_OPTION, "option \(name): expected \(expected), found \(found)")
}

/// A Swift error as a status: BlazeKit's task errors by case, image errors as bad arguments, anything else
/// as `fallback` (model errors while creating, internal errors afterwards).
private func failure(_ error: any Error, fallback: blazekit_status, function: String) -> CFailure {
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
    return CFailure(fallback, text)
}

/// Runs `body`, turning a throw into a status code and the thread's last error message.
private func guarded(_ function: String, fallback: blazekit_status = BLAZEKIT_ERROR_INTERNAL,
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
private func readVersioned<S>(_ pointer: UnsafePointer<S>?, defaults: S, name: String) throws -> S {
    guard let pointer else { throw argument("\(name) is NULL") }
    let size = UnsafeRawPointer(pointer).load(as: Int.self)
    let known = MemoryLayout<S>.size
    guard size >= MemoryLayout<Int>.size, size <= known else {
        throw argument("\(name)->struct_size is \(size); expected \(MemoryLayout<Int>.size)…\(known) (set it with the *_init function or to sizeof)")
    }
    var value = defaults
    withUnsafeMutableBytes(of: &value) { dst in
        dst.copyMemory(from: UnsafeRawBufferPointer(start: UnsafeRawPointer(pointer), count: size))
    }
    return value
}

// MARK: - Images

private let orientations: [ImageOrientation] = [.up, .down, .left, .right, .upMirrored, .downMirrored, .leftMirrored, .rightMirrored]
private let orientationNames = ["UP", "DOWN", "LEFT", "RIGHT", "UP_MIRRORED", "DOWN_MIRRORED", "LEFT_MIRRORED", "RIGHT_MIRRORED"]

/// The caller's pixel buffer as an ``Image`` (a copy), every field checked before a byte is read.
private func makeImage(_ pointer: UnsafePointer<blazekit_image>?) throws -> Image {
    var defaults = blazekit_image()
    defaults.struct_size = MemoryLayout<blazekit_image>.size
    let minimum = MemoryLayout<blazekit_image>.offset(of: \.format)! + MemoryLayout<Int32>.size
    let image = try readVersioned(pointer, defaults: defaults, name: "image")
    guard image.struct_size >= minimum else {
        throw argument("image->struct_size is \(image.struct_size); expected at least \(minimum) (through the format field)")
    }
    let (width, height) = (Int(image.width), Int(image.height))
    guard (1...Image.maxDimension).contains(width) else {
        throw argument("image->width is \(width); expected 1…\(Image.maxDimension)")
    }
    guard (1...Image.maxDimension).contains(height) else {
        throw argument("image->height is \(height); expected 1…\(Image.maxDimension)")
    }
    guard width * height <= Image.maxPixelCount else {
        throw argument("image size \(width)×\(height) has \(width * height) pixels; expected at most \(Image.maxPixelCount)")
    }
    let formats: [PixelFormat] = [.rgb8, .rgba8, .bgra8, .gray8]
    guard (0..<Int32(formats.count)).contains(image.format) else {
        throw argument("image->format is \(image.format); expected 0 (RGB), 1 (RGBA), 2 (BGRA) or 3 (GRAY)")
    }
    let format = formats[Int(image.format)]
    guard (0..<Int32(orientations.count)).contains(image.orientation) else {
        throw argument("image->orientation is \(image.orientation); expected 0…7 (blazekit_orientation)")
    }
    let orientation = orientations[Int(image.orientation)]
    guard !orientation.isMirrored else {
        throw argument("image->orientation \(orientationNames[Int(image.orientation)]) is not supported: mirrored orientations are refused, as MediaPipe does")
    }
    let packed = width * format.bytesPerPixel
    let stride = image.bytes_per_row == 0 ? packed : image.bytes_per_row
    guard stride >= packed, stride <= 1 << 31 else {
        throw argument("image->bytes_per_row is \(image.bytes_per_row); expected \(packed)…\(1 << 31) as a size_t (width \(width) × \(format.bytesPerPixel) bytes, or 0 for packed rows)")
    }
    let needed = stride * (height - 1) + packed   // ≤ 2^31 · 2^14 + 2^16: no overflow on 64 bits
    guard let pixels = image.pixels else { throw argument("image->pixels is NULL") }
    let count = image.byte_count
    guard count >= needed else {
        throw argument("image->byte_count is \(image.byte_count); expected at least \(needed) (bytes_per_row \(stride) × \(height - 1) rows + \(packed))")
    }
    return try Image(pixels: UnsafeRawBufferPointer(start: pixels, count: needed), width: width, height: height,
                     bytesPerRow: stride, format: format, orientation: orientation)
}

@_cdecl("blazekit_image_decode_file")
public func blazekit_image_decode_file_impl(_ path: UnsafePointer<CChar>?, _ pixels: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                                            _ width: UnsafeMutablePointer<Int32>?, _ height: UnsafeMutablePointer<Int32>?,
                                            _ orientation: UnsafeMutablePointer<Int32>?) -> blazekit_status {
    guarded("blazekit_image_decode_file") {
        guard let path else { throw argument("path is NULL") }
        guard let pixels else { throw argument("pixels is NULL") }
        pixels.pointee = nil
        guard let width, let height else { throw argument("\(width == nil ? "width" : "height") is NULL") }
        let image = try Image(contentsOfFile: String(cString: path))
        let bytes = image.pixels
        pixels.pointee = cArray(bytes) ?? UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        width.pointee = Int32(image.width)
        height.pointee = Int32(image.height)
        orientation?.pointee = Int32(orientations.firstIndex(of: image.orientation) ?? 0)
    }
}

@_cdecl("blazekit_pixels_free")
public func blazekit_pixels_free_impl(_ pixels: UnsafeMutablePointer<UInt8>?) { pixels?.deallocate() }

// MARK: - Results

private func cLandmark(_ x: Float, _ y: Float, _ z: Float, _ visibility: Float?, _ presence: Float?) -> blazekit_landmark {
    var flags: UInt32 = 0
    if visibility != nil { flags |= BLAZEKIT_LANDMARK_HAS_VISIBILITY }
    if presence != nil { flags |= BLAZEKIT_LANDMARK_HAS_PRESENCE }
    return blazekit_landmark(x: x, y: y, z: z, visibility: visibility ?? 0, presence: presence ?? 0, flags: flags)
}

/// A malloc'd copy of `values`, NULL when empty.
private func cArray<T>(_ values: [T]) -> UnsafeMutablePointer<T>? {
    guard !values.isEmpty else { return nil }
    let p = UnsafeMutablePointer<T>.allocate(capacity: values.count)
    p.initialize(from: values, count: values.count)
    return p
}

private func makePoseResult(_ r: PoseLandmarkerResult) -> UnsafeMutablePointer<blazekit_pose_result> {
    let perPose = r.landmarks.first?.count ?? 33
    let landmarks = r.landmarks.flatMap { $0.map { cLandmark($0.x, $0.y, $0.z, $0.visibility, $0.presence) } }
    let world = r.worldLandmarks.flatMap { $0.map { cLandmark($0.x, $0.y, $0.z, $0.visibility, $0.presence) } }
    let masks = r.segmentationMasks.map { mask in
        blazekit_mask(width: Int32(mask.width), height: Int32(mask.height), data: UnsafePointer(cArray(mask.float32Data)))
    }
    let out = UnsafeMutablePointer<blazekit_pose_result>.allocate(capacity: 1)
    out.initialize(to: blazekit_pose_result(
        struct_size: MemoryLayout<blazekit_pose_result>.size, timestamp_ms: Int64(r.timestampInMilliseconds),
        pose_count: r.landmarks.count, landmarks_per_pose: perPose,
        landmarks: UnsafePointer(cArray(landmarks)), world_landmarks: UnsafePointer(cArray(world)),
        mask_count: masks.count, segmentation_masks: UnsafePointer(cArray(masks)), ids: UnsafePointer(cArray(r.ids.map(Int64.init)))))
    return out
}

private func makeHandResult(_ r: HandLandmarkerResult) -> UnsafeMutablePointer<blazekit_hand_result> {
    let landmarks = r.landmarks.flatMap { $0.map { cLandmark($0.x, $0.y, $0.z, $0.visibility, $0.presence) } }
    let world = r.worldLandmarks.flatMap { $0.map { cLandmark($0.x, $0.y, $0.z, $0.visibility, $0.presence) } }
    let handedness = r.handedness.map { categories -> blazekit_category in
        let c = categories.first
        return blazekit_category(index: Int32(c?.index ?? -1), score: c?.score ?? 0,
                                 category_name: UnsafePointer(strdup(c?.categoryName ?? "")),
                                 display_name: UnsafePointer(strdup(c?.displayName ?? "")))
    }
    let out = UnsafeMutablePointer<blazekit_hand_result>.allocate(capacity: 1)
    out.initialize(to: blazekit_hand_result(
        struct_size: MemoryLayout<blazekit_hand_result>.size, timestamp_ms: Int64(r.timestampInMilliseconds),
        hand_count: r.landmarks.count, landmarks_per_hand: r.landmarks.first?.count ?? 21,
        landmarks: UnsafePointer(cArray(landmarks)), world_landmarks: UnsafePointer(cArray(world)),
        handedness: UnsafePointer(cArray(handedness)), ids: UnsafePointer(cArray(r.ids.map(Int64.init)))))
    return out
}

@_cdecl("blazekit_pose_result_free")
public func blazekit_pose_result_free_impl(_ result: UnsafeMutablePointer<blazekit_pose_result>?) {
    guard let result else { return }
    let r = result.pointee
    if let masks = r.segmentation_masks {
        for i in 0..<r.mask_count { masks[i].data.map { UnsafeMutablePointer(mutating: $0).deallocate() } }
        UnsafeMutablePointer(mutating: masks).deallocate()
    }
    r.landmarks.map { UnsafeMutablePointer(mutating: $0).deallocate() }
    r.world_landmarks.map { UnsafeMutablePointer(mutating: $0).deallocate() }
    r.ids.map { UnsafeMutablePointer(mutating: $0).deallocate() }
    result.deallocate()
}

@_cdecl("blazekit_hand_result_free")
public func blazekit_hand_result_free_impl(_ result: UnsafeMutablePointer<blazekit_hand_result>?) {
    guard let result else { return }
    let r = result.pointee
    if let handedness = r.handedness {
        for i in 0..<r.hand_count {
            free(UnsafeMutablePointer(mutating: handedness[i].category_name))
            free(UnsafeMutablePointer(mutating: handedness[i].display_name))
        }
        UnsafeMutablePointer(mutating: handedness).deallocate()
    }
    r.landmarks.map { UnsafeMutablePointer(mutating: $0).deallocate() }
    r.world_landmarks.map { UnsafeMutablePointer(mutating: $0).deallocate() }
    r.ids.map { UnsafeMutablePointer(mutating: $0).deallocate() }
    result.deallocate()
}

// MARK: - Models

/// The file names of a task's two networks, as the built-in models and model directories name them.
struct ModelNames {
    var detector: String
    var landmarks: String
}

/// The directory holding the built-in converted models, found next to this library (the package's
/// resource bundle sits beside libblazekit.so in the build folder; the Python wheel puts it there too), or
/// next to the executable. Resolved here rather than through BlazeKit's resource lookup, which stops the
/// process when the bundle is missing (a library copied elsewhere).
private let builtinModelDirectory: String? = {
    var candidates: [String] = []
    if let name = blazekit_internal_library_path() {
        candidates.append((String(cString: name) as NSString).deletingLastPathComponent)
    }
    candidates.append(Bundle.main.bundleURL.path)
    for dir in candidates {
        let bkm = "\(dir)/BlazeKit_BlazeModels.resources/bkm"
        if FileManager.default.fileExists(atPath: "\(bkm)/pose_detection.bkm") { return bkm }
    }
    return nil
}()

/// The model named by the C options, as a path BlazeKit's task API takes without looking for its own
/// resources: a `.task` bundle or a directory as given; the built-in models' directory; or, for a single
/// converted landmark model (a path, or a buffer), a private temporary directory linking it and the built-in
/// detector under their built-in names. A buffer is first written to a private temporary file. Whatever was
/// made is removed once the landmarker is created (a converted model stays mapped; a bundle is read in full).
private final class ModelSource {
    private(set) var path: String = ""
    private var temporaryFiles: [String] = []
    private var temporaryDirectory: String?
    /// What error messages call the model: the caller's path, or `<model_asset_buffer>`.
    private var shownName: String?

    init(path given: UnsafePointer<CChar>?, buffer: UnsafeRawPointer?, size: Int, names: ModelNames) throws {
        do {
            try resolve(path: given.map { String(cString: $0) }, buffer: buffer, size: size, names: names)
        } catch {
            cleanUp()
            throw error
        }
    }

    private func resolve(path given: String?, buffer: UnsafeRawPointer?, size: Int, names: ModelNames) throws {
        var landmarkFile: String
        if let buffer {
            guard size > 0 else { throw option("model_asset_buffer_size", expected: "> 0 with a model_asset_buffer", found: "0") }
            guard size <= 1 << 31 else {
                throw option("model_asset_buffer_size", expected: "at most \(1 << 31) bytes", found: "\(size)")
            }
            let bytes = UnsafeRawBufferPointer(start: buffer, count: size)
            let isZip = size >= 4 && bytes[0] == 0x50 && bytes[1] == 0x4B && bytes[2] == 3 && bytes[3] == 4
            let file = try writeTemporary(bytes, suffix: isZip ? ".task" : ".bkm")
            shownName = "<model_asset_buffer>"
            if isZip { path = file; return }
            landmarkFile = file
        } else if size != 0 {
            throw option("model_asset_buffer", expected: "a buffer when model_asset_buffer_size is \(size)", found: "NULL")
        } else if let given {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: given, isDirectory: &isDirectory) else {
                throw CFailure(BLAZEKIT_ERROR_MODEL, "model \(given): no such file or directory")
            }
            path = given
            if isDirectory.boolValue || given.lowercased().hasSuffix(".task") { return }
            shownName = given
            landmarkFile = given
        } else {
            guard let builtin = builtinModelDirectory else { throw Self.noBuiltins() }
            path = builtin
            return
        }
        // A single converted landmark model: pair it with the built-in detector in a directory of links.
        guard let builtin = builtinModelDirectory else { throw Self.noBuiltins() }
        var template = Array("\(Self.temporaryRoot)/blazekit-models-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw CFailure(BLAZEKIT_ERROR_MODEL, "cannot create a temporary directory in \(Self.temporaryRoot): \(String(cString: strerror(errno)))")
        }
        let dir = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        temporaryDirectory = dir
        if !landmarkFile.hasPrefix("/") { landmarkFile = FileManager.default.currentDirectoryPath + "/" + landmarkFile }
        for (target, name) in [("\(builtin)/\(names.detector)", names.detector), (landmarkFile, names.landmarks)] {
            guard symlink(target, "\(dir)/\(name)") == 0 else {
                throw CFailure(BLAZEKIT_ERROR_MODEL, "cannot link \(name) in \(dir): \(String(cString: strerror(errno)))")
            }
            temporaryFiles.append("\(dir)/\(name)")
        }
        path = dir
    }

    private static func noBuiltins() -> CFailure {
        CFailure(BLAZEKIT_ERROR_MODEL, "the built-in models were not found (BlazeKit_BlazeModels.resources/bkm next to libblazekit.so); "
                 + "give model_asset_path or model_asset_buffer a MediaPipe .task bundle or a directory of converted models")
    }

    private static var temporaryRoot: String {
        ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    private func writeTemporary(_ bytes: UnsafeRawBufferPointer, suffix: String) throws -> String {
        let dir = Self.temporaryRoot
        var template = Array("\(dir)/blazekit-model-XXXXXX\(suffix)".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, Int32(suffix.utf8.count)) }
        guard fd >= 0 else {
            throw CFailure(BLAZEKIT_ERROR_MODEL, "model_asset_buffer: cannot create a temporary file in \(dir): \(String(cString: strerror(errno)))")
        }
        let file = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        temporaryFiles.append(file)
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw CFailure(BLAZEKIT_ERROR_MODEL, "model_asset_buffer: cannot write a temporary copy in \(dir): \(String(cString: strerror(errno)))")
            }
            offset += n
        }
        return file
    }

    /// Removes what was made (links first, then the directory).
    func cleanUp() {
        for file in temporaryFiles.reversed() { unlink(file) }
        temporaryFiles = []
        if let temporaryDirectory { rmdir(temporaryDirectory) }
        temporaryDirectory = nil
    }

    /// `message` with temporary names replaced by what the caller gave.
    func describe(_ message: String) -> String {
        guard let shownName else { return message }
        var message = message
        if let temporaryDirectory { message = message.replacingOccurrences(of: temporaryDirectory, with: shownName) }
        for file in temporaryFiles { message = message.replacingOccurrences(of: file, with: shownName) }
        return message
    }
}

private func checkCommon(runningMode: Int32, model: Int32, threadCount: Int32, hasCallback: Bool,
                         count: (name: String, value: Int32), confidences: [(String, Float)]) throws -> RunningMode {
    let modes: [RunningMode] = [.image, .video, .liveStream]
    guard (0...2).contains(runningMode) else {
        throw option("running_mode", expected: "0 (IMAGE), 1 (VIDEO) or 2 (LIVE_STREAM)", found: "\(runningMode)")
    }
    guard (0...1).contains(model) else { throw option("model", expected: "0 (FULL) or 1 (LITE)", found: "\(model)") }
    guard (1...64).contains(threadCount) else { throw option("thread_count", expected: "1…64", found: "\(threadCount)") }
    guard count.value > 0 else { throw option(count.name, expected: "> 0", found: "\(count.value)") }
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

private func modeName(_ mode: RunningMode) -> String {
    switch mode {
    case .image: return "IMAGE"
    case .video: return "VIDEO"
    case .liveStream: return "LIVE_STREAM"
    }
}

// MARK: - Handles

/// What a C landmarker handle points at: the task (nil once closed) and the live-stream relay.
final class LandmarkerHandle<Task: AnyObject, Relay: ResultRelay>: @unchecked Sendable {
    private let lock = NSLock()
    private var task: Task?
    let runningMode: RunningMode
    let relay: Relay?

    init(task: Task, runningMode: RunningMode, relay: Relay?) {
        (self.task, self.runningMode, self.relay) = (task, runningMode, relay)
    }

    /// The open task, or CLOSED.
    func open(_ function: String) throws -> Task {
        lock.lock()
        defer { lock.unlock() }
        guard let task else { throw CFailure(BLAZEKIT_ERROR_CLOSED, "\(function): the landmarker is closed") }
        return task
    }

    /// Stops callbacks (waiting for one in progress, unless it is the caller), then drops the task, which
    /// waits for a frame being processed. Idempotent.
    func close() {
        relay?.stop()
        lock.lock()
        let task = self.task
        self.task = nil
        lock.unlock()
        _ = task   // released here, after the lock
    }

    func requireMode(_ mode: RunningMode, _ function: String) throws {
        guard runningMode == mode else {
            throw CFailure(BLAZEKIT_ERROR_RUNNING_MODE,
                           "\(function) needs running mode \(modeName(mode)); this landmarker was created with \(modeName(runningMode))")
        }
    }
}

/// Hands live-stream results to a C callback, and stops doing so for good when the landmarker closes.
class ResultRelay: @unchecked Sendable {
    private let gate = NSRecursiveLock()
    private var stopped = false

    /// Runs `deliver` unless stopped; `stop()` waits for a delivery in progress (from another thread).
    func relay(_ deliver: () -> Void) {
        gate.lock()
        defer { gate.unlock() }
        if !stopped { deliver() }
    }

    func stop() {
        gate.lock()
        stopped = true
        gate.unlock()
    }
}

final class PoseRelay: ResultRelay, PoseLandmarkerLiveStreamDelegate, @unchecked Sendable {
    let callback: blazekit_pose_result_callback
    let userData: UnsafeMutableRawPointer?
    init(_ callback: @escaping blazekit_pose_result_callback, _ userData: UnsafeMutableRawPointer?) {
        (self.callback, self.userData) = (callback, userData)
    }

    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?) {
        relay {
            if let result {
                let r = makePoseResult(result)
                callback(userData, Int32(BLAZEKIT_OK.rawValue), nil, r, Int64(timestampInMilliseconds))
                blazekit_pose_result_free_impl(r)
            } else {
                let f = failure(error ?? CFailure(BLAZEKIT_ERROR_INTERNAL, "no result"), fallback: BLAZEKIT_ERROR_INTERNAL,
                                function: "blazekit_pose_landmarker_detect_async")
                f.message.withCString { callback(userData, Int32(f.status.rawValue), $0, nil, Int64(timestampInMilliseconds)) }
            }
        }
    }
}

final class HandRelay: ResultRelay, HandLandmarkerLiveStreamDelegate, @unchecked Sendable {
    let callback: blazekit_hand_result_callback
    let userData: UnsafeMutableRawPointer?
    init(_ callback: @escaping blazekit_hand_result_callback, _ userData: UnsafeMutableRawPointer?) {
        (self.callback, self.userData) = (callback, userData)
    }

    func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?) {
        relay {
            if let result {
                let r = makeHandResult(result)
                callback(userData, Int32(BLAZEKIT_OK.rawValue), nil, r, Int64(timestampInMilliseconds))
                blazekit_hand_result_free_impl(r)
            } else {
                let f = failure(error ?? CFailure(BLAZEKIT_ERROR_INTERNAL, "no result"), fallback: BLAZEKIT_ERROR_INTERNAL,
                                function: "blazekit_hand_landmarker_detect_async")
                f.message.withCString { callback(userData, Int32(f.status.rawValue), $0, nil, Int64(timestampInMilliseconds)) }
            }
        }
    }
}

typealias PoseHandle = LandmarkerHandle<PoseLandmarker, PoseRelay>
typealias HandHandle = LandmarkerHandle<HandLandmarker, HandRelay>

private func handle<H: AnyObject>(_ pointer: OpaquePointer?, _ type: H.Type, _ function: String) throws -> H {
    guard let pointer else { throw argument("\(function): landmarker is NULL") }
    return Unmanaged<H>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
}

private func requireOut<T>(_ out: UnsafeMutablePointer<T?>?, _ function: String) throws -> UnsafeMutablePointer<T?> {
    guard let out else { throw argument("\(function): out is NULL") }
    out.pointee = nil
    return out
}

// MARK: - Identities

/// The identity options of the C fields, checked by their C names.
private func identityOptions(maxAbsentFrames: Int32, minSimilarity: Float, votesHandedness: Bool = false) throws -> IdentityOptions {
    let identity = IdentityOptions(maxAbsentFrames: Int(maxAbsentFrames), minSimilarity: minSimilarity, votesHandedness: votesHandedness)
    if let (name, expected, _) = identity.invalidOption {
        let cName = name == "maxAbsentFrames" ? "identity_max_absent_frames" : "identity_min_similarity"
        throw option(cName, expected: expected, found: name == "maxAbsentFrames" ? "\(maxAbsentFrames)" : "\(minSimilarity)")
    }
    return identity
}

// MARK: - Pose landmarker

private func poseDefaults() -> blazekit_pose_landmarker_options {
    let swift = PoseLandmarkerOptions()
    var o = blazekit_pose_landmarker_options()
    o.struct_size = MemoryLayout<blazekit_pose_landmarker_options>.size
    o.running_mode = Int32(BLAZEKIT_RUNNING_MODE_IMAGE.rawValue)
    o.model = swift.model == .full ? Int32(BLAZEKIT_MODEL_FULL.rawValue) : Int32(BLAZEKIT_MODEL_LITE.rawValue)
    o.thread_count = Int32(swift.baseOptions.threadCount)
    o.num_poses = Int32(swift.numPoses)
    o.min_pose_detection_confidence = swift.minPoseDetectionConfidence
    o.min_pose_presence_confidence = swift.minPosePresenceConfidence
    o.min_tracking_confidence = swift.minTrackingConfidence
    o.output_segmentation_masks = swift.shouldOutputSegmentationMasks ? 1 : 0
    o.accurate_mode = 0
    o.accurate_min_person_height = Int32(PoseAccurateMode().smallestPersonHeight)
    o.accurate_off = nil
    let legacy = LegacyPoseSolution()
    o.legacy_solution = 0
    o.smooth_landmarks = legacy.smoothLandmarks ? 1 : 0
    o.smooth_segmentation = legacy.smoothSegmentation ? 1 : 0
    o.solution_clock = legacy.usesSolutionClock ? 1 : 0
    o.identity_max_absent_frames = Int32(swift.identity.maxAbsentFrames)
    o.identity_min_similarity = swift.identity.minSimilarity
    return o
}

/// The accurate mode the C options ask for (nil when `accurate_mode` is 0), its fields checked by their C names.
private func poseAccurateMode(_ o: blazekit_pose_landmarker_options) throws -> PoseAccurateMode? {
    guard o.accurate_mode != 0 else { return nil }
    let least = Int32(PoseAccurateMode.smallestAcceptedPersonHeight)
    guard o.accurate_min_person_height >= least else {
        throw option("accurate_min_person_height", expected: ">= \(least) (pixels)", found: "\(o.accurate_min_person_height)")
    }
    let off = o.accurate_off.map { String(cString: $0) } ?? ""
    do {
        return try PoseAccurateMode(smallestPersonHeight: Int(o.accurate_min_person_height), turningOff: off)
    } catch {
        throw option("accurate_off", expected: "comma-separated parts of \(PoseAccurateMode.partNames.joined(separator: ", "))",
                     found: "'\(off)'")
    }
}

@_cdecl("blazekit_pose_landmarker_options_init")
public func blazekit_pose_landmarker_options_init_impl(_ options: UnsafeMutablePointer<blazekit_pose_landmarker_options>?) -> blazekit_status {
    guarded("blazekit_pose_landmarker_options_init") {
        guard let options else { throw argument("options is NULL") }
        options.pointee = poseDefaults()
    }
}

@_cdecl("blazekit_pose_landmarker_create")
public func blazekit_pose_landmarker_create_impl(_ options: UnsafePointer<blazekit_pose_landmarker_options>?,
                                                 _ out: UnsafeMutablePointer<OpaquePointer?>?) -> blazekit_status {
    let function = "blazekit_pose_landmarker_create"
    return guarded(function, fallback: BLAZEKIT_ERROR_MODEL) {
        let out = try requireOut(out, function)
        let o = try readVersioned(options, defaults: poseDefaults(), name: "options")
        let mode = try checkCommon(runningMode: o.running_mode, model: o.model, threadCount: o.thread_count,
                                   hasCallback: o.result_callback != nil, count: ("num_poses", o.num_poses),
                                   confidences: [("min_pose_detection_confidence", o.min_pose_detection_confidence),
                                                 ("min_pose_presence_confidence", o.min_pose_presence_confidence),
                                                 ("min_tracking_confidence", o.min_tracking_confidence)])
        let source = try ModelSource(path: o.model_asset_path, buffer: o.model_asset_buffer,
                                     size: o.model_asset_buffer_size,
                                     names: ModelNames(detector: "pose_detection.bkm",
                                                       landmarks: o.model == Int32(BLAZEKIT_MODEL_LITE.rawValue) ? "pose_landmark_lite.bkm" : "pose_landmark_full.bkm"))
        defer { source.cleanUp() }
        let swift = PoseLandmarkerOptions()
        swift.baseOptions.modelAssetPath = source.path
        swift.baseOptions.threadCount = Int(o.thread_count)
        swift.runningMode = mode
        swift.model = o.model == Int32(BLAZEKIT_MODEL_LITE.rawValue) ? .lite : .full
        swift.numPoses = Int(o.num_poses)
        swift.minPoseDetectionConfidence = o.min_pose_detection_confidence
        swift.minPosePresenceConfidence = o.min_pose_presence_confidence
        swift.minTrackingConfidence = o.min_tracking_confidence
        swift.shouldOutputSegmentationMasks = o.output_segmentation_masks != 0
        swift.accurateMode = try poseAccurateMode(o)
        swift.identity = try identityOptions(maxAbsentFrames: o.identity_max_absent_frames, minSimilarity: o.identity_min_similarity)
        if o.legacy_solution != 0 {
            swift.legacySolution = LegacyPoseSolution(smoothLandmarks: o.smooth_landmarks != 0, smoothSegmentation: o.smooth_segmentation != 0,
                                                      usesSolutionClock: o.solution_clock != 0)
        }
        let relay = o.result_callback.map { PoseRelay($0, o.user_data) }
        swift.poseLandmarkerLiveStreamDelegate = relay
        let task: PoseLandmarker
        do {
            task = try PoseLandmarker(options: swift)
        } catch {
            var f = failure(error, fallback: BLAZEKIT_ERROR_MODEL, function: function)
            f.message = source.describe(f.message)
            throw f
        }
        let h = PoseHandle(task: task, runningMode: mode, relay: relay)
        out.pointee = OpaquePointer(Unmanaged.passRetained(h).toOpaque())
    }
}

@_cdecl("blazekit_pose_landmarker_detect")
public func blazekit_pose_landmarker_detect_impl(_ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?,
                                                 _ out: UnsafeMutablePointer<UnsafeMutablePointer<blazekit_pose_result>?>?) -> blazekit_status {
    let function = "blazekit_pose_landmarker_detect"
    return guarded(function) {
        let h = try handle(landmarker, PoseHandle.self, function)
        let out = try requireOut(out, function)
        let task = try h.open(function)
        try h.requireMode(.image, function)
        let result = try task.detect(image: try makeImage(image))
        out.pointee = makePoseResult(result)
    }
}

@_cdecl("blazekit_pose_landmarker_detect_for_video")
public func blazekit_pose_landmarker_detect_for_video_impl(
    _ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?, _ timestamp: Int64,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<blazekit_pose_result>?>?) -> blazekit_status {
    let function = "blazekit_pose_landmarker_detect_for_video"
    return guarded(function) {
        let h = try handle(landmarker, PoseHandle.self, function)
        let out = try requireOut(out, function)
        let task = try h.open(function)
        try h.requireMode(.video, function)
        let result = try task.detect(videoFrame: try makeImage(image), timestampInMilliseconds: Int(timestamp))
        out.pointee = makePoseResult(result)
    }
}

@_cdecl("blazekit_pose_landmarker_detect_async")
public func blazekit_pose_landmarker_detect_async_impl(_ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?,
                                                       _ timestamp: Int64) -> blazekit_status {
    let function = "blazekit_pose_landmarker_detect_async"
    return guarded(function) {
        let h = try handle(landmarker, PoseHandle.self, function)
        let task = try h.open(function)
        try h.requireMode(.liveStream, function)
        try task.detectAsync(image: try makeImage(image), timestampInMilliseconds: Int(timestamp))
    }
}

@_cdecl("blazekit_pose_landmarker_close")
public func blazekit_pose_landmarker_close_impl(_ landmarker: OpaquePointer?) -> blazekit_status {
    guarded("blazekit_pose_landmarker_close") {
        try handle(landmarker, PoseHandle.self, "blazekit_pose_landmarker_close").close()
    }
}

@_cdecl("blazekit_pose_landmarker_destroy")
public func blazekit_pose_landmarker_destroy_impl(_ landmarker: OpaquePointer?) {
    guard let landmarker else { return }
    let h = Unmanaged<PoseHandle>.fromOpaque(UnsafeRawPointer(landmarker))
    h.takeUnretainedValue().close()
    h.release()
}

// MARK: - Hand landmarker

private func handDefaults() -> blazekit_hand_landmarker_options {
    let swift = HandLandmarkerOptions()
    var o = blazekit_hand_landmarker_options()
    o.struct_size = MemoryLayout<blazekit_hand_landmarker_options>.size
    o.running_mode = Int32(BLAZEKIT_RUNNING_MODE_IMAGE.rawValue)
    o.model = swift.model == .full ? Int32(BLAZEKIT_MODEL_FULL.rawValue) : Int32(BLAZEKIT_MODEL_LITE.rawValue)
    o.thread_count = Int32(swift.baseOptions.threadCount)
    o.num_hands = Int32(swift.numHands)
    o.min_hand_detection_confidence = swift.minHandDetectionConfidence
    o.min_hand_presence_confidence = swift.minHandPresenceConfidence
    o.min_tracking_confidence = swift.minTrackingConfidence
    o.accurate_mode = 0
    o.accurate_min_hand_size = Int32(HandAccurateMode().smallestHandSize)
    o.accurate_off = nil
    o.accurate_on = nil
    o.legacy_solution = 0
    o.identity_max_absent_frames = Int32(swift.identity.maxAbsentFrames)
    o.identity_min_similarity = swift.identity.minSimilarity
    o.vote_handedness = swift.identity.votesHandedness ? 1 : 0
    return o
}

/// The hand accurate mode the C options ask for (nil when `accurate_mode` is 0), its fields checked by their C names.
private func handAccurateMode(_ o: blazekit_hand_landmarker_options) throws -> HandAccurateMode? {
    guard o.accurate_mode != 0 else { return nil }
    let least = Int32(HandAccurateMode.smallestAcceptedHandSize)
    guard o.accurate_min_hand_size >= least else {
        throw option("accurate_min_hand_size", expected: ">= \(least) (pixels)", found: "\(o.accurate_min_hand_size)")
    }
    var mode = HandAccurateMode()
    mode.smallestHandSize = Int(o.accurate_min_hand_size)
    for (name, text, on) in [("accurate_on", o.accurate_on, true), ("accurate_off", o.accurate_off, false)] {
        let list = text.map { String(cString: $0) } ?? ""
        do {
            if on { try mode.turnOn(parts: list) } else { try mode.turnOff(parts: list) }
        } catch {
            throw option(name, expected: "comma-separated parts of \(HandAccurateMode.partNames.joined(separator: ", "))",
                         found: "'\(list)'")
        }
    }
    return mode
}

@_cdecl("blazekit_hand_landmarker_options_init")
public func blazekit_hand_landmarker_options_init_impl(_ options: UnsafeMutablePointer<blazekit_hand_landmarker_options>?) -> blazekit_status {
    guarded("blazekit_hand_landmarker_options_init") {
        guard let options else { throw argument("options is NULL") }
        options.pointee = handDefaults()
    }
}

@_cdecl("blazekit_hand_landmarker_create")
public func blazekit_hand_landmarker_create_impl(_ options: UnsafePointer<blazekit_hand_landmarker_options>?,
                                                 _ out: UnsafeMutablePointer<OpaquePointer?>?) -> blazekit_status {
    let function = "blazekit_hand_landmarker_create"
    return guarded(function, fallback: BLAZEKIT_ERROR_MODEL) {
        let out = try requireOut(out, function)
        let o = try readVersioned(options, defaults: handDefaults(), name: "options")
        let mode = try checkCommon(runningMode: o.running_mode, model: o.model, threadCount: o.thread_count,
                                   hasCallback: o.result_callback != nil, count: ("num_hands", o.num_hands),
                                   confidences: [("min_hand_detection_confidence", o.min_hand_detection_confidence),
                                                 ("min_hand_presence_confidence", o.min_hand_presence_confidence),
                                                 ("min_tracking_confidence", o.min_tracking_confidence)])
        let source = try ModelSource(path: o.model_asset_path, buffer: o.model_asset_buffer,
                                     size: o.model_asset_buffer_size,
                                     names: o.model == Int32(BLAZEKIT_MODEL_LITE.rawValue)
                                        ? ModelNames(detector: "palm_detection_lite.bkm", landmarks: "hand_landmark_lite.bkm")
                                        : ModelNames(detector: "palm_detection_full.bkm", landmarks: "hand_landmark_full.bkm"))
        defer { source.cleanUp() }
        let swift = HandLandmarkerOptions()
        swift.baseOptions.modelAssetPath = source.path
        swift.baseOptions.threadCount = Int(o.thread_count)
        swift.runningMode = mode
        swift.model = o.model == Int32(BLAZEKIT_MODEL_LITE.rawValue) ? .lite : .full
        swift.numHands = Int(o.num_hands)
        swift.minHandDetectionConfidence = o.min_hand_detection_confidence
        swift.minHandPresenceConfidence = o.min_hand_presence_confidence
        swift.minTrackingConfidence = o.min_tracking_confidence
        swift.accurateMode = try handAccurateMode(o)
        swift.identity = try identityOptions(maxAbsentFrames: o.identity_max_absent_frames, minSimilarity: o.identity_min_similarity,
                                             votesHandedness: o.vote_handedness != 0)
        if o.legacy_solution != 0 { swift.legacySolution = LegacyHandSolution() }
        let relay = o.result_callback.map { HandRelay($0, o.user_data) }
        swift.handLandmarkerLiveStreamDelegate = relay
        let task: HandLandmarker
        do {
            task = try HandLandmarker(options: swift)
        } catch {
            var f = failure(error, fallback: BLAZEKIT_ERROR_MODEL, function: function)
            f.message = source.describe(f.message)
            throw f
        }
        let h = HandHandle(task: task, runningMode: mode, relay: relay)
        out.pointee = OpaquePointer(Unmanaged.passRetained(h).toOpaque())
    }
}

@_cdecl("blazekit_hand_landmarker_detect")
public func blazekit_hand_landmarker_detect_impl(_ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?,
                                                 _ out: UnsafeMutablePointer<UnsafeMutablePointer<blazekit_hand_result>?>?) -> blazekit_status {
    let function = "blazekit_hand_landmarker_detect"
    return guarded(function) {
        let h = try handle(landmarker, HandHandle.self, function)
        let out = try requireOut(out, function)
        let task = try h.open(function)
        try h.requireMode(.image, function)
        let result = try task.detect(image: try makeImage(image))
        out.pointee = makeHandResult(result)
    }
}

@_cdecl("blazekit_hand_landmarker_detect_for_video")
public func blazekit_hand_landmarker_detect_for_video_impl(
    _ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?, _ timestamp: Int64,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<blazekit_hand_result>?>?) -> blazekit_status {
    let function = "blazekit_hand_landmarker_detect_for_video"
    return guarded(function) {
        let h = try handle(landmarker, HandHandle.self, function)
        let out = try requireOut(out, function)
        let task = try h.open(function)
        try h.requireMode(.video, function)
        let result = try task.detect(videoFrame: try makeImage(image), timestampInMilliseconds: Int(timestamp))
        out.pointee = makeHandResult(result)
    }
}

@_cdecl("blazekit_hand_landmarker_detect_async")
public func blazekit_hand_landmarker_detect_async_impl(_ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?,
                                                       _ timestamp: Int64) -> blazekit_status {
    let function = "blazekit_hand_landmarker_detect_async"
    return guarded(function) {
        let h = try handle(landmarker, HandHandle.self, function)
        let task = try h.open(function)
        try h.requireMode(.liveStream, function)
        try task.detectAsync(image: try makeImage(image), timestampInMilliseconds: Int(timestamp))
    }
}

@_cdecl("blazekit_hand_landmarker_close")
public func blazekit_hand_landmarker_close_impl(_ landmarker: OpaquePointer?) -> blazekit_status {
    guarded("blazekit_hand_landmarker_close") {
        try handle(landmarker, HandHandle.self, "blazekit_hand_landmarker_close").close()
    }
}

@_cdecl("blazekit_hand_landmarker_destroy")
public func blazekit_hand_landmarker_destroy_impl(_ landmarker: OpaquePointer?) {
    guard let landmarker else { return }
    let h = Unmanaged<HandHandle>.fromOpaque(UnsafeRawPointer(landmarker))
    h.takeUnretainedValue().close()
    h.release()
}
