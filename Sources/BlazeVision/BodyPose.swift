import BlazeKit
import Foundation

/// A person's 19 body joints (`VNHumanBodyPoseObservation`), from BlazePose's 33 landmarks: neck and root
/// are the midpoints of the shoulders and of the hips. Locations are normalized to the upright image with
/// the origin at the lower-left.
///
/// A joint's confidence is BlazePose's visibility (for neck and root the smaller of the two), or **0** when
/// the joint was not found: a landmark whose visibility or presence is below
/// ``VNRecognizedPointsObservation/minimumLandmarkScore`` (0.5), or which lies outside the image (for neck
/// and root: either of the two). The location is kept either way. The observation's own confidence is the
/// mean of the 19 joint confidences.
public final class VNHumanBodyPoseObservation: VNRecognizedPointsObservation, JointNamedObservation, @unchecked Sendable {
    /// Joint names, with Vision's raw values (those of its `VNHumanBodyPoseObservation.JointName` constants
    /// and of the iOS 14 `VNRecognizedPointKey.bodyLandmarkKey…` keys).
    public enum JointName: String, CaseIterable, Sendable, Codable, Hashable {
        /// The nose (BlazePose landmark 0).
        case nose = "head_joint"
        /// The left eye (landmark 2).
        case leftEye = "left_eye_joint"
        /// The right eye (landmark 5).
        case rightEye = "right_eye_joint"
        /// The left ear (landmark 7).
        case leftEar = "left_ear_joint"
        /// The right ear (landmark 8).
        case rightEar = "right_ear_joint"
        /// The left shoulder (landmark 11).
        case leftShoulder = "left_shoulder_1_joint"
        /// The right shoulder (landmark 12).
        case rightShoulder = "right_shoulder_1_joint"
        /// The neck: the midpoint of the shoulders.
        case neck = "neck_1_joint"
        /// The left elbow (landmark 13).
        case leftElbow = "left_forearm_joint"
        /// The right elbow (landmark 14).
        case rightElbow = "right_forearm_joint"
        /// The left wrist (landmark 15).
        case leftWrist = "left_hand_joint"
        /// The right wrist (landmark 16).
        case rightWrist = "right_hand_joint"
        /// The left hip (landmark 23).
        case leftHip = "left_upLeg_joint"
        /// The right hip (landmark 24).
        case rightHip = "right_upLeg_joint"
        /// The root: the midpoint of the hips.
        case root = "root"
        /// The left knee (landmark 25).
        case leftKnee = "left_leg_joint"
        /// The right knee (landmark 26).
        case rightKnee = "right_leg_joint"
        /// The left ankle (landmark 27).
        case leftAnkle = "left_foot_joint"
        /// The right ankle (landmark 28).
        case rightAnkle = "right_foot_joint"

        /// The BlazePose landmarks the joint is made of: one, or two for a midpoint.
        public var blazePoseLandmarks: [PoseLandmarkName] {
            switch self {
            case .nose: return [.nose]
            case .leftEye: return [.leftEye]
            case .rightEye: return [.rightEye]
            case .leftEar: return [.leftEar]
            case .rightEar: return [.rightEar]
            case .leftShoulder: return [.leftShoulder]
            case .rightShoulder: return [.rightShoulder]
            case .neck: return [.leftShoulder, .rightShoulder]
            case .leftElbow: return [.leftElbow]
            case .rightElbow: return [.rightElbow]
            case .leftWrist: return [.leftWrist]
            case .rightWrist: return [.rightWrist]
            case .leftHip: return [.leftHip]
            case .rightHip: return [.rightHip]
            case .root: return [.leftHip, .rightHip]
            case .leftKnee: return [.leftKnee]
            case .rightKnee: return [.rightKnee]
            case .leftAnkle: return [.leftAnkle]
            case .rightAnkle: return [.rightAnkle]
            }
        }
    }

    /// Joint groups, with Vision's raw values and membership.
    public enum JointsGroupName: String, CaseIterable, Sendable, Codable, Hashable, JointsGroup {
        /// Nose, eyes and ears.
        case face = "VNBLKFACE"
        /// Shoulders, neck, hips and root.
        case torso = "VNBLKTORSO"
        /// Left shoulder, elbow and wrist.
        case leftArm = "VNBLKLARM"
        /// Right shoulder, elbow and wrist.
        case rightArm = "VNBLKRARM"
        /// Left hip, knee and ankle.
        case leftLeg = "VNBLKLLEG"
        /// Right hip, knee and ankle.
        case rightLeg = "VNBLKRLEG"
        /// All 19 joints.
        case all = "VNIPOAll"

