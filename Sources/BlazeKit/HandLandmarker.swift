import BlazeImage
import BlazeModelFormat
import BlazeRuntime
import BlazeStages
import BlazeTracking
import Foundation

/// A classification result, as MediaPipe Tasks' `ResultCategory` (index, score, categoryName,
/// displayName); for hands, the handedness.
public typealias ResultCategory = HandednessCategory

/// Which built-in palm and hand landmark networks to use.
public enum HandLandmarkerModel: String, Sendable, Codable, CaseIterable {
    /// `palm_detection_full` + `hand_landmark_full`.
    case full
    /// `palm_detection_lite` + `hand_landmark_lite`.
    case lite
}

/// Options of a ``HandLandmarker``, with MediaPipe Tasks' names and defaults
/// (`mediapipe/tasks/cc/vision/hand_landmarker/hand_landmarker.h`).
public struct HandLandmarkerOptions: Sendable, Equatable {
    /// Model location and thread count.
    public var baseOptions = BaseOptions()
    /// The built-in networks, used when `baseOptions.modelAssetPath` is nil.
    public var model: HandLandmarkerModel = .full
    /// How images arrive; `detect(image:)` needs `.image`.
    public var runningMode: RunningMode = .image
    /// The most hands to return (> 0).
    public var numHands = 1
    /// Minimum palm detector score, in [0, 1].
    public var minHandDetectionConfidence: Float = 0.5
    /// Minimum hand presence score of the landmark network, in [0, 1].
    public var minHandPresenceConfidence: Float = 0.5
    /// Minimum tracking IoU between frames, in [0, 1] (video and live stream).
    public var minTrackingConfidence: Float = 0.5
    /// Receives live-stream results (held weakly). Required in `.liveStream` mode, refused in the others,
    /// as in MediaPipe Tasks for iOS.
    public weak var handLandmarkerLiveStreamDelegate: (any HandLandmarkerLiveStreamDelegate)?

    /// The MediaPipe defaults: built-in full models, image mode, one hand, confidences 0.5.
    public init() {}

    public static func == (a: Self, b: Self) -> Bool {
        a.baseOptions == b.baseOptions && a.model == b.model && a.runningMode == b.runningMode && a.numHands == b.numHands
            && a.minHandDetectionConfidence == b.minHandDetectionConfidence
            && a.minHandPresenceConfidence == b.minHandPresenceConfidence
            && a.minTrackingConfidence == b.minTrackingConfidence
            && a.handLandmarkerLiveStreamDelegate === b.handLandmarkerLiveStreamDelegate
    }

    /// Throws ``TaskError/invalidOption(name:expected:actual:)`` for the first out-of-range option.
    public func validate() throws {
        guard numHands > 0 else { throw TaskError.invalidOption(name: "numHands", expected: "> 0", actual: "\(numHands)") }
        try TaskOptionChecks.confidences([("minHandDetectionConfidence", minHandDetectionConfidence),
                                          ("minHandPresenceConfidence", minHandPresenceConfidence),
                                          ("minTrackingConfidence", minTrackingConfidence)])
        try TaskOptionChecks.threadCount(baseOptions)
        try TaskOptionChecks.delegate(present: handLandmarkerLiveStreamDelegate != nil,
                                      name: "handLandmarkerLiveStreamDelegate", runningMode: runningMode)
    }
}

/// What ``HandLandmarker`` finds in one image (MediaPipe Tasks' `HandLandmarkerResult`).
public struct HandLandmarkerResult: Sendable, Codable, Equatable {
    /// Per hand, its handedness as one category ("Left" or "Right", index 0 = Right, 1 = Left).
    public var handedness: [[ResultCategory]]
    /// Per hand, 21 landmarks: x, y normalized to the image, z relative to the wrist on about x's scale.
    /// `presence` holds the hand's presence score from the landmark network (MediaPipe leaves it unset).
    public var landmarks: [[NormalizedLandmark]]
    /// Per hand, 21 landmarks in metres around the hand's centre.
    public var worldLandmarks: [[Landmark]]
    /// The frame's timestamp (0 in image mode).
    public var timestampInMilliseconds: Int

