import BlazeImage
import BlazeKernels
import BlazeStages
import BlazeTracking
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    private let workers: WorkerPool
    /// The hand networks on the pipeline's threads, for a frame with one hand to find.
    private let hands: HandStages
    /// With two or more threads, a set per hand on one thread each: a frame with both hands runs them side by
    /// side, which on two threads beats each hand's networks split in two, one hand after the other (a hand's
    /// networks on two threads take about 0.56 of their one-thread time, so two hands take 1.12). The same bits
    /// either way (a network's outputs do not depend on its thread count).
    private let sideBySide: (left: HandStages, right: HandStages)?
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
        workers = resources.workers
        hands = try HandStages(resources: resources, workers: workers)
        if workers.threadCount >= 2 {
            sideBySide = (try HandStages(resources: resources, workers: WorkerPool(threadCount: 1)),
                          try HandStages(resources: resources, workers: WorkerPool(threadCount: 1)))
        } else {
            sideBySide = nil
        }
        faceDetector = try FaceDetectorStage(model: resources.model("faceDetector"), workers: workers, planning: resources.planning)
        faceDetector.nmsThreshold = options.minFaceSuppressionThreshold
        faceLandmarks = try FaceLandmarkStage(model: resources.model("faceLandmarks"), workers: workers,
                                              withAttention: options.refineFaceLandmarks, planning: resources.planning)
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
        let (left, right) = try bothHands(in: image, pose: poseLandmarks, previous: tracking ? (previous.left, previous.right) : (nil, nil))
        let face = try face(in: image, pose: poseLandmarks, previous: tracking ? previous.face : nil)
        (result.leftHandLandmarks, result.leftHandWorldLandmarks) = (left?.landmarks ?? [], left?.worldLandmarks ?? [])
        (result.rightHandLandmarks, result.rightHandWorldLandmarks) = (right?.landmarks ?? [], right?.worldLandmarks ?? [])
        result.faceLandmarks = face ?? []
        if tracking { previous = (left?.landmarks, right?.landmarks, face) }
        return result
    }

    /// Both hands: side by side on one thread each when both are to be found and the pipeline has two threads
    /// or more, else one after the other on all of them.
    private func bothHands(in image: Image, pose: [NormalizedLandmark], previous: ([NormalizedLandmark]?, [NormalizedLandmark]?))
        throws -> (left: HandLandmarkDecoding?, right: HandLandmarkDecoding?) {
        let regions = (handRegionFromPose(in: image, pose: pose, left: true), handRegionFromPose(in: image, pose: pose, left: false))
        guard let pair = sideBySide, let leftRegion = regions.0, let rightRegion = regions.1 else {
            return (try regions.0.flatMap { try hand(in: image, from: $0, previous: previous.0, stages: hands) },
                    try regions.1.flatMap { try hand(in: image, from: $0, previous: previous.1, stages: hands) })
        }
        var found: [Swift.Result<HandLandmarkDecoding?, any Error>] = [.success(nil), .success(nil)]
        found.withUnsafeMutableBufferPointer { slots in
            workers.parallelFor(2) { i in
                slots[i] = Swift.Result { i == 0 ? try hand(in: image, from: leftRegion, previous: previous.0, stages: pair.left)
                                           : try hand(in: image, from: rightRegion, previous: previous.1, stages: pair.right) }
            }
        }
        return (try found[0].get(), try found[1].get())
    }

    /// `hand_landmarks_from_pose_cpu.pbtxt`'s gate and first region: the wrist's visibility, the region from the
    /// pose's wrist, pinky and index; nil when the hand is not to be looked for.
    private func handRegionFromPose(in image: Image, pose: [NormalizedLandmark], left: Bool) -> NormalizedRect? {
        guard let fromPose = HolisticRegions.handLandmarksFromPose(pose, left: left), HolisticRegions.isHandVisible(wrist: fromPose[0]),
              let region = HolisticRegions.handFromPose(fromPose, imageWidth: image.width, imageHeight: image.height),
              !region.isSentinel else { return nil }
        return region
    }

    /// The rest of `hand_landmarks_from_pose_cpu.pbtxt`: re-crop, tracking, landmarks.
    private func hand(in image: Image, from poseRegion: NormalizedRect, previous: [NormalizedLandmark]?,
                      stages: HandStages) throws -> HandLandmarkDecoding? {
        let (w, h) = (image.width, image.height)
        let recrop = try stages.recrop.region(in: image, roi: poseRegion)
        let tracked = previous.flatMap { lm in NextFrameROI.hand(landmarks: lm, imageWidth: w, imageHeight: h).map { ($0, lm) } }
        guard let region = RegionTracking.hand.region(recrop: recrop, previous: tracked, imageWidth: w, imageHeight: h),
              !region.isSentinel else { return nil }
        return try stages.landmarks.landmarks(in: image, roi: region, presenceThreshold: thresholds.hand)
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

/// The two networks that find a hand from the pose's region: `hand_recrop` and the hand landmark network.
private struct HandStages {
    let recrop: HandRecropStage
    let landmarks: HandLandmarkStage

    init(resources: TaskResources, workers: WorkerPool) throws {
        recrop = try HandRecropStage(model: resources.model("handRecrop"), workers: workers, planning: resources.planning)
        landmarks = try HandLandmarkStage(model: resources.model("handLandmarks"), workers: workers, planning: resources.planning)
        landmarks.keepsAspectRatio = true
    }
}
