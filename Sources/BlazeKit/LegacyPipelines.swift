import BlazeImage
import BlazeKernels
import BlazeStages
import BlazeTracking
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension LegacyPoseTracker: RegionTracker {}
extension LegacyHandTracker: RegionTracker {}

/// The legacy pose graph behind `mp.solutions.pose` (``LegacyPoseSolution``): the pose detector with IoU
/// 0.3 suppression and only its first detection, the landmark network on a letterboxed crop, the legacy
/// filters, and mask smoothing. In image mode (`static_image_mode`) nothing is filtered or remembered.
final class LegacyPosePipeline: LandmarkPipeline {
    typealias Result = PoseLandmarkerResult
    /// `min_suppression_threshold` of `pose_detection_cpu.pbtxt` (Tasks: 0.5).
    static let nmsThreshold: Float = 0.3
    /// The heatmap refinement window of mediapipe 0.10.14's legacy graph: 9, the default of
    /// `RefineLandmarksFromHeatmapCalculatorOptions`, although `tensors_to_pose_landmarks_and_segmentation.pbtxt`
    /// names 7 (the Tasks graph's). Measured on 30 photos against `mp.solutions.pose` (static images, full model):
    /// with 7, mean 5.8e-4 and up to 0.025 off; with 9, mean 5.0e-5 and at most 0.0016.
    static let heatmapKernelSize = 9

    let detector: PoseDetectorStage
    var tracker: LegacyPoseTracker
    let detection: (minScore: Float, maxCount: Int)
    let workers: WorkerPool
    private let landmarkStage: PoseLandmarkStage
    private let segmentation: Bool
    private let presenceThreshold: Float
    private let smoothsSegmentation: Bool
    private var maskSmoother = SegmentationSmoother()
    private var clock: LegacySolutionClock

    init(options: PoseLandmarkerOptions, solution: LegacyPoseSolution, resources: TaskResources) throws {
        guard options.numPoses == 1 else {
            throw TaskError.invalidOption(name: "numPoses", expected: "1 with legacySolution (the legacy graph tracks one person)",
                                          actual: "\(options.numPoses)")
        }
        guard options.accurateMode == nil else {
            throw TaskError.invalidOption(name: "accurateMode", expected: "nil with legacySolution (one graph or the other)",
                                          actual: "an accurate mode")
        }
        workers = resources.workers
        detector = try PoseDetectorStage(model: resources.model("detector"), workers: workers, planning: resources.planning)
        detector.nmsThreshold = Self.nmsThreshold
        segmentation = options.shouldOutputSegmentationMasks
        landmarkStage = try PoseLandmarkStage(model: resources.model("landmarks"), workers: workers, segmentation: segmentation,
                                              planning: resources.planning)
        landmarkStage.keepsAspectRatio = true
        landmarkStage.decoder.heatmapKernelSize = Self.heatmapKernelSize
        let video = options.runningMode != .image
        tracker = LegacyPoseTracker(smoothsLandmarks: solution.smoothLandmarks && video)
        smoothsSegmentation = solution.smoothSegmentation && video
        clock = LegacySolutionClock(usesSolutionClock: solution.usesSolutionClock)
        detection = (options.minPoseDetectionConfidence, 1)
        presenceThreshold = options.minPosePresenceConfidence
    }

    func landmarks(in image: Image, regions: [NormalizedRect], timestamp: Int, tracking: Bool) throws -> PoseLandmarkerResult {
        var pose: PoseTracker.Pose?
        var mask: [Float]?
        if let roi = regions.first,
           let found = try landmarkStage.landmarks(in: image, roi: roi, presenceThreshold: presenceThreshold, segmentation: segmentation) {
            pose = PoseTracker.Pose(landmarks: found.decoding.landmarks, worldLandmarks: found.decoding.worldLandmarks,
                                    auxiliaryLandmarks: found.decoding.auxiliaryLandmarks)
            mask = found.mask
        }
        if tracking {
            pose = tracker.finishFrame(pose, imageWidth: image.width, imageHeight: image.height,
                                       timestampNanoseconds: clock.next(milliseconds: timestamp))
            if smoothsSegmentation, let m = mask { mask = maskSmoother.smooth(m, width: image.width, height: image.height) }
        }
        var result = PoseLandmarkerResult(timestampInMilliseconds: timestamp)
        if let pose {
            result.landmarks = [pose.landmarks]
            result.worldLandmarks = [pose.worldLandmarks]
        }
        if let mask { result.segmentationMasks = [Mask(width: image.width, height: image.height, float32Data: mask)] }
        return result
    }

    func resetTracking() {
        tracker.reset()
        maskSmoother.reset()
    }
}

/// The legacy hand graph behind `mp.solutions.hands` (``LegacyHandSolution``): palms mapped back by letterbox
/// removal and turned into regions with a 90° target angle, the legacy association, no deduplication, and
/// the legacy handedness labels.
final class LegacyHandPipeline: LandmarkPipeline {
    typealias Result = HandLandmarkerResult
    let detector: PalmDetectorStage
    var tracker: LegacyHandTracker
    let detection: (minScore: Float, maxCount: Int)
    let workers: WorkerPool
    private let landmarkStage: HandLandmarkStage
    private let presenceThreshold: Float

    init(options: HandLandmarkerOptions, resources: TaskResources) throws {
        guard options.accurateMode == nil else {
            throw TaskError.invalidOption(name: "accurateMode", expected: "nil with legacySolution (one graph or the other)",
                                          actual: "an accurate mode")
        }
        workers = resources.workers
        detector = try PalmDetectorStage(model: resources.model("detector"), workers: workers, planning: resources.planning)
        detector.rectConversion = .palmDetectionLegacy
        detector.removesLetterbox = true
        landmarkStage = try HandLandmarkStage(model: resources.model("landmarks"), workers: workers, planning: resources.planning)
        landmarkStage.keepsAspectRatio = true
        tracker = LegacyHandTracker(numHands: options.numHands)
        detection = (options.minHandDetectionConfidence, options.numHands)
        presenceThreshold = options.minHandPresenceConfidence
    }

    func landmarks(in image: Image, regions: [NormalizedRect], timestamp: Int, tracking: Bool) throws -> HandLandmarkerResult {
        var hands: [HandLandmarkDecoding] = []
        for roi in regions {
            if let hand = try landmarkStage.landmarks(in: image, roi: roi, presenceThreshold: presenceThreshold) { hands.append(hand) }
        }
        if tracking { tracker.finishFrame(hands: hands.map(\.landmarks), imageWidth: image.width, imageHeight: image.height) }
        var result = HandLandmarkerResult(timestampInMilliseconds: timestamp)
        for hand in hands {
            result.handedness.append([ResultCategory(hand.handedness.legacyLabeled)])
            result.landmarks.append(hand.landmarks.map { var l = $0; l.presence = hand.presenceScore; return l })
            result.worldLandmarks.append(hand.worldLandmarks)
        }
        return result
    }
}
