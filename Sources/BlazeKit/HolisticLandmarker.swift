import BlazeImage
import BlazeKernels
import BlazeStages
import BlazeTracking
import Foundation

/// Finds one person's pose, both hands (found from the pose) and the face mesh — the Swift counterpart of
/// MediaPipe Tasks' `HolisticLandmarker`, with the results of MediaPipe's legacy Holistic graph
/// (`mediapipe/modules/holistic_landmark/holistic_landmark_cpu.pbtxt`, 0.10.14, behind `mp.solutions.holistic`).
///
/// Per image: the legacy pose graph (``LegacyPoseSolution``: detector, landmarks, filters in video mode); for
/// each hand whose wrist is visible, a region from the pose's wrist, pinky and index, refined by `hand_recrop`,
/// then the hand landmark network; for the face, a region from the pose's eleven head landmarks, BlazeFace short
/// range inside it, then the face mesh. In video and live-stream mode a hand or the face keeps the region of its
/// previous landmarks while that stays close to the new one (``RegionTracking``). In image mode nothing is
/// remembered from one image to the next.
public final class HolisticLandmarker: LandmarkerTask<HolisticLandmarkerDefinition>, @unchecked Sendable {}

/// The holistic landmarker as a ``TaskDefinition``: six networks.
public enum HolisticLandmarkerDefinition: TaskDefinition {
    public static func modelRoles(for options: HolisticLandmarkerOptions) -> [TaskModelRole] {
        [TaskModelRole(name: "detector", builtin: .poseDetection),
         TaskModelRole(name: "landmarks", builtin: options.poseModel == .full ? .poseLandmarkFull : .poseLandmarkLite, isUserReplaceable: true),
         TaskModelRole(name: "handLandmarks", builtin: .handLandmarkFull),
         TaskModelRole(name: "handRecrop", builtin: .handRecrop),
         TaskModelRole(name: "faceDetector", builtin: .faceDetectionShortRange),
         TaskModelRole(name: "faceLandmarks", builtin: options.refineFaceLandmarks ? .faceLandmarkWithAttention : .faceLandmark)]
    }

    public static func makePipeline(options: HolisticLandmarkerOptions, resources: TaskResources) throws -> HolisticPipeline {
        try HolisticPipeline(options: options, resources: resources)
    }

    public static func deliverLiveStreamResult(_ result: HolisticLandmarkerResult?, timestampInMilliseconds: Int, error: (any Error)?,
                                               task: LandmarkerTask<Self>, options: HolisticLandmarkerOptions) {
        guard let task = task as? HolisticLandmarker else { return }
        options.holisticLandmarkerLiveStreamDelegate?.holisticLandmarker(task, didFinishDetection: result,
                                                                         timestampInMilliseconds: timestampInMilliseconds, error: error)
    }
}

/// The networks and per-stream state behind a ``HolisticLandmarker``.
public final class HolisticPipeline: TaskPipeline {
    private let pose: LegacyPosePipeline
    private let handRecrop: HandRecropStage
    private let handLandmarks: HandLandmarkStage
    private let faceDetector: FaceDetectorStage
    private let faceLandmarks: FaceLandmarkStage
    private let thresholds: (faceDetection: Float, face: Float, hand: Float)
    /// The previous frame's landmarks of each part (video and live stream), for ``RegionTracking``.
    private var previous: (left: [NormalizedLandmark]?, right: [NormalizedLandmark]?, face: [NormalizedLandmark]?)

    init(options: HolisticLandmarkerOptions, resources: TaskResources) throws {
        let poseOptions = PoseLandmarkerOptions()
        poseOptions.runningMode = options.runningMode
        poseOptions.shouldOutputSegmentationMasks = options.shouldOutputPoseSegmentationMasks
        poseOptions.minPoseDetectionConfidence = options.minPoseDetectionConfidence
        poseOptions.minPosePresenceConfidence = options.minPoseLandmarksConfidence
        pose = try LegacyPosePipeline(options: poseOptions, solution: options.poseSmoothing, resources: resources)
        pose.detector.nmsThreshold = options.minPoseSuppressionThreshold
        let workers = resources.workers
        handRecrop = try HandRecropStage(model: resources.model("handRecrop"), workers: workers)
        handLandmarks = try HandLandmarkStage(model: resources.model("handLandmarks"), workers: workers)
        handLandmarks.keepsAspectRatio = true
        faceDetector = try FaceDetectorStage(model: resources.model("faceDetector"), workers: workers)
        faceDetector.nmsThreshold = options.minFaceSuppressionThreshold
        faceLandmarks = try FaceLandmarkStage(model: resources.model("faceLandmarks"), workers: workers,
                                              withAttention: options.refineFaceLandmarks)
        thresholds = (options.minFaceDetectionConfidence, options.minFaceLandmarksConfidence, options.minHandLandmarksConfidence)
    }

