import BlazeKit
import Foundation

/// A person's 19 body joints (`VNHumanBodyPoseObservation`), from BlazePose's 33 landmarks: neck and root
/// are the midpoints of the shoulders and of the hips. Locations are normalized with the origin at the
/// lower-left; a joint's confidence is BlazePose's visibility (the smaller of the two for neck and root).
public final class VNHumanBodyPoseObservation: VNObservation, @unchecked Sendable {
    /// Joint names, with Vision's raw values.
    public enum JointName: String, CaseIterable, Sendable, Codable, Hashable {
        case nose = "head_joint"
        case leftEye = "left_eye_joint", rightEye = "right_eye_joint"
        case leftEar = "left_ear_joint", rightEar = "right_ear_joint"
        case leftShoulder = "left_shoulder_1_joint", rightShoulder = "right_shoulder_1_joint"
        case neck = "neck_1_joint"
        case leftElbow = "left_forearm_joint", rightElbow = "right_forearm_joint"
        case leftWrist = "left_hand_joint", rightWrist = "right_hand_joint"
        case leftHip = "left_upLeg_joint", rightHip = "right_upLeg_joint"
        case root = "root"
        case leftKnee = "left_leg_joint", rightKnee = "right_leg_joint"
        case leftAnkle = "left_foot_joint", rightAnkle = "right_foot_joint"

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

    /// Joint groups, with Vision's membership.
    public enum JointsGroupName: String, CaseIterable, Sendable, Codable, Hashable {
        case face = "VNBLKFACE", torso = "VNBLKTORSO", leftArm = "VNBLKLARM", rightArm = "VNBLKRARM"
        case leftLeg = "VNBLKLLEG", rightLeg = "VNBLKRLEG", all = "VNIPOAll"

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

    private let points: [JointName: VNRecognizedPoint]
    private let points3D: [JointName: VNPoint3D]

    /// Builds the observation from one pose of a `PoseLandmarkerResult` (33 landmarks, 33 world landmarks).
    init(landmarks: [NormalizedLandmark], worldLandmarks: [Landmark]) {
        var points: [JointName: VNRecognizedPoint] = [:]
        var points3D: [JointName: VNPoint3D] = [:]
        for joint in JointName.allCases {
            let parts = joint.blazePoseLandmarks.map(\.rawValue)
            let n = Float(parts.count)
            let x = parts.map { landmarks[$0].x }.reduce(0, +) / n
            let y = parts.map { landmarks[$0].y }.reduce(0, +) / n
            let confidence = parts.map { landmarks[$0].visibility ?? 0 }.min() ?? 0
            points[joint] = VNRecognizedPoint(location: visionLocation(x: x, y: y), confidence: confidence, identifier: joint.rawValue)
            if worldLandmarks.count == landmarks.count {
                let wx = parts.map { worldLandmarks[$0].x }.reduce(0, +) / n
                let wy = parts.map { worldLandmarks[$0].y }.reduce(0, +) / n
                let wz = parts.map { worldLandmarks[$0].z }.reduce(0, +) / n
                points3D[joint] = VNPoint3D(x: wx, y: -wy, z: -wz)
            }
        }
        self.points = points
        self.points3D = points3D
        let confidences = points.values.map(\.confidence)
        super.init(confidence: confidences.reduce(0, +) / Float(max(confidences.count, 1)))
    }

    /// The joints this observation has (all 19).
    public var availableJointNames: [JointName] { JointName.allCases }
    /// The groups this observation has.
    public var availableJointsGroupNames: [JointsGroupName] { JointsGroupName.allCases }

    /// One joint.
    public func recognizedPoint(_ jointName: JointName) throws -> VNRecognizedPoint {
        guard let p = points[jointName] else { throw VNError.unknownPointKey(jointName.rawValue) }
        return p
    }

    /// The joints of a group, by name.
    public func recognizedPoints(_ jointsGroupName: JointsGroupName) throws -> [JointName: VNRecognizedPoint] {
        var out: [JointName: VNRecognizedPoint] = [:]
        for joint in jointsGroupName.jointNames { out[joint] = try recognizedPoint(joint) }
        return out
    }

    /// A joint in metres around the root, from BlazePose's world landmarks (Vision needs a separate 3D
    /// request for this).
    public func recognizedPoint3D(_ jointName: JointName) throws -> VNPoint3D {
        guard let p = points3D[jointName] else { throw VNError.unknownPointKey(jointName.rawValue) }
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
    private var landmarker: PoseLandmarker?
    private let lock = NSLock()

    /// The body observations of the last `perform`.
    public var bodyResults: [VNHumanBodyPoseObservation]? { results?.compactMap { $0 as? VNHumanBodyPoseObservation } }

    override func perform(on image: Image) throws -> [VNObservation] {
        lock.lock()
        defer { lock.unlock() }
        if landmarker?.options.numPoses != maximumPeopleCount || landmarker?.options.model != model
            || landmarker?.options.baseOptions.threadCount != threadCount {
            var options = PoseLandmarkerOptions()
            options.numPoses = maximumPeopleCount
            options.model = model
            options.baseOptions.threadCount = threadCount
            landmarker = try PoseLandmarker(options: options)
        }
        let result = try landmarker!.detect(image: image)
        return zip(result.landmarks, result.worldLandmarks).map { VNHumanBodyPoseObservation(landmarks: $0, worldLandmarks: $1) }
    }
}
