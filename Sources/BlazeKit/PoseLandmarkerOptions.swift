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

    /// The MediaPipe defaults: built-in full model, image mode, one pose, confidences 0.5, no masks.
    public init() {}

    /// Throws ``TaskError/invalidOption(name:expected:actual:)`` for the first out-of-range option.
    public func validate() throws {
        guard numPoses > 0 else { throw TaskError.invalidOption(name: "numPoses", expected: "> 0", actual: "\(numPoses)") }
        try TaskOptionChecks.confidences([("minPoseDetectionConfidence", minPoseDetectionConfidence),
                                          ("minPosePresenceConfidence", minPosePresenceConfidence),
                                          ("minTrackingConfidence", minTrackingConfidence)])
        try TaskOptionChecks.threadCount(baseOptions)
    }
}

/// Errors of the vision tasks. Each names the option, file, mode or timestamp at fault.
public enum TaskError: Error, Equatable, CustomStringConvertible, Sendable {
    case invalidOption(name: String, expected: String, actual: String)
    case modelNotFound(path: String, reason: String)
    case runningModeMismatch(method: String, expected: RunningMode, actual: RunningMode)
    case unsupportedOrientation(ImageOrientation)

    /// The message, naming the option, file, mode or orientation at fault.
    public var description: String {
        switch self {
        case let .invalidOption(name, expected, actual):
            return "option \(name): expected \(expected), found \(actual)"
        case let .modelNotFound(path, reason):
            return "model \(path): \(reason)"
        case let .runningModeMismatch(method, expected, actual):
            return "\(method) needs running mode .\(expected.rawValue), this task was created with .\(actual.rawValue)"
        case let .unsupportedOrientation(o):
            return "image orientation .\(o.rawValue) is not supported: mirrored orientations are rejected, as MediaPipe does"
        }
    }
}
