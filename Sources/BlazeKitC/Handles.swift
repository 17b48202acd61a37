// The landmarker handles and the C functions every task has in the same form: detect, detect_for_video,
// detect_async, close, destroy, and the live-stream relay. A task (PoseAPI.swift, …) says what is its own
// through ``CTask``: its Swift task, its C result and how results are made and freed.
import BlazeKit
import BlazeKernels
import CBlazeKit
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One task of the C ABI.
protocol CTask {
    associatedtype Definition: TaskDefinition
    associatedtype CResult
    /// The middle of the task's C names: `blazekit_<name>_landmarker_detect`.
    static var name: String { get }
    /// The task of MediaPipe's name (`PoseLandmarker`, …), which the live-stream delegates receive.
    static func makeTask(_ options: Definition.Options) throws -> LandmarkerTask<Definition>
    /// A malloc'd C result owning every array it points to.
    static func makeResult(_ result: Definition.Result) -> UnsafeMutablePointer<CResult>
    /// Frees what ``makeResult(_:)`` made; NULL is a no-op.
    static func freeResult(_ result: UnsafeMutablePointer<CResult>?)
}

/// What a C landmarker handle points at: the task (nil once closed) and the live-stream relay.
final class LandmarkerHandle<T: CTask>: @unchecked Sendable {
    private let lock = MutexLock()
    private var task: LandmarkerTask<T.Definition>?
    let runningMode: RunningMode
    let relay: ResultRelay<T>?

    init(task: LandmarkerTask<T.Definition>, runningMode: RunningMode, relay: ResultRelay<T>?) {
        (self.task, self.runningMode, self.relay) = (task, runningMode, relay)
    }

    /// The open task, or CLOSED.
    func open(_ function: String) throws -> LandmarkerTask<T.Definition> {
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

/// Hands live-stream results to a C callback, and stops doing so for good when the landmarker closes. Each
/// task subclasses it to conform to its delegate protocol.
class ResultRelay<T: CTask>: @unchecked Sendable {
    private let gate = MutexLock(recursive: true)
    private var stopped = false
    /// The C callback with its user pointer bound: (status, error message, result, timestamp).
    private let call: (Int32, UnsafePointer<CChar>?, UnsafePointer<T.CResult>?, Int64) -> Void

    init(_ call: @escaping (Int32, UnsafePointer<CChar>?, UnsafePointer<T.CResult>?, Int64) -> Void) { self.call = call }

    /// Calls the callback with the result (freed afterwards) or the error, unless stopped; `stop()` waits for a
    /// delivery in progress (from another thread).
    func deliver(_ result: T.Definition.Result?, timestampInMilliseconds: Int, error: (any Error)?) {
        gate.lock()
        defer { gate.unlock() }
        guard !stopped else { return }
        if let result {
            let r = T.makeResult(result)
            call(Int32(BLAZEKIT_OK.rawValue), nil, r, Int64(timestampInMilliseconds))
            T.freeResult(r)
        } else {
            let f = failure(error ?? CFailure(BLAZEKIT_ERROR_INTERNAL, "no result"), fallback: BLAZEKIT_ERROR_INTERNAL,
                            function: "blazekit_\(T.name)_landmarker_detect_async")
            f.message.withCString { call(Int32(f.status.rawValue), $0, nil, Int64(timestampInMilliseconds)) }
        }
    }

    func stop() {
        gate.lock()
        stopped = true
        gate.unlock()
    }
}

func requireOut<T>(_ out: UnsafeMutablePointer<T?>?, _ function: String) throws -> UnsafeMutablePointer<T?> {
    guard let out else { throw argument("\(function): out is NULL") }
    out.pointee = nil
    return out
}

extension CTask {
    typealias Handle = LandmarkerHandle<Self>
    typealias ResultOut = UnsafeMutablePointer<UnsafeMutablePointer<CResult>?>

    private static func handle(_ pointer: OpaquePointer?, _ function: String) throws -> Handle {
        guard let pointer else { throw argument("\(function): landmarker is NULL") }
        return Unmanaged<Handle>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    /// The end of every `*_create`: the task made from `options` (model errors named by what the caller gave),
    /// then the handle stored in `*out`.
    static func create(_ options: Definition.Options, source: ModelSource, mode: RunningMode, relay: ResultRelay<Self>?,
                       out: UnsafeMutablePointer<OpaquePointer?>, function: String) throws {
        let task: LandmarkerTask<Definition>
        do {
            task = try makeTask(options)
        } catch {
            var f = failure(error, fallback: BLAZEKIT_ERROR_MODEL, function: function)
            f.message = source.describe(f.message)
            throw f
        }
        out.pointee = OpaquePointer(Unmanaged.passRetained(Handle(task: task, runningMode: mode, relay: relay)).toOpaque())
    }

    /// `blazekit_<name>_landmarker_<suffix>` of a running mode with a result: the handle, `out`, the task open and
    /// in `mode` checked in that order, then `*out` = `detect(task)` as a C result.
    private static func detecting(_ suffix: String, _ mode: RunningMode, _ landmarker: OpaquePointer?, _ out: ResultOut?,
                                  _ detect: (LandmarkerTask<Definition>) throws -> Definition.Result) -> blazekit_status {
        let function = "blazekit_\(name)_landmarker_\(suffix)"
        return guarded(function) {
            let h = try handle(landmarker, function)
            let out = try requireOut(out, function)
            let task = try h.open(function)
            try h.requireMode(mode, function)
            out.pointee = makeResult(try detect(task))
        }
    }

    static func detect(_ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?, _ out: ResultOut?) -> blazekit_status {
        detecting("detect", .image, landmarker, out) { try $0.detect(image: try makeImage(image)) }
    }

    static func detectForVideo(_ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?, _ timestamp: Int64,
                               _ out: ResultOut?) -> blazekit_status {
        detecting("detect_for_video", .video, landmarker, out) {
            try $0.detect(videoFrame: try makeImage(image), timestampInMilliseconds: Int(timestamp))
        }
    }

    static func detectAsync(_ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?, _ timestamp: Int64) -> blazekit_status {
        let function = "blazekit_\(name)_landmarker_detect_async"
        return guarded(function) {
            let h = try handle(landmarker, function)
            let task = try h.open(function)
            try h.requireMode(.liveStream, function)
            try task.detectAsync(image: try makeImage(image), timestampInMilliseconds: Int(timestamp))
        }
    }

    static func close(_ landmarker: OpaquePointer?) -> blazekit_status {
        let function = "blazekit_\(name)_landmarker_close"
        return guarded(function) { try handle(landmarker, function).close() }
    }

    static func destroy(_ landmarker: OpaquePointer?) {
        guard let landmarker else { return }
        let h = Unmanaged<Handle>.fromOpaque(UnsafeRawPointer(landmarker))
        h.takeUnretainedValue().close()
        h.release()
    }
}
