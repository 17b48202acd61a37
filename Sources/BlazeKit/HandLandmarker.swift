import BlazeImage
import BlazeModelFormat
import BlazeRuntime
import BlazeStages
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

    /// The MediaPipe defaults: built-in full models, image mode, one hand, confidences 0.5.
    public init() {}

    /// Throws ``TaskError/invalidOption(name:expected:actual:)`` for the first out-of-range option.
    public func validate() throws {
        guard numHands > 0 else { throw TaskError.invalidOption(name: "numHands", expected: "> 0", actual: "\(numHands)") }
        try TaskOptionChecks.confidences([("minHandDetectionConfidence", minHandDetectionConfidence),
                                          ("minHandPresenceConfidence", minHandPresenceConfidence),
                                          ("minTrackingConfidence", minTrackingConfidence)])
        try TaskOptionChecks.threadCount(baseOptions)
    }
}

/// What ``HandLandmarker`` finds in one image (MediaPipe Tasks' `HandLandmarkerResult`).
public struct HandLandmarkerResult: Sendable, Codable, Equatable {
    /// Per hand, its handedness as one category ("Left" or "Right", index 0 = Right, 1 = Left).
    public var handedness: [[ResultCategory]]
    /// Per hand, 21 landmarks: x, y normalized to the image, z relative to the wrist on about x's scale.
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

/// Finds hands in images and returns MediaPipe's 21 hand landmarks, world landmarks and handedness
/// — the Swift counterpart of MediaPipe Tasks' `HandLandmarker`, with the same networks and numbers.
///
/// An instance owns its planned networks and buffers. Calls are serialized; instances are
/// independent and run concurrently.
public final class HandLandmarker: @unchecked Sendable {
    /// The validated options the landmarker was created with.
    public let options: HandLandmarkerOptions
    private let detector: PalmDetectorStage
    private let landmarkStage: HandLandmarkStage
    private let lock = NSLock()

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
        let threads = options.baseOptions.threadCount
        detector = try PalmDetectorStage(model: models.detector, threadCount: threads)
        landmarkStage = try HandLandmarkStage(model: models.landmarks, threadCount: threads)
    }

    /// Detects hands in a photo (running mode `.image`).
    public func detect(image: Image) throws -> HandLandmarkerResult {
        guard options.runningMode == .image else {
            throw TaskError.runningModeMismatch(method: "detect(image:)", expected: .image, actual: options.runningMode)
        }
        lock.lock()
        defer { lock.unlock() }
        return try process(image, timestamp: 0)
    }

    private func process(_ image: Image, timestamp: Int) throws -> HandLandmarkerResult {
        let rect = try DetectorInputRect.forOrientation(image.orientation, imageWidth: image.width, imageHeight: image.height)
        let detections = try detector.detect(in: image, rect: rect, minScore: options.minHandDetectionConfidence)
        let regions = detector.regionsOfInterest(for: Array(detections.prefix(options.numHands)),
                                                 imageWidth: image.width, imageHeight: image.height)
        var hands: [HandLandmarkDecoding] = []
        for roi in regions {
            if let hand = try landmarkStage.landmarks(in: image, roi: roi, presenceThreshold: options.minHandPresenceConfidence) {
                hands.append(hand)
            }
        }
        hands = HandDeduplication.deduplicate(hands, imageWidth: image.width, imageHeight: image.height) { $0.landmarks }
        var result = HandLandmarkerResult(timestampInMilliseconds: timestamp)
        for hand in hands {
            result.handedness.append([hand.handedness])
            result.landmarks.append(hand.landmarks)
            result.worldLandmarks.append(hand.worldLandmarks)
        }
        return result
    }
}
