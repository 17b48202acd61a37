import BlazeImage
import BlazeRuntime
import BlazeStages
import Foundation

/// Options shared by every task: where the model comes from and how many threads it may use.
/// Mirrors MediaPipe Tasks' `BaseOptions`.
public struct BaseOptions: Sendable, Equatable {
    /// A converted landmark model (`.bkm`, used with the built-in detector), a directory holding
    /// converted models (`pose_detection.bkm`, `pose_landmark_full.bkm` / `_lite.bkm`), or an
    /// official MediaPipe Tasks bundle (`pose_landmarker_full.task`), converted in memory at load.
    /// `nil` uses the built-in models.
    public var modelAssetPath: String?
    /// Threads one inference may use (1…64), the calling thread included.
    public var threadCount: Int

    /// Built-in models and one thread unless given.
    public init(modelAssetPath: String? = nil, threadCount: Int = 1) {
        self.modelAssetPath = modelAssetPath
        self.threadCount = threadCount
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

/// Which built-in pose landmark network to use.
public enum PoseLandmarkerModel: String, Sendable, Codable, CaseIterable {
    /// `pose_landmark_full`: MediaPipe's default accuracy.
    case full
    /// `pose_landmark_lite`: about half the compute.
    case lite
}

/// Options of a ``PoseLandmarker``, with MediaPipe Tasks' names and defaults
/// (`mediapipe/tasks/cc/vision/pose_landmarker/pose_landmarker.h`).
public struct PoseLandmarkerOptions: Sendable, Equatable {
    /// Model location and thread count.
    public var baseOptions = BaseOptions()
    /// The built-in landmark network, used when `baseOptions.modelAssetPath` is nil.
    public var model: PoseLandmarkerModel = .full
    /// How images arrive; `detect(image:)` needs `.image`.
    public var runningMode: RunningMode = .image
    /// The most poses to return (> 0).
    public var numPoses = 1
    /// Minimum pose detector score, in [0, 1].
    public var minPoseDetectionConfidence: Float = 0.5
    /// Minimum landmark-model pose presence score, in [0, 1] (compared strictly).
    public var minPosePresenceConfidence: Float = 0.5
    /// Minimum tracking IoU between frames, in [0, 1] (video and live stream).
    public var minTrackingConfidence: Float = 0.5
    /// Whether results carry one person mask per pose.
    public var outputSegmentationMasks = false
    /// Receives live-stream results (held weakly). Required in `.liveStream` mode, refused in the others,
    /// as in MediaPipe Tasks for iOS.
    public weak var poseLandmarkerLiveStreamDelegate: (any PoseLandmarkerLiveStreamDelegate)?

    /// The MediaPipe defaults: built-in full model, image mode, one pose, confidences 0.5, no masks.
    public init() {}

    public static func == (a: Self, b: Self) -> Bool {
        a.baseOptions == b.baseOptions && a.model == b.model && a.runningMode == b.runningMode && a.numPoses == b.numPoses
            && a.minPoseDetectionConfidence == b.minPoseDetectionConfidence
            && a.minPosePresenceConfidence == b.minPosePresenceConfidence
            && a.minTrackingConfidence == b.minTrackingConfidence && a.outputSegmentationMasks == b.outputSegmentationMasks
            && a.poseLandmarkerLiveStreamDelegate === b.poseLandmarkerLiveStreamDelegate
    }

    /// Throws ``TaskError/invalidOption(name:expected:actual:)`` for the first out-of-range option.
    public func validate() throws {
        guard numPoses > 0 else { throw TaskError.invalidOption(name: "numPoses", expected: "> 0", actual: "\(numPoses)") }
        try TaskOptionChecks.confidences([("minPoseDetectionConfidence", minPoseDetectionConfidence),
                                          ("minPosePresenceConfidence", minPosePresenceConfidence),
                                          ("minTrackingConfidence", minTrackingConfidence)])
        try TaskOptionChecks.threadCount(baseOptions)
        try TaskOptionChecks.delegate(present: poseLandmarkerLiveStreamDelegate != nil,
                                      name: "poseLandmarkerLiveStreamDelegate", runningMode: runningMode)
    }
}

/// Errors of the vision tasks. Each names the option, file, mode or timestamp at fault.
public enum TaskError: Error, Equatable, CustomStringConvertible, Sendable {
    case invalidOption(name: String, expected: String, actual: String)
    case modelNotFound(path: String, reason: String)
    case runningModeMismatch(method: String, expected: RunningMode, actual: RunningMode)
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