    /// A result; the parallel arrays hold one entry per hand.
    public init(handedness: [[ResultCategory]] = [], landmarks: [[NormalizedLandmark]] = [], worldLandmarks: [[Landmark]] = [],
                timestampInMilliseconds: Int = 0) {
        self.handedness = handedness
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}

/// Receives the results of ``HandLandmarker/detectAsync(image:timestampInMilliseconds:)`` (MediaPipe Tasks'
/// `HandLandmarkerLiveStreamDelegate`). Called on the landmarker's own serial queue, in timestamp order,
/// once per processed frame: `result` is empty when no hand was found, nil when `error` is set. Frames
/// dropped because a newer one arrived get no call.
public protocol HandLandmarkerLiveStreamDelegate: AnyObject, Sendable {
    func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?)
}

/// Finds hands in images and returns MediaPipe's 21 hand landmarks, world landmarks and handedness
/// — the Swift counterpart of MediaPipe Tasks' `HandLandmarker`, with the same networks and numbers.
///
/// Running modes:
/// - `.image`: ``detect(image:)``; the palm detector runs on every photo.
/// - `.video`: ``detect(videoFrame:timestampInMilliseconds:)`` with strictly increasing timestamps; hands
///   are tracked from frame to frame and the palm detector runs only when fewer than `numHands` are tracked.
/// - `.liveStream`: ``detectAsync(image:timestampInMilliseconds:)`` returns at once; results go to
///   `options.handLandmarkerLiveStreamDelegate`; a newer frame replaces the one waiting.
///
/// An instance is one stream: it owns its networks, buffers and tracking state. Calls are serialized;
/// instances are independent and run concurrently.
public final class HandLandmarker: @unchecked Sendable {
    /// The validated options the landmarker was created with.
    public let options: HandLandmarkerOptions
    private let pipeline: HandPipeline
    private let timestamps = TimestampGate()
    private var liveStream: LiveStreamScheduler?