        /// The joints of the group (a joint may belong to two, e.g. a shoulder to the torso and its arm).
        public var jointNames: [JointName] {
            switch self {
            case .face: return [.nose, .leftEye, .rightEye, .leftEar, .rightEar]
            case .torso: return [.leftShoulder, .rightShoulder, .neck, .leftHip, .rightHip, .root]
            case .leftArm: return [.leftShoulder, .leftElbow, .leftWrist]
            case .rightArm: return [.rightShoulder, .rightElbow, .rightWrist]
            case .leftLeg: return [.leftHip, .leftKnee, .leftAnkle]
            case .rightLeg: return [.rightHip, .rightKnee, .rightAnkle]
            case .all: return JointName.allCases
            }
        }
    }

    private let points3D: [JointName: VNPoint3D]

    /// Builds the observation from one pose of a `PoseLandmarkerResult` (33 landmarks, 33 world landmarks).
    init(landmarks: [NormalizedLandmark], worldLandmarks: [Landmark]) {
        var points: [VNRecognizedPoint] = []
        var points3D: [JointName: VNPoint3D] = [:]
        for joint in JointName.allCases {
            let parts = joint.blazePoseLandmarks.map { landmarks[$0.rawValue] }
            let n = Float(parts.count)
            let x = parts.map(\.x).reduce(0, +) / n
            let y = parts.map(\.y).reduce(0, +) / n
            let found = parts.allSatisfy(VNRecognizedPointsObservation.found)
            let confidence = found ? parts.map { $0.visibility ?? $0.presence ?? 1 }.min()! : 0
            points.append(VNRecognizedPoint(location: visionLocation(x: x, y: y), confidence: confidence, identifier: joint.rawValue))
            if worldLandmarks.count == landmarks.count {
                let world = joint.blazePoseLandmarks.map { worldLandmarks[$0.rawValue] }
                points3D[joint] = VNPoint3D(x: world.map(\.x).reduce(0, +) / n, y: -world.map(\.y).reduce(0, +) / n,
                                            z: -world.map(\.z).reduce(0, +) / n)
            }
        }
        self.points3D = points3D
        let groups = Self.pointGroups
        super.init(confidence: points.map(\.confidence).reduce(0, +) / Float(points.count), points: points, groups: groups)
    }


    /// A joint in metres around the root, from BlazePose's world landmarks (Vision needs a separate 3D
    /// request for this). Not subject to the confidence rule: a joint that was not found still has a position.
    public func recognizedPoint3D(_ jointName: JointName) throws -> VNPoint3D {
        guard let p = points3D[jointName] else {
            throw VNError.unknownPointKey(jointName.rawValue, observation: "VNHumanBodyPoseObservation (3D)",
                                          available: points3D.keys.map(\.rawValue).sorted())
        }
        return p
    }
}

/// Finds people's body poses (`VNDetectHumanBodyPoseRequest`), one observation per person.
public final class VNDetectHumanBodyPoseRequest: VNRequest, @unchecked Sendable {
    /// The most people to report (not in Vision, which has no limit; BlazePose needs one). Default 5.
    public var maximumPeopleCount = 5
    /// Which BlazePose landmark network to use (not in Vision). Default `.full`.
    public var model: PoseLandmarkerModel = .full
    /// Threads per inference (not in Vision). Default 1.
    public var threadCount = 1
    /// How the networks pick their kernels when they are planned (BlazeKit's `BaseOptions.kernelPlanning`, not
    /// in Vision): `.measured` (the default) or `.fixed`. The results are the same either way.
    public var kernelPlanning: Planning = .measured
    /// BlazeKit's accurate mode (`PoseAccurateMode`, not in Vision): finds people too small, turned or
    /// crowded for MediaPipe's detector, at a higher cost. nil (the default) gives MediaPipe's results.
    public var accurateMode: PoseAccurateMode?
    private let landmarker = RequestLandmarker<PoseLandmarkerDefinition>()

    /// The body observations of the last `perform`.
    public var bodyResults: [VNHumanBodyPoseObservation]? { results?.compactMap { $0 as? VNHumanBodyPoseObservation } }

    override func perform(on image: Image) throws -> [VNObservation] {
        let result = try landmarker.detect(image, threadCount: threadCount, kernelPlanning: kernelPlanning,
                                           settings: [maximumPeopleCount, model, accurateMode]) { options in
            (options.numPoses, options.model, options.accurateMode) = (maximumPeopleCount, model, accurateMode)
        }
        return zip(result.landmarks, result.worldLandmarks).map { VNHumanBodyPoseObservation(landmarks: $0, worldLandmarks: $1) }
    }
}

