import BlazeConverter
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
        let models = try PoseModelLocator.locate(options: options)
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

/// Resolves `PoseLandmarkerOptions` to the two model files.
enum PoseModelLocator {
    static func locate(options: PoseLandmarkerOptions) throws -> (detector: ModelFile, landmarks: ModelFile) {
        let landmarkName: BuiltinModel = options.model == .full ? .poseLandmarkFull : .poseLandmarkLite
        guard let path = options.baseOptions.modelAssetPath else {
            return (try BuiltinModel.poseDetection.load(), try landmarkName.load())
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw TaskError.modelNotFound(path: path, reason: "no such file or directory")
        }
        if isDirectory.boolValue {
            let dir = URL(fileURLWithPath: path)
            let detector = dir.appendingPathComponent(BuiltinModel.poseDetection.fileName).path
            let landmarks = dir.appendingPathComponent(landmarkName.fileName).path
            for p in [detector, landmarks] where !FileManager.default.fileExists(atPath: p) {
                throw TaskError.modelNotFound(path: path, reason: "the directory has no \(URL(fileURLWithPath: p).lastPathComponent)")
            }
            return (try ModelFile(path: detector), try ModelFile(path: landmarks))
        }
        if path.lowercased().hasSuffix(".task") {
            return (try TaskBundleModels.convert(path, entry: "pose_detector"),
                    try TaskBundleModels.convert(path, entry: "pose_landmarks_detector"))
        }
        // A single converted file is the landmark network; the detector is the built-in one.
        return (try BuiltinModel.poseDetection.load(), try ModelFile(path: path))
    }
}

/// Reads an official MediaPipe Tasks `.task` bundle (a zip of `.tflite` files) by converting the
/// named entry in memory with the same converter as `blaze-convert`.
enum TaskBundleModels {
    static func convert(_ path: String, entry: String) throws -> ModelFile {
        let bundle: TaskBundle
        do {
            bundle = try TaskBundle(url: URL(fileURLWithPath: path))
        } catch {
            throw TaskError.modelNotFound(path: path, reason: "not a readable .task bundle: \(error)")
        }
        guard let found = try? bundle.select(entry).first else {
            throw TaskError.modelNotFound(path: path,
                reason: "the bundle has no \(entry).tflite; it holds \(bundle.entries.map(\.path).joined(separator: ", "))")
        }
        let converted = try ModelConverter.convert(ConversionRequest(
            tflite: found.bytes, sourceFile: found.path, name: entry,
            properties: ["task.bundle": URL(fileURLWithPath: path).lastPathComponent, "task.entry": found.path]))
        return try ModelFile(bytes: converted.serialized(), name: "\(path):\(found.path)")
    }
}
