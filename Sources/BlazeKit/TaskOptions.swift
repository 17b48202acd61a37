import BlazeImage
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a task's computation runs (MediaPipe Tasks' `Delegate`).
///
/// BlazeKit runs on the CPU only. `.GPU` is accepted so code written for iOS keeps compiling and
/// running: a task created with it runs on the CPU, gives the same results, and writes one warning line
/// to standard error when it is created (see ``BaseOptions/delegate``).
public enum Delegate: String, Sendable, Codable, CaseIterable {
    /// The CPU: BlazeKit's own kernels, on `BaseOptions.threadCount` threads.
    case CPU
    /// A GPU; not available in BlazeKit, which falls back to the CPU with a warning.
    case GPU
}

/// Options shared by every task: where the model comes from, where it runs, how many threads it may use
/// and how its kernels are planned (MediaPipe Tasks' `BaseOptions`, with BlazeKit's `threadCount` and
/// `kernelPlanning`).
///
/// A reference type, as MediaPipe's is, so `options.baseOptions.modelAssetPath = path` works on an
/// options object declared with `let`. A task copies its options when it is created.
public final class BaseOptions: Equatable, CustomStringConvertible {
    /// A converted landmark model (`.bkm`, used with the built-in detector), a directory holding
    /// converted models (for example `pose_detection.bkm` and `pose_landmark_full.bkm`), or an official
    /// MediaPipe Tasks bundle (`pose_landmarker_full.task`, `hand_landmarker.task`), converted in memory
    /// when the task is created. `nil` uses the built-in models.
    public var modelAssetPath: String?
    /// Threads one inference may use (1…64), the calling thread included. BlazeKit's own addition;
    /// MediaPipe picks its thread count itself.
    public var threadCount: Int
    /// `.CPU` (the default) or `.GPU`, which runs on the CPU with a warning.
    public var delegate: Delegate
    /// How the task's networks choose among kernels that compute the same bits, when the task is created.
    /// BlazeKit's own addition. `.measured` (the default) times the candidates on this machine and keeps the
    /// faster; `.fixed` follows fixed rules and times nothing, for a quicker start and the same kernels on
    /// every run; `.cached(directory:)` measures once per network, CPU and thread count and later tasks reuse
    /// the choices kept in that directory. The results are identical every way; only speed differs.
    public var kernelPlanning: Planning

    /// The built-in models on one CPU thread, kernels planned by measuring, unless given.
    public init(modelAssetPath: String? = nil, threadCount: Int = 1, delegate: Delegate = .CPU, kernelPlanning: Planning = .measured) {
        self.modelAssetPath = modelAssetPath
        self.threadCount = threadCount
        self.delegate = delegate
        self.kernelPlanning = kernelPlanning
    }

    /// An independent copy.
    public func copy() -> BaseOptions {
        BaseOptions(modelAssetPath: modelAssetPath, threadCount: threadCount, delegate: delegate, kernelPlanning: kernelPlanning)
    }

    /// Equal when every option is.
    public static func == (a: BaseOptions, b: BaseOptions) -> Bool {
        a.modelAssetPath == b.modelAssetPath && a.threadCount == b.threadCount && a.delegate == b.delegate
            && a.kernelPlanning == b.kernelPlanning
    }

    /// The options as `BaseOptions(modelAssetPath: …, threadCount: …, delegate: …, kernelPlanning: …)`.
    public var description: String {
        "BaseOptions(modelAssetPath: \(modelAssetPath.map { "\"\($0)\"" } ?? "nil"), threadCount: \(threadCount), "
            + "delegate: .\(delegate.rawValue), kernelPlanning: .\(kernelPlanning))"
    }
}

/// How a task receives its images (MediaPipe Tasks' `RunningMode`).
public enum RunningMode: String, Sendable, Codable, CaseIterable {
    /// Independent photos: `detect(image:)`.
    case image
    /// Frames of a video with increasing timestamps: `detect(videoFrame:timestampInMilliseconds:)`.
    case video
    /// A live camera stream: `detectAsync(image:timestampInMilliseconds:)`.
    case liveStream
}

/// What every task's options have (MediaPipe Tasks' `TaskOptions`): the base options and the running mode.
/// ``PoseLandmarkerOptions`` and ``HandLandmarkerOptions`` inherit from it, and so do the options of a task
/// defined outside BlazeKit (see ``TaskDefinition``): such a subclass declares `public required init()`,
/// overrides ``copyOptions(from:)`` to copy what it adds, and ``taskSpecificOptions`` to have it checked.
open class TaskOptions {
    /// Model location, delegate and thread count.
    public var baseOptions = BaseOptions()
    /// How images arrive; `detect(image:)` needs `.image`, the default.
    public var runningMode: RunningMode = .image

