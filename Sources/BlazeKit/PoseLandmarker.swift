import BlazeImage
import BlazeModelFormat
import BlazeRuntime
import BlazeStages
import BlazeTracking
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

/// Receives the results of ``PoseLandmarker/detectAsync(image:timestampInMilliseconds:)`` (MediaPipe Tasks'
/// `PoseLandmarkerLiveStreamDelegate`). Called on the landmarker's own serial queue, in timestamp order,
/// once per processed frame: `result` is empty when nobody was found, nil when `error` is set. Frames
/// dropped because a newer one arrived get no call.
public protocol PoseLandmarkerLiveStreamDelegate: AnyObject, Sendable {
    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?)
}

/// Finds people in images and returns MediaPipe's 33 body landmarks, world landmarks and
/// optional person masks — the Swift counterpart of MediaPipe Tasks' `PoseLandmarker`, with the
/// same networks, steps and numbers.
///
/// Running modes:
/// - `.image`: ``detect(image:)``; the detector runs on every photo, nothing is remembered.
/// - `.video`: ``detect(videoFrame:timestampInMilliseconds:)`` with strictly increasing timestamps; poses
///   are tracked from frame to frame (the detector runs only when fewer than `numPoses` are tracked) and a
///   single pose is smoothed.
/// - `.liveStream`: ``detectAsync(image:timestampInMilliseconds:)`` returns at once; results go to
///   `options.poseLandmarkerLiveStreamDelegate`. While a frame is processed, a newer frame replaces the
///   one waiting, which is dropped.
///
/// An instance is one stream: it owns its networks, buffers and tracking state. Calls are serialized;
/// instances are independent and run concurrently.
public final class PoseLandmarker: @unchecked Sendable {
    /// The validated options the landmarker was created with.
    public let options: PoseLandmarkerOptions
    private let pipeline: PosePipeline
    private let timestamps = TimestampGate()
    private var liveStream: LiveStreamScheduler?

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
        pipeline = try PosePipeline(options: options, detector: models.detector, landmarks: models.landmarks)
        if options.runningMode == .liveStream {
            let pipeline = self.pipeline
            let landmarker = WeakReference(self)
            let delegate = WeakReference<AnyObject>(options.poseLandmarkerLiveStreamDelegate)
            liveStream = LiveStreamScheduler(label: "BlazeKit.PoseLandmarker") { frame, callbackQueue in
                let outcome = Result { try pipeline.process(frame.image, timestamp: frame.timestamp, tracking: true) }
                callbackQueue.async {
                    guard let landmarker = landmarker.value,
                          let delegate = delegate.value as? any PoseLandmarkerLiveStreamDelegate else { return }
                    delegate.poseLandmarker(landmarker, didFinishDetection: try? outcome.get(),
                                            timestampInMilliseconds: frame.timestamp, error: outcome.failureError)
                }
            }
        }
    }

    deinit { liveStream?.close() }

    /// Detects poses in a photo (running mode `.image`).
    public func detect(image: Image) throws -> PoseLandmarkerResult {
        try TaskOptionChecks.mode(options.runningMode, .image, method: "detect(image:)")
        return try pipeline.process(image, timestamp: 0, tracking: false)
    }

    /// Detects poses in the next frame of a video (running mode `.video`), tracking them from the
    /// previous frame. Timestamps must increase strictly.
    public func detect(videoFrame image: Image, timestampInMilliseconds: Int) throws -> PoseLandmarkerResult {
        let method = "detect(videoFrame:timestampInMilliseconds:)"
        try TaskOptionChecks.mode(options.runningMode, .video, method: method)
        try timestamps.accept(timestampInMilliseconds, method: method)
        return try pipeline.process(image, timestamp: timestampInMilliseconds, tracking: true)
    }

    /// Queues a camera frame (running mode `.liveStream`) and returns at once; the result goes to
    /// `options.poseLandmarkerLiveStreamDelegate`. Timestamps must increase strictly.
    public func detectAsync(image: Image, timestampInMilliseconds: Int) throws {
        let method = "detectAsync(image:timestampInMilliseconds:)"
        try TaskOptionChecks.mode(options.runningMode, .liveStream, method: method)
        try timestamps.accept(timestampInMilliseconds, method: method)
        liveStream?.submit(.init(image: image, timestamp: timestampInMilliseconds))
    }

    /// How many frames ran the pose detector, of how many processed (video and live stream).
    public var trackingStatistics: (frames: Int, detectorRuns: Int) { pipeline.statistics }

    /// Forgets the tracked poses and the smoothing state, so the next frame starts a new stream
    /// (timestamps must still increase).
    public func resetTracking() { pipeline.resetTracking() }
}

/// The networks and tracking state behind a ``PoseLandmarker``; calls are serialized by a lock.
final class PosePipeline: @unchecked Sendable {
    private let options: PoseLandmarkerOptions
    private let detector: PoseDetectorStage
    private let landmarkStage: PoseLandmarkStage
    private var tracker: PoseTracker
    private let lock = NSLock()

    init(options: PoseLandmarkerOptions, detector: ModelFile, landmarks: ModelFile) throws {
        self.options = options
        let threads = options.baseOptions.threadCount
        self.detector = try PoseDetectorStage(model: detector, threadCount: threads)
        landmarkStage = try PoseLandmarkStage(model: landmarks, threadCount: threads, segmentation: options.outputSegmentationMasks)
        tracker = PoseTracker(numPoses: options.numPoses, minTrackingConfidence: options.minTrackingConfidence)
    }

    var statistics: (frames: Int, detectorRuns: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (tracker.frameCount, tracker.detectorRunCount)
    }

    func resetTracking() {
        lock.lock()
        tracker.reset()
        lock.unlock()
    }

    func process(_ input: Image, timestamp: Int, tracking: Bool) throws -> PoseLandmarkerResult {
        let image = try TaskOptionChecks.displayed(input)
        lock.lock()
        defer { lock.unlock() }
        let rect = NormalizedRect.fullImage
        let detect = { [self] () throws -> [NormalizedRect] in
            let detections = try detector.detect(in: image, rect: rect, minScore: options.minPoseDetectionConfidence)
            return detector.regionsOfInterest(for: Array(detections.prefix(options.numPoses)),
                                              imageWidth: image.width, imageHeight: image.height)
        }
        let regions = tracking ? try tracker.regionsOfInterest(detect: detect) : try detect()
        var poses: [PoseTracker.Pose] = []
        var result = PoseLandmarkerResult(timestampInMilliseconds: timestamp)
        for roi in regions {
            guard let pose = try landmarkStage.landmarks(in: image, roi: roi, presenceThreshold: options.minPosePresenceConfidence,
                                                         segmentation: options.outputSegmentationMasks) else { continue }
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
