import BlazeImage
import BlazeModelFormat
import BlazeRuntime
import BlazeStages
import BlazeTracking
import Foundation

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
/// It adds only its name to the one task shell, ``LandmarkerTask``, typed with ``PoseLandmarkerOptions`` and
/// ``PoseLandmarkerResult``. An instance is one stream: it owns its networks, buffers and tracking state. Calls are serialized;
/// instances are independent and run concurrently. Releasing the last reference while a live-stream frame
/// is being processed waits for that frame; its callback is then not delivered.
public final class PoseLandmarker: LandmarkerTask<PoseLandmarkerOptions, PoseLandmarkerResult>, @unchecked Sendable {}

/// The pose networks and tracker behind a ``PoseLandmarker``.
final class PosePipeline: LandmarkPipeline {
    let detector: PoseDetectorStage
    private let segmentation: Bool
    private let landmarkStage: PoseLandmarkStage
    private let presenceThreshold: Float
    var tracker: PoseTracker
    let detection: (minScore: Float, maxCount: Int)

    var sessions: [InferenceSession] { [detector.network.session, landmarkStage.network.session] }

    init(options: PoseLandmarkerOptions) throws {
        let models = try TaskModelLocator.locate(
            options, detector: .poseDetection, landmarks: options.model == .full ? .poseLandmarkFull : .poseLandmarkLite)
        let threads = options.baseOptions.threadCount
        detector = try PoseDetectorStage(model: models.detector, threadCount: threads)
        segmentation = options.shouldOutputSegmentationMasks
        landmarkStage = try PoseLandmarkStage(model: models.landmarks, threadCount: threads, segmentation: segmentation)
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