    /// The defaults: built-in models, one CPU thread, image mode.
    public required init() {}

    /// An independent copy: the base options are copied too; a live-stream delegate is the same object,
    /// still held weakly.
    public func copy() -> Self {
        let copy = Self.init()
        copy.copyOptions(from: self)
        return copy
    }

    /// Copies every option of `other` (subclasses call this, then copy theirs).
    open func copyOptions(from other: TaskOptions) {
        baseOptions = other.baseOptions.copy()
        runningMode = other.runningMode
    }

    /// Options with the model at `path` and every other option at its default.
    static func withModelAssetPath(_ path: String) -> Self {
        let options = Self.init()
        options.baseOptions.modelAssetPath = path
        return options
    }

    /// What a task's own options add to the checks: its live-stream delegate (whatever its protocol) and
    /// the property's name, its count option (`numPoses`, `numHands`: > 0) and its confidences ([0, 1]).
    open var taskSpecificOptions: (delegate: (name: String, object: AnyObject?), count: (name: String, value: Int),
                              confidences: KeyValuePairs<String, Float>) {
        (("liveStreamDelegate", nil), ("count", 1), [:])
    }

    /// Throws ``TaskError/invalidOption(name:expected:actual:)`` for the first option out of range: the
    /// task's count (> 0) and confidences ([0, 1]), the thread count (1…64), or a live-stream delegate
    /// missing in `.liveStream` mode or set in another.
    public func validate() throws {
        let (delegate, count, confidences) = taskSpecificOptions
        guard count.value > 0 else { throw TaskError.invalidOption(name: count.name, expected: "> 0", actual: "\(count.value)") }
        for (name, v) in confidences where !(v >= 0 && v <= 1) {
            throw TaskError.invalidOption(name: name, expected: "a value in [0, 1]", actual: "\(v)")
        }
        guard (1...64).contains(baseOptions.threadCount) else {
            throw TaskError.invalidOption(name: "baseOptions.threadCount", expected: "1...64", actual: "\(baseOptions.threadCount)")
        }
        if runningMode == .liveStream, delegate.object == nil {
            throw TaskError.invalidOption(name: delegate.name, expected: "a delegate in running mode .liveStream", actual: "nil")
        }
        if runningMode != .liveStream, delegate.object != nil {
            throw TaskError.invalidOption(name: delegate.name, expected: "nil in running mode .\(runningMode.rawValue)",
                                          actual: "a delegate")
        }
    }
}

/// Errors of the vision tasks. Each names the option, file, mode or timestamp at fault.
public enum TaskError: Error, Equatable, CustomStringConvertible, Sendable {
    /// An option outside its range, with the range expected and the value found.
    case invalidOption(name: String, expected: String, actual: String)
    /// `baseOptions.modelAssetPath` names nothing usable.
    case modelNotFound(path: String, reason: String)
    /// A detect method of another running mode than the task's.
    case runningModeMismatch(method: String, expected: RunningMode, actual: RunningMode)
    /// A mirrored image orientation, which MediaPipe rejects too.
    case unsupportedOrientation(ImageOrientation)
    /// A video frame or live-stream image whose timestamp is not after the previous one.
    case nonIncreasingTimestamp(method: String, previous: Int, actual: Int)

    /// The message, naming the option, file, mode or orientation at fault.
    public var description: String {
        switch self {
        case let .invalidOption(name, expected, actual):
            return "option \(name): expected \(expected), found \(actual)"
        case let .modelNotFound(path, reason):
            return "model \(path): \(reason)"
        case let .runningModeMismatch(method, expected, actual):
            return "\(method) needs running mode .\(expected.rawValue), this task was created with .\(actual.rawValue)"
        case let .nonIncreasingTimestamp(method, previous, actual):
            return "\(method): timestamps must increase strictly: got \(actual) ms after \(previous) ms"
        case let .unsupportedOrientation(o):
            return "image orientation .\(o.rawValue) is not supported: mirrored orientations are rejected, as MediaPipe does"
        }
    }
}

/// `localizedDescription` is the message that names the file, option or value at fault.
extension TaskError: LocalizedError {
    /// The same message as `description`.
    public var errorDescription: String? { description }
}
