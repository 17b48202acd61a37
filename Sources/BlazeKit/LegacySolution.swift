#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// MediaPipe's legacy pose graph (`mediapipe/modules/pose_landmark/pose_landmark_cpu.pbtxt`), the one behind
/// `mp.solutions.pose.Pose`, instead of the Tasks graph: set ``PoseLandmarkerOptions/legacySolution``.
///
/// The legacy graph tracks one person (``PoseLandmarkerOptions/numPoses`` must be 1) from the previous
/// frame's filtered landmarks, suppresses overlapping detections at IoU 0.3 rather than 0.5, smooths the
/// landmarks with its own filters and object scale, and smooths the person mask from frame to frame. How the
/// Solutions API's arguments map:
///
/// | `mp.solutions.pose.Pose` | BlazeKit |
/// |---|---|
/// | `static_image_mode=True` / `False` | `runningMode = .image` / `.video` |
/// | `model_complexity` 0 / 1 / 2 | `model = .lite` / `.full` / `baseOptions.modelAssetPath` = a converted heavy model |
/// | `smooth_landmarks`, `smooth_segmentation` | ``smoothLandmarks``, ``smoothSegmentation`` (video only, as in MediaPipe) |
/// | `enable_segmentation` | `shouldOutputSegmentationMasks` |
/// | `min_detection_confidence` | `minPoseDetectionConfidence` |
/// | `min_tracking_confidence` (the landmark presence threshold) | `minPosePresenceConfidence` |
///
/// `minTrackingConfidence`, an IoU in the Tasks graph, is not used: the legacy graph associates nothing.
public struct LegacyPoseSolution: Sendable, Codable, Equatable {
    /// `smooth_landmarks`: filter landmarks, world landmarks and visibilities across frames (video mode).
    public var smoothLandmarks: Bool
    /// `smooth_segmentation`: blend each mask with the previous one where the new one is uncertain (video mode).
    public var smoothSegmentation: Bool
    /// The filters' clock: true (the default) steps 33 333 µs per frame whatever the timestamps, as
    /// `mp.solutions`' `process()` stamps its frames; false uses the frames' own timestamps.
    public var usesSolutionClock: Bool

    public init(smoothLandmarks: Bool = true, smoothSegmentation: Bool = true, usesSolutionClock: Bool = true) {
        self.smoothLandmarks = smoothLandmarks
        self.smoothSegmentation = smoothSegmentation
        self.usesSolutionClock = usesSolutionClock
    }
}

/// MediaPipe's legacy hand graph (`mediapipe/modules/hand_landmark/hand_landmark_tracking_cpu.pbtxt`), the one
/// behind `mp.solutions.hands.Hands`, instead of the Tasks graph: set ``HandLandmarkerOptions/legacySolution``.
///
/// The legacy graph turns palms into regions with a target angle of 90° (Tasks: 90 radians), lets a tracked
/// hand replace the palms it overlaps at a fixed IoU of 0.5, neither limits nor deduplicates the hands it
/// tracks, and labels handedness for mirrored (selfie) images: index 0 is "Left" (Tasks: "Right"). How the
/// Solutions API's arguments map:
///
/// | `mp.solutions.hands.Hands` | BlazeKit |
/// |---|---|
/// | `static_image_mode=True` / `False` | `runningMode = .image` / `.video` |
/// | `max_num_hands` | `numHands` |
/// | `model_complexity` 0 / 1 | `model = .lite` / `.full` |
/// | `min_detection_confidence` | `minHandDetectionConfidence` |
/// | `min_tracking_confidence` (the landmark presence threshold) | `minHandPresenceConfidence` |
///
/// `minTrackingConfidence` is not used: the legacy graph's association threshold is fixed.
public struct LegacyHandSolution: Sendable, Codable, Equatable {
    public init() {}
}

/// The clock of the legacy graphs' filters: `mp.solutions` stamps the n-th processed frame at n·33 333 µs.
struct LegacySolutionClock {
    static let frameIntervalMicroseconds: Int64 = 33_333
    let usesSolutionClock: Bool
    private var frames: Int64 = 0

    init(usesSolutionClock: Bool) { self.usesSolutionClock = usesSolutionClock }

    /// The filters' time, in nanoseconds, of the next frame, whose own timestamp is `milliseconds`.
    mutating func next(milliseconds: Int) -> Int64 {
        frames += 1
        let microseconds = usesSolutionClock ? frames * Self.frameIntervalMicroseconds : Int64(milliseconds) * 1000
        return microseconds * 1000
    }
}
