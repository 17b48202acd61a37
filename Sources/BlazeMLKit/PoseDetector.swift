import BlazeKit
import Foundation

/// The 33 body landmarks of ML Kit Pose Detection (`MLKPoseLandmarkType`), in BlazePose order.
public enum PoseLandmarkType: String, CaseIterable, Sendable, Codable, Hashable {
    case nose = "Nose"
    case leftEyeInner = "LeftEyeInner", leftEye = "LeftEye", leftEyeOuter = "LeftEyeOuter"
    case rightEyeInner = "RightEyeInner", rightEye = "RightEye", rightEyeOuter = "RightEyeOuter"
    case leftEar = "LeftEar", rightEar = "RightEar"
    case mouthLeft = "MouthLeft", mouthRight = "MouthRight"
    case leftShoulder = "LeftShoulder", rightShoulder = "RightShoulder"
    case leftElbow = "LeftElbow", rightElbow = "RightElbow"
    case leftWrist = "LeftWrist", rightWrist = "RightWrist"
    case leftPinkyFinger = "LeftPinkyFinger", rightPinkyFinger = "RightPinkyFinger"
    case leftIndexFinger = "LeftIndexFinger", rightIndexFinger = "RightIndexFinger"
    case leftThumb = "LeftThumb", rightThumb = "RightThumb"
    case leftHip = "LeftHip", rightHip = "RightHip"
    case leftKnee = "LeftKnee", rightKnee = "RightKnee"
    case leftAnkle = "LeftAnkle", rightAnkle = "RightAnkle"
    case leftHeel = "LeftHeel", rightHeel = "RightHeel"
    case leftToe = "LeftToe", rightToe = "RightToe"

    /// The BlazePose landmark this type names (same index).
    public var blazePoseLandmark: PoseLandmarkName { PoseLandmarkName(rawValue: Self.allCases.firstIndex(of: self)!)! }
}

/// A point in image pixels with depth (ML Kit's `Vision3DPoint`).
public struct Vision3DPoint: Sendable, Codable, Equatable, Hashable {
    public var x: CGFloat
    public var y: CGFloat
    /// Depth on the scale of `x`, with the hips' midpoint at 0; smaller is closer to the camera.
    public var z: CGFloat

    public init(x: CGFloat, y: CGFloat, z: CGFloat) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// One body landmark (ML Kit's `PoseLandmark`).
public struct PoseLandmark: Sendable, Codable, Equatable {
    public var type: PoseLandmarkType
    /// Pixels of the upright image (after applying `VisionImage.orientation`); may lie outside it.
    public var position: Vision3DPoint
    /// How likely the landmark is inside the image, in [0, 1] (BlazePose's presence output).
    public var inFrameLikelihood: Float

    public init(type: PoseLandmarkType, position: Vision3DPoint, inFrameLikelihood: Float) {
        self.type = type
        self.position = position
        self.inFrameLikelihood = inFrameLikelihood
    }
}

/// One detected person (ML Kit's `Pose`).
public struct Pose: Sendable, Codable, Equatable {
    /// All 33 landmarks, in `PoseLandmarkType.allCases` order.
    public var landmarks: [PoseLandmark]

    public init(landmarks: [PoseLandmark]) { self.landmarks = landmarks }

    /// The landmark of `type`.
    public func landmark(ofType type: PoseLandmarkType) -> PoseLandmark {
        landmarks.first { $0.type == type } ?? PoseLandmark(type: type, position: Vision3DPoint(x: 0, y: 0, z: 0), inFrameLikelihood: 0)
    }
}

/// An image for ML Kit (`VisionImage`, a class as in ML Kit): BlazeKit's `Image` plus how it is to be
/// displayed. Unlike MediaPipe, ML Kit accepts the mirrored orientations too.
public final class VisionImage: @unchecked Sendable {
    public let image: Image
    /// How the stored pixels are to be turned for display (`UIImage.Orientation`); results are in the
    /// coordinates of the image as displayed. Starts as the image's own orientation.
    public var orientation: ImageOrientation

