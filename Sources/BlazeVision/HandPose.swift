import BlazeKit
import Foundation

/// Which hand (`VNChirality`).
public enum VNChirality: Int, Sendable, Codable, Hashable {
    case unknown = 0, left = -1, right = 1
}

/// A hand's 21 joints (`VNHumanHandPoseObservation`), from MediaPipe's hand landmarks. Locations are
/// normalized with the origin at the lower-left; every joint's confidence is the hand's presence score.
public final class VNHumanHandPoseObservation: VNObservation, @unchecked Sendable {
    /// Joint names, with Vision's raw values, in MediaPipe's landmark order.
    public enum JointName: String, CaseIterable, Sendable, Codable, Hashable {
        case wrist = "VNHLKWRI"
        case thumbCMC = "VNHLKTCMC", thumbMP = "VNHLKTMP", thumbIP = "VNHLKTIP", thumbTip = "VNHLKTTIP"
        case indexMCP = "VNHLKIMCP", indexPIP = "VNHLKIPIP", indexDIP = "VNHLKIDIP", indexTip = "VNHLKITIP"
        case middleMCP = "VNHLKMMCP", middlePIP = "VNHLKMPIP", middleDIP = "VNHLKMDIP", middleTip = "VNHLKMTIP"
        case ringMCP = "VNHLKRMCP", ringPIP = "VNHLKRPIP", ringDIP = "VNHLKRDIP", ringTip = "VNHLKRTIP"
        case littleMCP = "VNHLKPMCP", littlePIP = "VNHLKPPIP", littleDIP = "VNHLKPDIP", littleTip = "VNHLKPTIP"

        /// The MediaPipe hand landmark index (0 = wrist … 20 = pinky tip).
        public var landmarkIndex: Int { Self.allCases.firstIndex(of: self)! }
    }

    /// Finger groups (`VNHumanHandPoseObservation.JointsGroupName`).
    public enum JointsGroupName: String, CaseIterable, Sendable, Codable, Hashable {
        case thumb = "VNHLRKT", indexFinger = "VNHLRKI", middleFinger = "VNHLRKM", ringFinger = "VNHLRKR"
        case littleFinger = "VNHLRKP", all = "VNIPOAll"

        public var jointNames: [JointName] {
            switch self {
            case .thumb: return [.thumbCMC, .thumbMP, .thumbIP, .thumbTip]
            case .indexFinger: return [.indexMCP, .indexPIP, .indexDIP, .indexTip]
            case .middleFinger: return [.middleMCP, .middlePIP, .middleDIP, .middleTip]
            case .ringFinger: return [.ringMCP, .ringPIP, .ringDIP, .ringTip]
            case .littleFinger: return [.littleMCP, .littlePIP, .littleDIP, .littleTip]
            case .all: return JointName.allCases
            }
        }
    }

    /// The person's hand. MediaPipe labels hands as seen in a mirrored (selfie) image and asks callers to
    /// swap the label for an unmirrored one; Vision's chirality is the hand itself, so MediaPipe's "Left"
    /// becomes `.right` and "Right" becomes `.left`.
    public let chirality: VNChirality
    private let points: [JointName: VNRecognizedPoint]

    init(landmarks: [NormalizedLandmark], handedness: ResultCategory?) {
        var points: [JointName: VNRecognizedPoint] = [:]
        for joint in JointName.allCases {
            let l = landmarks[joint.landmarkIndex]
            points[joint] = VNRecognizedPoint(location: visionLocation(x: l.x, y: l.y), confidence: l.presence ?? 0,
                                              identifier: joint.rawValue)
        }
        self.points = points
        switch handedness?.categoryName {
        case "Left": chirality = .right
        case "Right": chirality = .left
        default: chirality = .unknown
        }
        super.init(confidence: landmarks.first?.presence ?? 0)
    }

    public var availableJointNames: [JointName] { JointName.allCases }
    public var availableJointsGroupNames: [JointsGroupName] { JointsGroupName.allCases }

    public func recognizedPoint(_ jointName: JointName) throws -> VNRecognizedPoint {
        guard let p = points[jointName] else { throw VNError.unknownPointKey(jointName.rawValue) }
        return p
    }

    public func recognizedPoints(_ jointsGroupName: JointsGroupName) throws -> [JointName: VNRecognizedPoint] {
        var out: [JointName: VNRecognizedPoint] = [:]
        for joint in jointsGroupName.jointNames { out[joint] = try recognizedPoint(joint) }
        return out
    }
}

/// Finds hands (`VNDetectHumanHandPoseRequest`), one observation per hand.
public final class VNDetectHumanHandPoseRequest: VNRequest, @unchecked Sendable {
    /// The most hands to report. Default 2, as in Vision.
    public var maximumHandCount = 2
    /// Which MediaPipe hand networks to use (not in Vision). Default `.full`.
    public var model: HandLandmarkerModel = .full
    /// Threads per inference (not in Vision). Default 1.
    public var threadCount = 1
    private var landmarker: HandLandmarker?
    private let lock = NSLock()

    /// The hand observations of the last `perform`.
    public var handResults: [VNHumanHandPoseObservation]? { results?.compactMap { $0 as? VNHumanHandPoseObservation } }

    override func perform(on image: Image) throws -> [VNObservation] {
        lock.lock()
        defer { lock.unlock() }
        if landmarker?.options.numHands != maximumHandCount || landmarker?.options.model != model
            || landmarker?.options.baseOptions.threadCount != threadCount {
            var options = HandLandmarkerOptions()
            options.numHands = maximumHandCount
            options.model = model
            options.baseOptions.threadCount = threadCount
            landmarker = try HandLandmarker(options: options)
        }
        let result = try landmarker!.detect(image: image)
        return result.landmarks.indices.map {
            VNHumanHandPoseObservation(landmarks: result.landmarks[$0], handedness: result.handedness[$0].first)
        }
    }
}
