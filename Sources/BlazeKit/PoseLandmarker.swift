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

/// Finds people in images and returns MediaPipe's 33 body landmarks, world landmarks and
/// optional person masks — the Swift counterpart of MediaPipe Tasks' `PoseLandmarker`, with the
/// same networks, steps and numbers.
///
/// Running modes:
/// - `.image`: ``LandmarkerTask/detect(image:)``; the detector runs on every photo, nothing is remembered.
/// - `.video`: ``LandmarkerTask/detect(videoFrame:timestampInMilliseconds:)`` with strictly increasing timestamps; poses
///   are tracked from frame to frame (the detector runs only when fewer than `numPoses` are tracked) and a
///   single pose is smoothed.
/// - `.liveStream`: ``LandmarkerTask/detectAsync(image:timestampInMilliseconds:)`` returns at once; results go to
///   `options.poseLandmarkerLiveStreamDelegate`. While a frame is processed, a newer frame replaces the
///   one waiting, which is dropped.
///
/// It adds only its name to the one task shell, ``LandmarkerTask``, run with ``PoseLandmarkerDefinition``
/// (options ``PoseLandmarkerOptions``, result ``PoseLandmarkerResult``). An instance is one stream: it owns its networks, buffers and tracking state. Calls are serialized;
/// instances are independent and run concurrently. Releasing the last reference while a live-stream frame
/// is being processed waits for that frame; its callback is then not delivered.
public final class PoseLandmarker: LandmarkerTask<PoseLandmarkerDefinition>, @unchecked Sendable {}

/// The pose landmarker as a ``TaskDefinition``: the pose detector and a pose landmark network.
public enum PoseLandmarkerDefinition: TaskDefinition {
    public static func modelRoles(for options: PoseLandmarkerOptions) -> [TaskModelRole] {
        [TaskModelRole(name: "detector", builtin: .poseDetection),
         TaskModelRole(name: "landmarks", builtin: options.model == .full ? .poseLandmarkFull : .poseLandmarkLite, isUserReplaceable: true)]
    }

    public static func makePipeline(options: PoseLandmarkerOptions, resources: TaskResources) throws -> PosePipelineChoice {
        let identities = try ResultIdentities<PoseLandmarkerResult>(subject: .pose, options: options.identity)
        if let solution = options.legacySolution {
            return PosePipelineChoice(try LegacyPosePipeline(options: options, solution: solution, resources: resources), identities: identities)
        }
        if let mode = options.accurateMode {
            return PosePipelineChoice(try AccuratePosePipeline(options: options, mode: mode, resources: resources), identities: identities)
        }
        return PosePipelineChoice(try PosePipeline(options: options, resources: resources), identities: identities)
    }

    public static func deliverLiveStreamResult(_ result: PoseLandmarkerResult?, timestampInMilliseconds: Int, error: (any Error)?,
                                               task: LandmarkerTask<Self>, options: PoseLandmarkerOptions) {
        guard let task = task as? PoseLandmarker else { return }
        options.poseLandmarkerLiveStreamDelegate?.poseLandmarker(task, didFinishDetection: result,
                                                                 timestampInMilliseconds: timestampInMilliseconds, error: error)
    }
}

/// The pipeline a ``PoseLandmarker`` runs: MediaPipe's (``PosePipeline``) or the accurate mode's.
public typealias PosePipelineChoice = TaskPipelineChoice<PoseLandmarkerResult>

/// The pose networks and tracker behind a ``PoseLandmarker``.
final class PosePipeline: LandmarkPipeline {
    typealias Result = PoseLandmarkerResult
    let detector: PoseDetectorStage
    private let segmentation: Bool
    private let landmarkStage: PoseLandmarkStage
    private let presenceThreshold: Float
    var tracker: PoseTracker
    let detection: (minScore: Float, maxCount: Int)

    let workers: WorkerPool

    init(options: PoseLandmarkerOptions, resources: TaskResources) throws {
        workers = resources.workers
        detector = try PoseDetectorStage(model: resources.model("detector"), workers: workers, planning: resources.planning)
        segmentation = options.shouldOutputSegmentationMasks
        landmarkStage = try PoseLandmarkStage(model: resources.model("landmarks"), workers: workers, segmentation: segmentation,
                                              planning: resources.planning)
        tracker = PoseTracker(numPoses: options.numPoses, minTrackingConfidence: options.minTrackingConfidence)
        detection = (options.minPoseDetectionConfidence, options.numPoses)
        presenceThreshold = options.minPosePresenceConfidence
    }

    func landmarks(in image: Image, regions: [NormalizedRect], timestamp: Int, tracking: Bool) throws -> PoseLandmarkerResult {
        var poses: [PoseTracker.Pose] = []
        var result = PoseLandmarkerResult(timestampInMilliseconds: timestamp)
        for roi in regions {
            guard let pose = try landmarkStage.landmarks(in: image, roi: roi, presenceThreshold: presenceThreshold,
                                                         segmentation: segmentation) else { continue }
            poses.append(PoseTracker.Pose(landmarks: pose.decoding.landmarks, worldLandmarks: pose.decoding.worldLandmarks,
                                          auxiliaryLandmarks: pose.decoding.auxiliaryLandmarks))
            if let mask = pose.mask { result.segmentationMasks.append(Mask(width: image.width, height: image.height, float32Data: mask)) }
        }
        if tracking {
            poses = tracker.finishFrame(poses, imageWidth: image.width, imageHeight: image.height, timestampMilliseconds: timestamp)
        }
        result.landmarks = poses.map(\.landmarks)
        result.worldLandmarks = poses.map(\.worldLandmarks)
        return result
    }
}