    public init(image: Image) {
        self.image = image
        orientation = image.orientation
    }
}

/// `PoseDetectorMode`: how images arrive.
public enum PoseDetectorMode: Sendable, Equatable {
    /// Frames of one stream: the most prominent person is tracked and detection is skipped while tracked.
    case stream
    /// Unrelated photos: detection runs on every image.
    case singleImage
}

/// Options shared by both detectors (`CommonPoseDetectorOptions`).
public class CommonPoseDetectorOptions: @unchecked Sendable {
    /// `.stream` by default, as in ML Kit.
    public var detectorMode: PoseDetectorMode = .stream
    /// Threads per inference (not in ML Kit, which picks for itself; BlazeKit has no hidden globals).
    public var threadCount = 1
    var landmarkModel: PoseLandmarkerModel { .lite }

    public init() {}
}

/// The base pose detector: the fast model (BlazePose lite).
public final class PoseDetectorOptions: CommonPoseDetectorOptions, @unchecked Sendable {}

/// The accurate pose detector: the larger model (BlazePose full).
public final class AccuratePoseDetectorOptions: CommonPoseDetectorOptions, @unchecked Sendable {
    override var landmarkModel: PoseLandmarkerModel { .full }
}

/// ML Kit's `PoseDetector` on BlazeKit's `PoseLandmarker`: at most one pose (the most prominent person),
/// positions in pixels of the upright image.
///
/// `.singleImage` runs the landmarker in image mode; `.stream` runs it in video mode with the time of each
/// call as its timestamp, so the person is tracked and smoothed between calls. Use one detector per stream.
public final class PoseDetector: @unchecked Sendable {
    public let mode: PoseDetectorMode
    private let loaded: Result<PoseLandmarker, any Error>
    private let clockStart = DispatchTime.now().uptimeNanoseconds
    private var lastTimestamp = -1
    private let lock = NSLock()
    private let completionQueue = DispatchQueue(label: "BlazeMLKit.PoseDetector")

    private init(options: CommonPoseDetectorOptions) {
        var o = PoseLandmarkerOptions()
        o.model = options.landmarkModel
        o.numPoses = 1
        o.runningMode = options.detectorMode == .stream ? .video : .image
        o.baseOptions.threadCount = options.threadCount
        mode = options.detectorMode
        loaded = Result { try PoseLandmarker(options: o) }
    }

    /// A detector for `options` (ML Kit: `PoseDetector.poseDetector(options:)`). As in ML Kit this does not
    /// throw; a problem (e.g. a thread count outside 1…64) is thrown by every ``results(in:)`` call and
    /// passed to every ``process(_:completion:)`` completion.
    public static func poseDetector(options: CommonPoseDetectorOptions) -> PoseDetector {
        PoseDetector(options: options)
    }

    /// The poses in `image`: one, or none when nobody is found.
    public func results(in image: VisionImage) throws -> [Pose] {
        let landmarker = try loaded.get()
        var upright = image.image
        upright.orientation = image.orientation
        upright = try upright.oriented()
        lock.lock()
        defer { lock.unlock() }
        let result: PoseLandmarkerResult
        switch mode {
        case .singleImage:
            result = try landmarker.detect(image: upright)
        case .stream:
            let now = Int((DispatchTime.now().uptimeNanoseconds - clockStart) / 1_000_000)
            lastTimestamp = max(now, lastTimestamp + 1)
            result = try landmarker.detect(videoFrame: upright, timestampInMilliseconds: lastTimestamp)
        }
        return result.landmarks.map { Self.pose(from: $0, width: upright.width, height: upright.height) }
    }

    /// Runs ``results(in:)`` on the detector's serial queue and calls `completion` there with the poses or
    /// the error (ML Kit calls back on the main queue, which a Linux program may not run).
    public func process(_ image: VisionImage, completion: @escaping @Sendable ([Pose]?, (any Error)?) -> Void) {
        completionQueue.async { [self] in
            do {
                completion(try results(in: image), nil)
            } catch {
                completion(nil, error)
            }
        }
    }

    /// Normalized BlazePose landmarks → ML Kit landmarks in pixels (z on x's scale).
    static func pose(from landmarks: [NormalizedLandmark], width: Int, height: Int) -> Pose {
        let w = CGFloat(width), h = CGFloat(height)
        return Pose(landmarks: zip(PoseLandmarkType.allCases, landmarks).map { type, l in
            PoseLandmark(type: type, position: Vision3DPoint(x: CGFloat(l.x) * w, y: CGFloat(l.y) * h, z: CGFloat(l.z) * w),
                         inFrameLikelihood: l.presence ?? 0)
        })
    }
}