    public func process(_ image: MPImage, timestampInMilliseconds: Int, tracking: Bool) throws -> HolisticLandmarkerResult {
        let found = try pose.process(image, timestampInMilliseconds: timestampInMilliseconds, tracking: tracking)
        var result = HolisticLandmarkerResult(timestampInMilliseconds: timestampInMilliseconds)
        guard let poseLandmarks = found.landmarks.first else {
            previous = (nil, nil, nil)
            return result
        }
        result.poseLandmarks = poseLandmarks
        result.poseWorldLandmarks = found.worldLandmarks.first ?? []
        result.poseSegmentationMask = found.segmentationMasks.first
        let left = try hand(in: image, pose: poseLandmarks, left: true, previous: tracking ? previous.left : nil)
        let right = try hand(in: image, pose: poseLandmarks, left: false, previous: tracking ? previous.right : nil)
        let face = try face(in: image, pose: poseLandmarks, previous: tracking ? previous.face : nil)
        (result.leftHandLandmarks, result.leftHandWorldLandmarks) = (left?.landmarks ?? [], left?.worldLandmarks ?? [])
        (result.rightHandLandmarks, result.rightHandWorldLandmarks) = (right?.landmarks ?? [], right?.worldLandmarks ?? [])
        result.faceLandmarks = face ?? []
        if tracking { previous = (left?.landmarks, right?.landmarks, face) }
        return result
    }

    /// `hand_landmarks_from_pose_cpu.pbtxt`: wrist visibility gate, region from the pose, re-crop, tracking, landmarks.
    private func hand(in image: Image, pose: [NormalizedLandmark], left: Bool, previous: [NormalizedLandmark]?) throws -> HandLandmarkDecoding? {
        let (w, h) = (image.width, image.height)
        guard let fromPose = HolisticRegions.handLandmarksFromPose(pose, left: left), HolisticRegions.isHandVisible(wrist: fromPose[0]),
              let poseRegion = HolisticRegions.handFromPose(fromPose, imageWidth: w, imageHeight: h), !poseRegion.isSentinel else { return nil }
        let recrop = try handRecrop.region(in: image, roi: poseRegion)
        let tracked = previous.flatMap { lm in NextFrameROI.hand(landmarks: lm, imageWidth: w, imageHeight: h).map { ($0, lm) } }
        guard let region = RegionTracking.hand.region(recrop: recrop, previous: tracked, imageWidth: w, imageHeight: h),
              !region.isSentinel else { return nil }
        return try handLandmarks.landmarks(in: image, roi: region, presenceThreshold: thresholds.hand)
    }

    /// `face_landmarks_from_pose_cpu.pbtxt`: region from the pose, face detection in it, tracking, the mesh.
    private func face(in image: Image, pose: [NormalizedLandmark], previous: [NormalizedLandmark]?) throws -> [NormalizedLandmark]? {
        let (w, h) = (image.width, image.height)
        guard let poseRegion = HolisticRegions.faceFromPose(pose, imageWidth: w, imageHeight: h), !poseRegion.isSentinel else { return nil }
        let detections = try faceDetector.detect(in: image, roi: poseRegion, minScore: thresholds.faceDetection)
        let recrop = HolisticRegions.faceFromDetection(detections, imageWidth: w, imageHeight: h)
        let tracked = previous.flatMap { lm in HolisticRegions.faceFromLandmarks(lm, imageWidth: w, imageHeight: h).map { ($0, lm) } }
        guard let region = RegionTracking.face.region(recrop: recrop, previous: tracked, imageWidth: w, imageHeight: h),
              !region.isSentinel else { return nil }
        return try faceLandmarks.landmarks(in: image, roi: region, presenceThreshold: thresholds.face)
    }

    public func resetTracking() {
        pose.resetTracking()
        previous = (nil, nil, nil)
    }

    public var trackingStatistics: (frames: Int, detectorRuns: Int) { pose.trackingStatistics }

    public func setIdleWork(_ work: (@Sendable () -> Bool)?) { pose.setIdleWork(work) }
}
