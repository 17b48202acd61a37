import BlazeImage
import BlazeKernels
import BlazeModelFormat
import BlazeRuntime
import BlazeStages
import BlazeTracking
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds hands in images and returns MediaPipe's 21 hand landmarks, world landmarks and handedness
/// — the Swift counterpart of MediaPipe Tasks' `HandLandmarker`, with the same networks and numbers.
///
/// Running modes:
/// - `.image`: ``LandmarkerTask/detect(image:)``; the palm detector runs on every photo.
/// - `.video`: ``LandmarkerTask/detect(videoFrame:timestampInMilliseconds:)`` with strictly increasing timestamps; hands
///   are tracked from frame to frame and the palm detector runs only when fewer than `numHands` are tracked.
/// - `.liveStream`: ``LandmarkerTask/detectAsync(image:timestampInMilliseconds:)`` returns at once; results go to
///   `options.handLandmarkerLiveStreamDelegate`; a newer frame replaces the one waiting.
///
/// It adds only its name to the one task shell, ``LandmarkerTask``, run with ``HandLandmarkerDefinition``
/// (options ``HandLandmarkerOptions``, result ``HandLandmarkerResult``). An instance is one stream: it owns its networks, buffers and tracking state. Calls are serialized;
/// instances are independent and run concurrently.
public final class HandLandmarker: LandmarkerTask<HandLandmarkerDefinition>, @unchecked Sendable {}

/// The hand landmarker as a ``TaskDefinition``: a palm detector and a hand landmark network, full or lite.
public enum HandLandmarkerDefinition: TaskDefinition {
    public static func modelRoles(for options: HandLandmarkerOptions) -> [TaskModelRole] {
        let full = options.model == .full
        return [TaskModelRole(name: "detector", builtin: full ? .palmDetectionFull : .palmDetectionLite),
                TaskModelRole(name: "landmarks", builtin: full ? .handLandmarkFull : .handLandmarkLite, isUserReplaceable: true)]
    }

    public static func makePipeline(options: HandLandmarkerOptions, resources: TaskResources) throws -> HandPipelineChoice {
        let identities = try ResultIdentities<HandLandmarkerResult>(subject: .hand, options: options.identity)
        if options.legacySolution != nil {
            return HandPipelineChoice(try LegacyHandPipeline(options: options, resources: resources), identities: identities)
        }
        if let mode = options.accurateMode {
            return HandPipelineChoice(try AccurateHandPipeline(options: options, mode: mode, resources: resources), identities: identities)
        }
        return HandPipelineChoice(try HandPipeline(options: options, resources: resources), identities: identities)
    }

    public static func deliverLiveStreamResult(_ result: HandLandmarkerResult?, timestampInMilliseconds: Int, error: (any Error)?,
                                               task: LandmarkerTask<Self>, options: HandLandmarkerOptions) {
        guard let task = task as? HandLandmarker else { return }
        options.handLandmarkerLiveStreamDelegate?.handLandmarker(task, didFinishDetection: result,
                                                                 timestampInMilliseconds: timestampInMilliseconds, error: error)
    }
}

/// The pipeline a ``HandLandmarker`` runs: MediaPipe's (``HandPipeline``) or the accurate mode's.
public typealias HandPipelineChoice = TaskPipelineChoice<HandLandmarkerResult>

/// The palm and hand networks and the tracker behind a ``HandLandmarker``.
final class HandPipeline: LandmarkPipeline {
    typealias Result = HandLandmarkerResult
    let detector: PalmDetectorStage
    var tracker: HandTracker
    let detection: (minScore: Float, maxCount: Int)
    private let landmarkStage: HandLandmarkStage
    private let presenceThreshold: Float

    let workers: WorkerPool

    init(options: HandLandmarkerOptions, resources: TaskResources) throws {
        workers = resources.workers
        detector = try PalmDetectorStage(model: resources.model("detector"), workers: workers, planning: resources.planning)
        landmarkStage = try HandLandmarkStage(model: resources.model("landmarks"), workers: workers, planning: resources.planning)
        tracker = HandTracker(numHands: options.numHands, minTrackingConfidence: options.minTrackingConfidence)
        detection = (options.minHandDetectionConfidence, options.numHands)
        presenceThreshold = options.minHandPresenceConfidence
    }

    func landmarks(in image: Image, regions: [NormalizedRect], timestamp: Int, tracking: Bool) throws -> HandLandmarkerResult {
        var hands: [HandLandmarkDecoding] = []
        for roi in regions {
            if let hand = try landmarkStage.landmarks(in: image, roi: roi, presenceThreshold: presenceThreshold) {
                hands.append(hand)
            }
        }
        let kept = tracking
            ? tracker.finishFrame(hands: hands.map(\.landmarks), imageWidth: image.width, imageHeight: image.height)
            : HandDeduplication.retainedIndices(of: hands.map(\.landmarks), imageWidth: image.width, imageHeight: image.height)
        var result = HandLandmarkerResult(timestampInMilliseconds: timestamp)
        for hand in kept.map({ hands[$0] }) {
            result.handedness.append([ResultCategory(hand.handedness)])
            result.landmarks.append(hand.landmarks.map { var l = $0; l.presence = hand.presenceScore; return l })
            result.worldLandmarks.append(hand.worldLandmarks)
        }
        return result
    }
}
