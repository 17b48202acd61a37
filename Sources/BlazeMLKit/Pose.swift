import BlazeKit
import Foundation

/// The 33 body landmarks of ML Kit pose detection (`PoseLandmarkType`), in BlazePose's order, so a
/// case's position in `allCases` is its BlazePose landmark index.
public enum PoseLandmarkType: String, CaseIterable, Sendable, Codable, Hashable {
    /// The nose (BlazePose landmark 0).
    case nose = "Nose"
    /// The inner corner of the left eye.
    case leftEyeInner = "LeftEyeInner"
    /// The centre of the left eye.
    case leftEye = "LeftEye"
    /// The outer corner of the left eye.
    case leftEyeOuter = "LeftEyeOuter"
    /// The inner corner of the right eye.
    case rightEyeInner = "RightEyeInner"
    /// The centre of the right eye.
    case rightEye = "RightEye"
    /// The outer corner of the right eye.
    case rightEyeOuter = "RightEyeOuter"
    /// The left ear.
    case leftEar = "LeftEar"
    /// The right ear.
    case rightEar = "RightEar"
    /// The left corner of the mouth.
    case mouthLeft = "MouthLeft"
    /// The right corner of the mouth.
    case mouthRight = "MouthRight"
    /// The left shoulder.
    case leftShoulder = "LeftShoulder"
    /// The right shoulder.
    case rightShoulder = "RightShoulder"
    /// The left elbow.
    case leftElbow = "LeftElbow"
    /// The right elbow.
    case rightElbow = "RightElbow"
    /// The left wrist.
    case leftWrist = "LeftWrist"
    /// The right wrist.
    case rightWrist = "RightWrist"
    /// The knuckle of the left little finger.
    case leftPinkyFinger = "LeftPinkyFinger"
    /// The knuckle of the right little finger.
    case rightPinkyFinger = "RightPinkyFinger"
    /// The knuckle of the left index finger.
    case leftIndexFinger = "LeftIndexFinger"
    /// The knuckle of the right index finger.
    case rightIndexFinger = "RightIndexFinger"
    /// The left thumb.
    case leftThumb = "LeftThumb"
    /// The right thumb.
    case rightThumb = "RightThumb"
    /// The left hip.
    case leftHip = "LeftHip"
    /// The right hip.
    case rightHip = "RightHip"
    /// The left knee.
    case leftKnee = "LeftKnee"
    /// The right knee.
    case rightKnee = "RightKnee"
    /// The left ankle.
    case leftAnkle = "LeftAnkle"
    /// The right ankle.
    case rightAnkle = "RightAnkle"
    /// The left heel.
    case leftHeel = "LeftHeel"
    /// The right heel.
    case rightHeel = "RightHeel"
    /// The tip of the left foot (BlazePose's left foot index).
    case leftToe = "LeftToe"
    /// The tip of the right foot (BlazePose landmark 32).
    case rightToe = "RightToe"

    /// The BlazePose landmark this type names (the same index).
    public var blazePoseLandmark: PoseLandmarkName { PoseLandmarkName(rawValue: Self.allCases.firstIndex(of: self)!)! }
}

/// A point in pixels with a depth (ML Kit's `Vision3DPoint`).
public struct Vision3DPoint: Sendable, Codable, Equatable, Hashable {
    /// Horizontal position in pixels of the upright image, from its left edge.
    public var x: CGFloat
    /// Vertical position in pixels of the upright image, from its top edge.
    public var y: CGFloat
    /// Depth on the scale of `x`, with the midpoint of the hips at 0; smaller is closer to the camera.
    public var z: CGFloat

    /// A point from its three coordinates.
    public init(x: CGFloat, y: CGFloat, z: CGFloat) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// One body landmark of a ``Pose`` (ML Kit's `PoseLandmark`).
public struct PoseLandmark: Sendable, Codable, Equatable {
    /// Which landmark this is.
    public var type: PoseLandmarkType
    /// Where it is, in pixels of the upright image (the image after ``VisionImage/orientation`` is
    /// applied); it may lie outside the image when the body part is out of frame.
    public var position: Vision3DPoint
    /// How likely the landmark is inside the image, in [0, 1]: BlazePose's presence output (not its
    /// visibility, which says whether the landmark is occluded).
    public var inFrameLikelihood: Float

    /// A landmark from its parts.
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

    /// A pose from its landmarks.
    public init(landmarks: [PoseLandmark]) { self.landmarks = landmarks }

    /// The landmark of `type`. A pose built with fewer landmarks answers a missing type with a landmark at
    /// (0, 0, 0) whose ``PoseLandmark/inFrameLikelihood`` is 0; detector results always have all 33.
    public func landmark(ofType type: PoseLandmarkType) -> PoseLandmark {
        landmarks.first { $0.type == type } ?? PoseLandmark(type: type, position: Vision3DPoint(x: 0, y: 0, z: 0), inFrameLikelihood: 0)
    }

    /// BlazeKit's normalized landmarks of one person → ML Kit landmarks in pixels of a `width`×`height`
    /// image (`z` scaled by the width, as `x` is). Nothing else is computed.
    static func from(_ landmarks: [NormalizedLandmark], width: Int, height: Int) -> Pose {
        let w = CGFloat(width), h = CGFloat(height)
        return Pose(landmarks: zip(PoseLandmarkType.allCases, landmarks).map { type, l in
            PoseLandmark(type: type, position: Vision3DPoint(x: CGFloat(l.x) * w, y: CGFloat(l.y) * h, z: CGFloat(l.z) * w),
                         inFrameLikelihood: l.presence ?? 0)
        })
    }
}