    /// A hand landmarker for the models at `modelPath` (a directory of converted models or an
    /// official `hand_landmarker.task` bundle), with default options.
    public convenience init(modelPath: String) throws {
        var options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// Validates `options`, loads the models and plans both networks.
    public init(options: HandLandmarkerOptions) throws {
        try options.validate()
        self.options = options
        let models = try TaskModelLocator.locate(
            path: options.baseOptions.modelAssetPath,
            detector: options.model == .full ? .palmDetectionFull : .palmDetectionLite,
            landmarks: options.model == .full ? .handLandmarkFull : .handLandmarkLite,
            bundleEntries: (detector: "hand_detector", landmarks: "hand_landmarks_detector"))
        pipeline = try HandPipeline(options: options, detector: models.detector, landmarks: models.landmarks)
        if options.runningMode == .liveStream {
            let pipeline = self.pipeline
            let landmarker = WeakReference(self)
            let delegate = WeakReference<AnyObject>(options.handLandmarkerLiveStreamDelegate)
            liveStream = LiveStreamScheduler(label: "BlazeKit.HandLandmarker") { frame, callbackQueue in
                let outcome = Result { try pipeline.process(frame.image, timestamp: frame.timestamp, tracking: true) }
                callbackQueue.async {
                    guard let landmarker = landmarker.value,
                          let delegate = delegate.value as? any HandLandmarkerLiveStreamDelegate else { return }
                    delegate.handLandmarker(landmarker, didFinishDetection: try? outcome.get(),
                                            timestampInMilliseconds: frame.timestamp, error: outcome.failureError)
                }
            }
        }
    }

    deinit { liveStream?.close() }

    /// Detects hands in a photo (running mode `.image`).
    public func detect(image: Image) throws -> HandLandmarkerResult {
        try TaskOptionChecks.mode(options.runningMode, .image, method: "detect(image:)")
        return try pipeline.process(image, timestamp: 0, tracking: false)
    }

    /// Detects hands in the next frame of a video (running mode `.video`), tracking them from the previous
    /// frame. Timestamps must increase strictly.
    public func detect(videoFrame image: Image, timestampInMilliseconds: Int) throws -> HandLandmarkerResult {
        let method = "detect(videoFrame:timestampInMilliseconds:)"
        try TaskOptionChecks.mode(options.runningMode, .video, method: method)
        try timestamps.accept(timestampInMilliseconds, method: method)
        return try pipeline.process(image, timestamp: timestampInMilliseconds, tracking: true)
    }

    /// Queues a camera frame (running mode `.liveStream`) and returns at once; the result goes to
    /// `options.handLandmarkerLiveStreamDelegate`. Timestamps must increase strictly.
    public func detectAsync(image: Image, timestampInMilliseconds: Int) throws {
        let method = "detectAsync(image:timestampInMilliseconds:)"
        try TaskOptionChecks.mode(options.runningMode, .liveStream, method: method)
        try timestamps.accept(timestampInMilliseconds, method: method)
        liveStream?.submit(.init(image: image, timestamp: timestampInMilliseconds))
    }

    /// How many frames ran the palm detector, of how many processed (video and live stream).
    public var trackingStatistics: (frames: Int, detectorRuns: Int) { pipeline.statistics }

    /// Forgets the tracked hands, so the next frame starts a new stream (timestamps must still increase).
    public func resetTracking() { pipeline.resetTracking() }
}

/// The networks and tracking state behind a ``HandLandmarker``; calls are serialized by a lock.
final class HandPipeline: @unchecked Sendable {
    private let options: HandLandmarkerOptions
    private let detector: PalmDetectorStage
    private let landmarkStage: HandLandmarkStage
    private var tracker: HandTracker
    private let lock = NSLock()

    init(options: HandLandmarkerOptions, detector: ModelFile, landmarks: ModelFile) throws {
        self.options = options
        let threads = options.baseOptions.threadCount
        self.detector = try PalmDetectorStage(model: detector, threadCount: threads)
        landmarkStage = try HandLandmarkStage(model: landmarks, threadCount: threads)
        tracker = HandTracker(numHands: options.numHands, minTrackingConfidence: options.minTrackingConfidence)
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

    func process(_ input: Image, timestamp: Int, tracking: Bool) throws -> HandLandmarkerResult {
        let image = try TaskOptionChecks.displayed(input)
        lock.lock()
        defer { lock.unlock() }
        let rect = NormalizedRect.fullImage
        let detect = { [self] () throws -> [NormalizedRect] in
            let detections = try detector.detect(in: image, rect: rect, minScore: options.minHandDetectionConfidence)
            return detector.regionsOfInterest(for: Array(detections.prefix(options.numHands)),
                                              imageWidth: image.width, imageHeight: image.height)
        }
        let regions = tracking ? try tracker.regionsOfInterest(detect: detect) : try detect()
        var hands: [HandLandmarkDecoding] = []
        for roi in regions {
            if let hand = try landmarkStage.landmarks(in: image, roi: roi, presenceThreshold: options.minHandPresenceConfidence) {
                hands.append(hand)
            }
        }
        let kept: [Int]
        if tracking {
            kept = tracker.finishFrame(hands: hands.map(\.landmarks), imageWidth: image.width, imageHeight: image.height)
        } else {
            kept = HandDeduplication.retainedIndices(of: hands.map(\.landmarks), imageWidth: image.width, imageHeight: image.height)
        }
        var result = HandLandmarkerResult(timestampInMilliseconds: timestamp)
        for hand in kept.map({ hands[$0] }) {
            result.handedness.append([hand.handedness])
            result.landmarks.append(hand.landmarks.map { var l = $0; l.presence = hand.presenceScore; return l })
            result.worldLandmarks.append(hand.worldLandmarks)
        }
        return result
    }
}