// MARK: - Vision's iOS 14 body keys

extension VNRecognizedPointKey {
    /// The nose (`"head_joint"`).
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.nose")
    public static let bodyLandmarkKeyNose = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.nose.rawValue)
    /// The left eye.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.leftEye")
    public static let bodyLandmarkKeyLeftEye = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.leftEye.rawValue)
    /// The right eye.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.rightEye")
    public static let bodyLandmarkKeyRightEye = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.rightEye.rawValue)
    /// The left ear.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.leftEar")
    public static let bodyLandmarkKeyLeftEar = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.leftEar.rawValue)
    /// The right ear.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.rightEar")
    public static let bodyLandmarkKeyRightEar = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.rightEar.rawValue)
    /// The left shoulder.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.leftShoulder")
    public static let bodyLandmarkKeyLeftShoulder = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.leftShoulder.rawValue)
    /// The right shoulder.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.rightShoulder")
    public static let bodyLandmarkKeyRightShoulder = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.rightShoulder.rawValue)
    /// The neck: the midpoint of the shoulders.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.neck")
    public static let bodyLandmarkKeyNeck = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.neck.rawValue)
    /// The left elbow.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.leftElbow")
    public static let bodyLandmarkKeyLeftElbow = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.leftElbow.rawValue)
    /// The right elbow.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.rightElbow")
    public static let bodyLandmarkKeyRightElbow = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.rightElbow.rawValue)
    /// The left wrist.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.leftWrist")
    public static let bodyLandmarkKeyLeftWrist = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.leftWrist.rawValue)
    /// The right wrist.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.rightWrist")
    public static let bodyLandmarkKeyRightWrist = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.rightWrist.rawValue)
    /// The left hip.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.leftHip")
    public static let bodyLandmarkKeyLeftHip = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.leftHip.rawValue)
    /// The right hip.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.rightHip")
    public static let bodyLandmarkKeyRightHip = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.rightHip.rawValue)
    /// The root: the midpoint of the hips.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.root")
    public static let bodyLandmarkKeyRoot = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.root.rawValue)
    /// The left knee.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.leftKnee")
    public static let bodyLandmarkKeyLeftKnee = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.leftKnee.rawValue)
    /// The right knee.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.rightKnee")
    public static let bodyLandmarkKeyRightKnee = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.rightKnee.rawValue)
    /// The left ankle.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.leftAnkle")
    public static let bodyLandmarkKeyLeftAnkle = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.leftAnkle.rawValue)
    /// The right ankle.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointName.rightAnkle")
    public static let bodyLandmarkKeyRightAnkle = VNRecognizedPointKey(rawValue: VNHumanBodyPoseObservation.JointName.rightAnkle.rawValue)
}

extension VNRecognizedPointGroupKey {
    /// Nose, eyes and ears.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointsGroupName.face")
    public static let bodyLandmarkRegionKeyFace = VNRecognizedPointGroupKey(rawValue: VNHumanBodyPoseObservation.JointsGroupName.face.rawValue)
    /// Shoulders, neck, hips and root.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointsGroupName.torso")
    public static let bodyLandmarkRegionKeyTorso = VNRecognizedPointGroupKey(rawValue: VNHumanBodyPoseObservation.JointsGroupName.torso.rawValue)
    /// Left shoulder, elbow and wrist.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointsGroupName.leftArm")
    public static let bodyLandmarkRegionKeyLeftArm = VNRecognizedPointGroupKey(rawValue: VNHumanBodyPoseObservation.JointsGroupName.leftArm.rawValue)
    /// Right shoulder, elbow and wrist.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointsGroupName.rightArm")
    public static let bodyLandmarkRegionKeyRightArm = VNRecognizedPointGroupKey(rawValue: VNHumanBodyPoseObservation.JointsGroupName.rightArm.rawValue)
    /// Left hip, knee and ankle.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointsGroupName.leftLeg")
    public static let bodyLandmarkRegionKeyLeftLeg = VNRecognizedPointGroupKey(rawValue: VNHumanBodyPoseObservation.JointsGroupName.leftLeg.rawValue)
    /// Right hip, knee and ankle.
    @available(*, deprecated, renamed: "VNHumanBodyPoseObservation.JointsGroupName.rightLeg")
    public static let bodyLandmarkRegionKeyRightLeg = VNRecognizedPointGroupKey(rawValue: VNHumanBodyPoseObservation.JointsGroupName.rightLeg.rawValue)
}
