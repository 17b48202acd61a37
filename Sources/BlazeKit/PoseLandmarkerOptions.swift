import BlazeTracking
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which built-in pose landmark network to use.
public enum PoseLandmarkerModel: String, Sendable, Codable, CaseIterable {
    /// `pose_landmark_full`: MediaPipe's default accuracy.
    case full
    /// `pose_landmark_lite`: about half the compute.
    case lite
}

/// Options of a ``PoseLandmarker``, with MediaPipe Tasks' names and defaults
/// (`mediapipe/tasks/cc/vision/pose_landmarker/pose_landmarker.h`).
///
/// A reference type, as MediaPipe's `PoseLandmarkerOptions` is: create it with `let`, set its properties,
/// and pass it to ``LandmarkerTask/init(options:)``, which takes a copy, so later changes don't reach a
/// landmarker already created.
public final class PoseLandmarkerOptions: TaskOptions {
    /// The most poses to return (> 0).
    public var numPoses = 1
    /// Whether results carry one person mask per pose.
    public var shouldOutputSegmentationMasks = false
    /// Minimum pose detector score, in [0, 1].
    public var minPoseDetectionConfidence: Float = 0.5
    /// Minimum landmark-model pose presence score, in [0, 1] (compared strictly).
    public var minPosePresenceConfidence: Float = 0.5
    /// Minimum tracking IoU between frames, in [0, 1] (video and live stream).
    public var minTrackingConfidence: Float = 0.5
    /// Receives live-stream results (held weakly). Required in `.liveStream` mode, refused in the others,
    /// as in MediaPipe Tasks for iOS.
    public weak var poseLandmarkerLiveStreamDelegate: (any PoseLandmarkerLiveStreamDelegate)?
    /// The built-in landmark network, used when `baseOptions.modelAssetPath` is nil (BlazeKit's addition).
    public var model: PoseLandmarkerModel = .full
    /// BlazeKit's accurate mode (``PoseAccurateMode``): nil, the default, gives MediaPipe's exact results.
    public var accurateMode: PoseAccurateMode?
    /// MediaPipe's legacy pose graph, the one behind `mp.solutions.pose` (``LegacyPoseSolution``), instead of the
    /// Tasks graph; nil, the default, runs the Tasks graph.
    public var legacySolution: LegacyPoseSolution?

    /// How video and live-stream results' ``PoseLandmarkerResult/ids`` are kept across frames (BlazeKit's
    /// addition; ``IdentityOptions``: absence window, similarity threshold).
    public var identity = IdentityOptions()

    /// The MediaPipe defaults: built-in full model, image mode, one pose, confidences 0.5, no masks.
    public required init() {}

    public override func copyOptions(from other: TaskOptions) {
        super.copyOptions(from: other)
        guard let other = other as? PoseLandmarkerOptions else { return }
        (model, numPoses, shouldOutputSegmentationMasks) = (other.model, other.numPoses, other.shouldOutputSegmentationMasks)
        (minPoseDetectionConfidence, minPosePresenceConfidence, minTrackingConfidence)
            = (other.minPoseDetectionConfidence, other.minPosePresenceConfidence, other.minTrackingConfidence)
        poseLandmarkerLiveStreamDelegate = other.poseLandmarkerLiveStreamDelegate
        accurateMode = other.accurateMode
        legacySolution = other.legacySolution
        identity = other.identity
    }

    /// The former name of ``shouldOutputSegmentationMasks``.
    @available(*, deprecated, renamed: "shouldOutputSegmentationMasks")
    public var outputSegmentationMasks: Bool {
        get { shouldOutputSegmentationMasks }
        set { shouldOutputSegmentationMasks = newValue }
    }

    public override var taskSpecificOptions: (delegate: (name: String, object: AnyObject?), count: (name: String, value: Int),
                                       confidences: KeyValuePairs<String, Float>) {
        (("poseLandmarkerLiveStreamDelegate", poseLandmarkerLiveStreamDelegate), ("numPoses", numPoses),
         ["minPoseDetectionConfidence": minPoseDetectionConfidence, "minPosePresenceConfidence": minPosePresenceConfidence, "minTrackingConfidence": minTrackingConfidence])
    }
}

/// Receives the results of ``LandmarkerTask/detectAsync(image:timestampInMilliseconds:)`` (MediaPipe Tasks'
/// `PoseLandmarkerLiveStreamDelegate`).
///
/// Called on the landmarker's own serial queue, in timestamp order, once per processed frame: `result` is
/// empty when nobody was found, nil when `error` is set. Frames dropped because a newer one arrived get no
/// call. A plain `NSObject` subclass can adopt it, as on iOS: the landmarker holds it weakly and makes
/// every call from that one queue, so the adopter needs no `Sendable` conformance; if it shares state with
/// other threads, it guards that state itself (on iOS, by hopping to the main queue).
public protocol PoseLandmarkerLiveStreamDelegate: AnyObject {
    /// One processed live-stream frame: its result or the error that stopped it.
    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?)
}
