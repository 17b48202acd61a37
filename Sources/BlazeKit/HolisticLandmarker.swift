import BlazeImage
import BlazeKernels
import BlazeRuntime
import BlazeStages
import BlazeTracking
import Dispatch
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
    /// The hand and face networks on the pipeline's threads, for a part found alone.
    private let handStages: HandStages
    private let faceStages: FaceStages
    /// With two or more threads, a set of each part's networks on one thread, so that two parts run side by
    /// side: both hands (the face detector before one, the mesh after the other), or one hand and the face. On two threads
    /// that beats each part's networks split in two, one part after the other: a hand's networks on two
    /// threads take about 0.56 of their one-thread time, and the face's small networks about 0.8. The same
    /// bits either way (a network's outputs do not depend on its thread count).
    private let sideBySide: (left: HandStages, right: HandStages, face: FaceStages)?
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
        handStages = try HandStages(resources: resources, workers: workers)
        faceStages = try FaceStages(options: options, resources: resources, workers: workers)
        if workers.threadCount >= 2 {
            let left = try HandStages(resources: resources, workers: WorkerPool(threadCount: 1))
            sideBySide = (left, try HandStages(resources: resources, workers: WorkerPool(threadCount: 1), copying: left),
                          try FaceStages(options: options, resources: resources, workers: WorkerPool(threadCount: 1)))
        } else {
            sideBySide = nil
        }
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
        let (left, right, face) = try parts(in: image, pose: poseLandmarks, previous: tracking ? previous : (nil, nil, nil))
        (result.leftHandLandmarks, result.leftHandWorldLandmarks) = (left?.landmarks ?? [], left?.worldLandmarks ?? [])
        (result.rightHandLandmarks, result.rightHandWorldLandmarks) = (right?.landmarks ?? [], right?.worldLandmarks ?? [])
        result.faceLandmarks = face ?? []
        if tracking { previous = (left?.landmarks, right?.landmarks, face) }
        return result
    }

    /// Both hands and the face. With two threads or more, parts side by side on one thread each: the face
    /// detector then one hand, beside the other hand then the face mesh; or a single hand beside the face.
    /// Otherwise (or for the face alone) one after the other on all threads.
    private func parts(in image: Image, pose: [NormalizedLandmark], previous: (left: [NormalizedLandmark]?,
                                                                            right: [NormalizedLandmark]?, face: [NormalizedLandmark]?))
        throws -> (left: HandLandmarkDecoding?, right: HandLandmarkDecoding?, face: [NormalizedLandmark]?) {
        let leftRegion = handRegionFromPose(in: image, pose: pose, left: true)
        let rightRegion = handRegionFromPose(in: image, pose: pose, left: false)
        let faceRegion = HolisticRegions.faceFromPose(pose, imageWidth: image.width, imageHeight: image.height).flatMap { $0.isSentinel ? nil : $0 }
        let oneAfterAnother = {
            (try leftRegion.flatMap { try self.hand(in: image, from: $0, previous: previous.left, stages: self.handStages) },
             try rightRegion.flatMap { try self.hand(in: image, from: $0, previous: previous.right, stages: self.handStages) },
             try faceRegion.flatMap { try self.faceMesh(in: image, from: $0, previous: previous.face, stages: self.faceStages) })
        }
        guard let oneThread = sideBySide else { return try oneAfterAnother() }
        if let leftRegion, let rightRegion {
            guard let faceRegion else {
                let (left, right) = try sideBySide(
                    { try self.hand(in: image, from: leftRegion, previous: previous.left, stages: oneThread.left) },
                    { try self.hand(in: image, from: rightRegion, previous: previous.right, stages: oneThread.right) })
                return (left, right, nil)
            }
            // The face's two small networks gain little from a second thread (face detection 1.44 → 1.39 ms,
            // the mesh 1.98 → 1.87 ms in this host's rounds against LiteRT), so each runs on one thread beside
            // a hand: the detector before the left hand, the mesh after the right hand, from the region the
            // detector's thread hands over. The handover cannot deadlock: `parallelFor` deals item 0 to the
            // calling thread, which runs it first, and a thread takes another's item only once its own are
            // done, so whichever thread waits in item 1 waits for an item running or about to run on a thread
            // not waiting; and item 0 signals before anything in it can throw. The face's one-thread pool is never used by both threads
            // at once: the mesh starts after the detector has finished.
            let handover = DispatchSemaphore(value: 0)
            var region: Swift.Result<NormalizedRect?, any Error> = .success(nil)
            let (left, (right, face)) = try sideBySide(
                { () throws -> HandLandmarkDecoding? in
                    region = Swift.Result { try self.faceRegion(in: image, from: faceRegion, previous: previous.face, stages: oneThread.face) }
                    handover.signal()
                    return try self.hand(in: image, from: leftRegion, previous: previous.left, stages: oneThread.left)
                },
                { () throws -> (HandLandmarkDecoding?, [NormalizedLandmark]?) in
                    let right = Swift.Result { try self.hand(in: image, from: rightRegion, previous: previous.right, stages: oneThread.right) }
                    handover.wait()
                    let mesh = try region.get().flatMap { try oneThread.face.landmarks.landmarks(in: image, roi: $0, presenceThreshold: self.thresholds.face) }
                    return (try right.get(), mesh)
                })
            return (left, right, face)
        }
        let isLeft = leftRegion != nil
        guard let handRegion = leftRegion ?? rightRegion, let faceRegion else { return try oneAfterAnother() }
        let (found, mesh) = try sideBySide(
            { try self.hand(in: image, from: handRegion, previous: isLeft ? previous.left : previous.right, stages: oneThread.left) },
            { try self.faceMesh(in: image, from: faceRegion, previous: previous.face, stages: oneThread.face) })
        return (isLeft ? found : nil, isLeft ? nil : found, mesh)
    }

    /// `first()` and `second()` on the pool's first two threads, side by side.
    private func sideBySide<A, B>(_ first: () throws -> A, _ second: () throws -> B) throws -> (A, B) {
        var a: Swift.Result<A, any Error>?, b: Swift.Result<B, any Error>?
        workers.parallelFor(2) { i in
            if i == 0 { a = Swift.Result { try first() } } else { b = Swift.Result { try second() } }
        }
        return (try a!.get(), try b!.get())
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

    /// The rest of `face_landmarks_from_pose_cpu.pbtxt`: face detection in the region from the pose, tracking,
    /// the mesh.
    private func faceMesh(in image: Image, from poseRegion: NormalizedRect, previous: [NormalizedLandmark]?,
                          stages: FaceStages) throws -> [NormalizedLandmark]? {
        guard let region = try faceRegion(in: image, from: poseRegion, previous: previous, stages: stages) else { return nil }
        return try stages.landmarks.landmarks(in: image, roi: region, presenceThreshold: thresholds.face)
    }

    /// The mesh's region: face detection in the region from the pose, then tracking; nil when there is no face.
    private func faceRegion(in image: Image, from poseRegion: NormalizedRect, previous: [NormalizedLandmark]?,
                            stages: FaceStages) throws -> NormalizedRect? {
        let (w, h) = (image.width, image.height)
        let detections = try stages.detector.detect(in: image, roi: poseRegion, minScore: thresholds.faceDetection)
        let recrop = HolisticRegions.faceFromDetection(detections, imageWidth: w, imageHeight: h)
        let tracked = previous.flatMap { lm in HolisticRegions.faceFromLandmarks(lm, imageWidth: w, imageHeight: h).map { ($0, lm) } }
        guard let region = RegionTracking.face.region(recrop: recrop, previous: tracked, imageWidth: w, imageHeight: h),
              !region.isSentinel else { return nil }
        return region
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

    /// - Parameter twin: stages of the same networks on as many threads, whose measured kernel choices these
    ///   reuse instead of timing again (``Planning/reusing(_:)``; fixed rules stay fixed).
    init(resources: TaskResources, workers: WorkerPool, copying twin: HandStages? = nil) throws {
        func planning(_ session: InferenceSession?) -> Planning {
            guard let session, resources.planning != .fixed else { return resources.planning }
            return .reusing(session.kernelPlan)
        }
        recrop = try HandRecropStage(model: resources.model("handRecrop"), workers: workers, planning: planning(twin?.recrop.network.session))
        landmarks = try HandLandmarkStage(model: resources.model("handLandmarks"), workers: workers,
                                          planning: planning(twin?.landmarks.network.session))
        landmarks.keepsAspectRatio = true
    }
}

/// The two networks of the face: BlazeFace short range inside the region from the pose, and the face mesh.
private struct FaceStages {
    let detector: FaceDetectorStage
    let landmarks: FaceLandmarkStage

    init(options: HolisticLandmarkerOptions, resources: TaskResources, workers: WorkerPool) throws {
        detector = try FaceDetectorStage(model: resources.model("faceDetector"), workers: workers, planning: resources.planning)
        detector.nmsThreshold = options.minFaceSuppressionThreshold
        landmarks = try FaceLandmarkStage(model: resources.model("faceLandmarks"), workers: workers,
                                          withAttention: options.refineFaceLandmarks, planning: resources.planning)
    }
}
