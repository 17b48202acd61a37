import BlazeImage
import BlazeModelFormat
import BlazeRuntime
import BlazeStages
import Foundation

/// A float mask of an image's size, values in [0, 1] (MediaPipe Tasks' `MPMask` with float32 data).
public struct Mask: Sendable, Codable, Equatable {
    /// Mask width in pixels (the image's width).
    public var width: Int
    /// Mask height in pixels (the image's height).
    public var height: Int
    /// Row-major values, `width·height` of them.
    public var float32Data: [Float]

    /// A mask of `width × height` values.
    public init(width: Int, height: Int, float32Data: [Float]) {
        self.width = width
        self.height = height
        self.float32Data = float32Data
    }
}

/// What ``PoseLandmarker`` finds in one image (MediaPipe Tasks' `PoseLandmarkerResult`).
public struct PoseLandmarkerResult: Sendable, Codable, Equatable {
    /// Per pose, 33 landmarks: x, y normalized to the image, z on roughly the scale of x with the
    /// hips' midpoint as origin (smaller is closer), visibility and presence in [0, 1].
    public var landmarks: [[NormalizedLandmark]]
    /// Per pose, 33 landmarks in metres, origin between the hips.
    public var worldLandmarks: [[Landmark]]
    /// Per pose, the person mask at the image's size (empty unless `outputSegmentationMasks`).
    public var segmentationMasks: [Mask]
    /// The frame's timestamp (0 in image mode).
    public var timestampInMilliseconds: Int

    /// A result; the parallel arrays hold one entry per pose.
    public init(landmarks: [[NormalizedLandmark]] = [], worldLandmarks: [[Landmark]] = [], segmentationMasks: [Mask] = [],
                timestampInMilliseconds: Int = 0) {
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.segmentationMasks = segmentationMasks
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}

/// Finds people in images and returns MediaPipe's 33 body landmarks, world landmarks and
/// optional person masks — the Swift counterpart of MediaPipe Tasks' `PoseLandmarker`, with the
/// same networks, steps and numbers.
///
/// An instance owns its planned networks and buffers. Calls are serialized, so share one instance
/// per stream or per thread; instances are independent and run concurrently.
public final class PoseLandmarker: @unchecked Sendable {
    /// The validated options the landmarker was created with.
    public let options: PoseLandmarkerOptions
    private let detector: PoseDetectorStage
    private let landmarkStage: PoseLandmarkStage
    private let lock = NSLock()

    /// A pose landmarker for the converted landmark model at `modelPath`, with default options.
    public convenience init(modelPath: String) throws {
        var options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// Validates `options`, loads the models and plans both networks.
    public init(options: PoseLandmarkerOptions) throws {
        try options.validate()
        self.options = options
        let models = try TaskModelLocator.locate(
            path: options.baseOptions.modelAssetPath, detector: .poseDetection,
            landmarks: options.model == .full ? .poseLandmarkFull : .poseLandmarkLite,
            bundleEntries: (detector: "pose_detector", landmarks: "pose_landmarks_detector"))
        let threads = options.baseOptions.threadCount
        detector = try PoseDetectorStage(model: models.detector, threadCount: threads)
        landmarkStage = try PoseLandmarkStage(model: models.landmarks, threadCount: threads)
    }

    /// Detects poses in a photo (running mode `.image`).
    public func detect(image: Image) throws -> PoseLandmarkerResult {
        guard options.runningMode == .image else {
            throw TaskError.runningModeMismatch(method: "detect(image:)", expected: .image, actual: options.runningMode)
        }
        lock.lock()
        defer { lock.unlock() }
        return try process(image, timestamp: 0)
    }

    private func process(_ image: Image, timestamp: Int) throws -> PoseLandmarkerResult {
        let rect = try DetectorInputRect.forOrientation(image.orientation, imageWidth: image.width, imageHeight: image.height)
        let detections = try detector.detect(in: image, rect: rect, minScore: options.minPoseDetectionConfidence)
        let regions = detector.regionsOfInterest(for: detections, imageWidth: image.width, imageHeight: image.height)
        var result = PoseLandmarkerResult(timestampInMilliseconds: timestamp)
        for roi in regions.prefix(options.numPoses) {
            guard let pose = try landmarkStage.landmarks(in: image, roi: roi, presenceThreshold: options.minPosePresenceConfidence,
                                                         segmentation: options.outputSegmentationMasks) else { continue }
            result.landmarks.append(pose.decoding.landmarks)
            result.worldLandmarks.append(pose.decoding.worldLandmarks)
            if let mask = pose.mask { result.segmentationMasks.append(Mask(width: image.width, height: image.height, float32Data: mask)) }
        }
        return result
    }
}
