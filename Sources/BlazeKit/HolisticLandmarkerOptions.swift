#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Options of a ``HolisticLandmarker``, with MediaPipe Tasks' `HolisticLandmarkerOptions` names
/// (`mediapipe/tasks/python/vision/holistic_landmarker.py`). The defaults are those of MediaPipe's legacy
/// Holistic graph (`mediapipe/modules/holistic_landmark/holistic_landmark_cpu.pbtxt`, behind
/// `mp.solutions.holistic`), whose results the task reproduces: both suppression thresholds are 0.3 there
/// (Tasks' defaults are 0.5).
///
/// | `mp.solutions.holistic.Holistic` | BlazeKit |
/// |---|---|
/// | `static_image_mode=True` / `False` | `runningMode = .image` / `.video` |
/// | `model_complexity` 0 / 1 | `poseModel = .lite` / `.full` |
/// | `smooth_landmarks`, `smooth_segmentation` | `poseSmoothing` (video only, as in MediaPipe) |
/// | `enable_segmentation` | `shouldOutputPoseSegmentationMasks` |
/// | `refine_face_landmarks` | `refineFaceLandmarks` |
/// | `min_detection_confidence` | `minPoseDetectionConfidence` |
/// | `min_tracking_confidence` | `minPoseLandmarksConfidence` |
public final class HolisticLandmarkerOptions: TaskOptions {
    /// Minimum face detector score inside the face region found from the pose, in [0, 1].
    public var minFaceDetectionConfidence: Float = 0.5
    /// IoU above which overlapping face detections are merged, in [0, 1].
    public var minFaceSuppressionThreshold: Float = 0.3
    /// Minimum face mesh score, in [0, 1] (compared strictly).
    public var minFaceLandmarksConfidence: Float = 0.5
    /// Minimum pose detector score, in [0, 1].
    public var minPoseDetectionConfidence: Float = 0.5
    /// IoU above which overlapping pose detections are merged, in [0, 1].
    public var minPoseSuppressionThreshold: Float = 0.3
    /// Minimum pose landmark presence score, in [0, 1] (compared strictly).
    public var minPoseLandmarksConfidence: Float = 0.5
    /// Minimum hand landmark presence score, in [0, 1] (compared strictly).
    public var minHandLandmarksConfidence: Float = 0.5
    /// Whether results carry the person mask.
    public var shouldOutputPoseSegmentationMasks = false
    /// The attention face mesh (`face_landmark_with_attention`): 478 points, refined lips and eyes, and the
    /// irises (BlazeKit's name for `refine_face_landmarks`).
    public var refineFaceLandmarks = false
    /// The built-in pose landmark network (BlazeKit's addition; `model_complexity`).
    public var poseModel: PoseLandmarkerModel = .full
    /// How the pose is smoothed in video and live-stream mode (the legacy pose graph's filters).
    public var poseSmoothing = LegacyPoseSolution()
    /// Receives live-stream results (held weakly). Required in `.liveStream` mode, refused in the others.
    public weak var holisticLandmarkerLiveStreamDelegate: (any HolisticLandmarkerLiveStreamDelegate)?

    /// The legacy graph's defaults: built-in full pose model, image mode, confidences 0.5, suppression 0.3.
    public required init() {}

    public override func copyOptions(from other: TaskOptions) {
        super.copyOptions(from: other)
        guard let o = other as? HolisticLandmarkerOptions else { return }
        (minFaceDetectionConfidence, minFaceSuppressionThreshold, minFaceLandmarksConfidence)
            = (o.minFaceDetectionConfidence, o.minFaceSuppressionThreshold, o.minFaceLandmarksConfidence)
        (minPoseDetectionConfidence, minPoseSuppressionThreshold, minPoseLandmarksConfidence, minHandLandmarksConfidence)
            = (o.minPoseDetectionConfidence, o.minPoseSuppressionThreshold, o.minPoseLandmarksConfidence, o.minHandLandmarksConfidence)
        (shouldOutputPoseSegmentationMasks, refineFaceLandmarks, poseModel, poseSmoothing)
            = (o.shouldOutputPoseSegmentationMasks, o.refineFaceLandmarks, o.poseModel, o.poseSmoothing)
        holisticLandmarkerLiveStreamDelegate = o.holisticLandmarkerLiveStreamDelegate
    }

    public override var taskSpecificOptions: (delegate: (name: String, object: AnyObject?), count: (name: String, value: Int),
                                              confidences: KeyValuePairs<String, Float>) {
        (("holisticLandmarkerLiveStreamDelegate", holisticLandmarkerLiveStreamDelegate), ("numPoses", 1),
         ["minFaceDetectionConfidence": minFaceDetectionConfidence, "minFaceSuppressionThreshold": minFaceSuppressionThreshold,
          "minFaceLandmarksConfidence": minFaceLandmarksConfidence, "minPoseDetectionConfidence": minPoseDetectionConfidence,
          "minPoseSuppressionThreshold": minPoseSuppressionThreshold, "minPoseLandmarksConfidence": minPoseLandmarksConfidence,
          "minHandLandmarksConfidence": minHandLandmarksConfidence])
    }
}

/// Receives the results of ``LandmarkerTask/detectAsync(image:timestampInMilliseconds:)`` (MediaPipe Tasks'
/// `HolisticLandmarkerLiveStreamDelegate`), on the landmarker's serial queue, in timestamp order.
public protocol HolisticLandmarkerLiveStreamDelegate: AnyObject {
    /// One processed live-stream frame: its result or the error that stopped it.
    func holisticLandmarker(_ holisticLandmarker: HolisticLandmarker, didFinishDetection result: HolisticLandmarkerResult?,
                            timestampInMilliseconds: Int, error: (any Error)?)
}
