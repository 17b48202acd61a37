@_exported import struct BlazeTracking.IdentityOptions
import BlazeTracking
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which built-in palm and hand landmark networks to use.
public enum HandLandmarkerModel: String, Sendable, Codable, CaseIterable {
    /// `palm_detection_full` + `hand_landmark_full`.
    case full
    /// `palm_detection_lite` + `hand_landmark_lite`.
    case lite
}

/// Options of a ``HandLandmarker``, with MediaPipe Tasks' names and defaults
/// (`mediapipe/tasks/cc/vision/hand_landmarker/hand_landmarker.h`).
///
/// A reference type, as MediaPipe's `HandLandmarkerOptions` is: create it with `let`, set its properties,
/// and pass it to ``LandmarkerTask/init(options:)``, which takes a copy.
public final class HandLandmarkerOptions: TaskOptions {
    /// The built-in networks, used when `baseOptions.modelAssetPath` is nil (BlazeKit's addition).
    public var model: HandLandmarkerModel = .full
    /// Receives live-stream results (held weakly). Required in `.liveStream` mode, refused in the others,
    /// as in MediaPipe Tasks for iOS.
    public weak var handLandmarkerLiveStreamDelegate: (any HandLandmarkerLiveStreamDelegate)?
    /// The most hands to return (> 0).
    public var numHands = 1
    /// Minimum palm detector score, in [0, 1].
    public var minHandDetectionConfidence: Float = 0.5
    /// Minimum hand presence score of the landmark network, in [0, 1].
    public var minHandPresenceConfidence: Float = 0.5
    /// Minimum tracking IoU between frames, in [0, 1] (video and live stream).
    public var minTrackingConfidence: Float = 0.5
    /// BlazeKit's accurate mode (``HandAccurateMode``): nil, the default, gives MediaPipe's exact results.
    public var accurateMode: HandAccurateMode?
    /// MediaPipe's legacy hand graph, the one behind `mp.solutions.hands` (``LegacyHandSolution``), instead of
    /// the Tasks graph; nil, the default, runs the Tasks graph.
    public var legacySolution: LegacyHandSolution?

    /// How video and live-stream results' ``HandLandmarkerResult/ids`` are kept across frames (BlazeKit's
    /// addition; ``IdentityOptions``: absence window, similarity threshold). `votesHandedness` makes each hand's handedness its track's vote.
    public var identity = IdentityOptions()

    /// The MediaPipe defaults: built-in full models, image mode, one hand, confidences 0.5.
    public required init() {}

    public override var taskSpecificOptions: (delegate: (name: String, object: AnyObject?), count: (name: String, value: Int),
                                       confidences: KeyValuePairs<String, Float>) {
        (("handLandmarkerLiveStreamDelegate", handLandmarkerLiveStreamDelegate), ("numHands", numHands),
         ["minHandDetectionConfidence": minHandDetectionConfidence, "minHandPresenceConfidence": minHandPresenceConfidence, "minTrackingConfidence": minTrackingConfidence])
    }

    public override func copyOptions(from other: TaskOptions) {
        super.copyOptions(from: other)
        guard let other = other as? HandLandmarkerOptions else { return }
        (model, numHands, minTrackingConfidence) = (other.model, other.numHands, other.minTrackingConfidence)
        (minHandDetectionConfidence, minHandPresenceConfidence) = (other.minHandDetectionConfidence, other.minHandPresenceConfidence)
        handLandmarkerLiveStreamDelegate = other.handLandmarkerLiveStreamDelegate
        accurateMode = other.accurateMode
        legacySolution = other.legacySolution
        identity = other.identity
    }

}

/// Receives the results of ``LandmarkerTask/detectAsync(image:timestampInMilliseconds:)`` (MediaPipe Tasks'
/// `HandLandmarkerLiveStreamDelegate`).
///
/// Called on the landmarker's own serial queue, in timestamp order, once per processed frame: `result` is
/// empty when no hand was found, nil when `error` is set. Frames dropped because a newer one arrived get
/// no call. A plain `NSObject` subclass can adopt it: the landmarker holds it weakly and calls it from that
/// one queue only, so it needs no `Sendable` conformance.
public protocol HandLandmarkerLiveStreamDelegate: AnyObject {
    /// One processed live-stream frame: its result or the error that stopped it.
    func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?)
}
