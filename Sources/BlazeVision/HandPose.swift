import BlazeKit
import Foundation

/// Which hand (`VNChirality`).
public enum VNChirality: Int, Sendable, Codable, Hashable {
    /// Not known.
    case unknown = 0
    /// A left hand.
    case left = -1
    /// A right hand.
    case right = 1
}

/// A hand's 21 joints (`VNHumanHandPoseObservation`), from MediaPipe's hand landmarks. Locations are
/// normalized to the upright image with the origin at the lower-left.
///
/// Every joint's confidence is the hand's presence score from the landmark network (at least
/// `HandLandmarkerOptions.minHandPresenceConfidence`, 0.5, or the hand would not be reported), except for a
/// joint whose location lies outside the image: that one has confidence **0**, as Vision reports for joints
/// it did not find, and keeps its estimated location. The observation's own confidence is the presence score.
public final class VNHumanHandPoseObservation: VNRecognizedPointsObservation, JointNamedObservation, @unchecked Sendable {
    /// Joint names, with Vision's raw values (those of its `VNHumanHandPoseObservation.JointName` constants and
    /// of the iOS 14 `VNRecognizedPointKey.handLandmarkKey…` keys), in MediaPipe's landmark order.
    public enum JointName: String, CaseIterable, Sendable, Codable, Hashable {
        /// The wrist (MediaPipe landmark 0).
        case wrist = "VNHLKWRI"
        /// The thumb's carpometacarpal joint (landmark 1).
        case thumbCMC = "VNHLKTCMC"
        /// The thumb's metacarpophalangeal joint (landmark 2).
        case thumbMP = "VNHLKTMP"
        /// The thumb's interphalangeal joint (landmark 3).
        case thumbIP = "VNHLKTIP"
        /// The thumb's tip (landmark 4).
        case thumbTip = "VNHLKTTIP"
        /// The index finger's metacarpophalangeal joint (landmark 5).
        case indexMCP = "VNHLKIMCP"
        /// The index finger's proximal interphalangeal joint (landmark 6).
        case indexPIP = "VNHLKIPIP"
        /// The index finger's distal interphalangeal joint (landmark 7).
        case indexDIP = "VNHLKIDIP"
        /// The index finger's tip (landmark 8).
        case indexTip = "VNHLKITIP"
        /// The middle finger's metacarpophalangeal joint (landmark 9).
        case middleMCP = "VNHLKMMCP"
        /// The middle finger's proximal interphalangeal joint (landmark 10).
        case middlePIP = "VNHLKMPIP"
        /// The middle finger's distal interphalangeal joint (landmark 11).
        case middleDIP = "VNHLKMDIP"
        /// The middle finger's tip (landmark 12).
        case middleTip = "VNHLKMTIP"
        /// The ring finger's metacarpophalangeal joint (landmark 13).
        case ringMCP = "VNHLKRMCP"
        /// The ring finger's proximal interphalangeal joint (landmark 14).
        case ringPIP = "VNHLKRPIP"
        /// The ring finger's distal interphalangeal joint (landmark 15).
        case ringDIP = "VNHLKRDIP"
        /// The ring finger's tip (landmark 16).
        case ringTip = "VNHLKRTIP"
        /// The little finger's metacarpophalangeal joint (landmark 17).
        case littleMCP = "VNHLKPMCP"
        /// The little finger's proximal interphalangeal joint (landmark 18).
        case littlePIP = "VNHLKPPIP"
        /// The little finger's distal interphalangeal joint (landmark 19).
        case littleDIP = "VNHLKPDIP"
        /// The little finger's tip (landmark 20).
        case littleTip = "VNHLKPTIP"

        /// The MediaPipe hand landmark index (0 = wrist … 20 = pinky tip).
        public var landmarkIndex: Int { Self.allCases.firstIndex(of: self)! }
    }

    /// Finger groups, with Vision's raw values and membership (the wrist is only in ``all``).
    public enum JointsGroupName: String, CaseIterable, Sendable, Codable, Hashable, JointsGroup {
        /// The thumb's four joints.
        case thumb = "VNHLRKT"
        /// The index finger's four joints.
        case indexFinger = "VNHLRKI"
        /// The middle finger's four joints.
        case middleFinger = "VNHLRKM"
        /// The ring finger's four joints.
        case ringFinger = "VNHLRKR"
        /// The little finger's four joints.
        case littleFinger = "VNHLRKP"
        /// All 21 joints.
        case all = "VNIPOAll"

        /// The joints of the group, from the palm out.
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

    /// Which of the person's hands this is, read from the image the handler analyzes (after applying its
    /// orientation): MediaPipe Tasks' handedness label unchanged, "Left" → `.left`, "Right" → `.right`. On an
    /// unmirrored photo that is the person's own hand (checked on photos whose wrists people labelled). A
    /// horizontally flipped copy, such as a mirrored selfie preview, reports each hand as the other one; the same
    /// flipped pixels given with orientation `.upMirrored` are flipped back first and report the person's own hands.
    public let chirality: VNChirality

    init(landmarks: [NormalizedLandmark], handedness: ResultCategory?) {
        let presence = landmarks.first?.presence ?? 0
        let points = JointName.allCases.map { joint in
            let l = landmarks[joint.landmarkIndex]
            let inside = (0...1).contains(l.x) && (0...1).contains(l.y)
            return VNRecognizedPoint(location: visionLocation(x: l.x, y: l.y), confidence: inside ? (l.presence ?? 0) : 0,
                                     identifier: joint.rawValue)
        }
        switch handedness?.categoryName {
        case "Left": chirality = .left
        case "Right": chirality = .right
        default: chirality = .unknown
        }
        let groups = Self.pointGroups
        super.init(confidence: presence, points: points, groups: groups)
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
    /// As ``VNDetectHumanBodyPoseRequest/kernelPlanning``. Default `.measured`.
    public var kernelPlanning: Planning = .measured
    /// BlazeKit's accurate mode for hands (`HandAccurateMode`, not in Vision): finds hands too small for
    /// MediaPipe's palm detector, at a higher cost. nil (the default) gives MediaPipe's results.
    public var accurateMode: HandAccurateMode?
    private let landmarker = RequestLandmarker<HandLandmarkerDefinition>()

    /// The hand observations of the last `perform`.
    public var handResults: [VNHumanHandPoseObservation]? { results?.compactMap { $0 as? VNHumanHandPoseObservation } }

    override func perform(on image: Image) throws -> [VNObservation] {
        let result = try landmarker.detect(image, threadCount: threadCount, kernelPlanning: kernelPlanning,
                                           settings: [maximumHandCount, model, accurateMode]) { options in
            (options.numHands, options.model, options.accurateMode) = (maximumHandCount, model, accurateMode)
        }
        return result.landmarks.indices.map {
            VNHumanHandPoseObservation(landmarks: result.landmarks[$0], handedness: result.handedness[$0].first)
        }
    }
}

// MARK: - Vision's iOS 14 hand keys

extension VNRecognizedPointKey {
    /// The wrist.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.wrist")
    public static let handLandmarkKeyWrist = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.wrist.rawValue)
    /// The thumb's carpometacarpal joint.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.thumbCMC")
    public static let handLandmarkKeyThumbCMC = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.thumbCMC.rawValue)
    /// The thumb's metacarpophalangeal joint.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.thumbMP")
    public static let handLandmarkKeyThumbMP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.thumbMP.rawValue)
    /// The thumb's interphalangeal joint.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.thumbIP")
    public static let handLandmarkKeyThumbIP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.thumbIP.rawValue)
    /// The thumb's tip.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.thumbTip")
    public static let handLandmarkKeyThumbTIP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.thumbTip.rawValue)
    /// The index finger's metacarpophalangeal joint.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.indexMCP")
    public static let handLandmarkKeyIndexMCP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.indexMCP.rawValue)
    /// The index finger's proximal interphalangeal joint.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.indexPIP")
    public static let handLandmarkKeyIndexPIP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.indexPIP.rawValue)
    /// The index finger's distal interphalangeal joint.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.indexDIP")
    public static let handLandmarkKeyIndexDIP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.indexDIP.rawValue)
    /// The index finger's tip.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.indexTip")
    public static let handLandmarkKeyIndexTIP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.indexTip.rawValue)
    /// The middle finger's metacarpophalangeal joint.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.middleMCP")
    public static let handLandmarkKeyMiddleMCP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.middleMCP.rawValue)
    /// The middle finger's proximal interphalangeal joint.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.middlePIP")
    public static let handLandmarkKeyMiddlePIP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.middlePIP.rawValue)
    /// The middle finger's distal interphalangeal joint.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.middleDIP")
    public static let handLandmarkKeyMiddleDIP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.middleDIP.rawValue)
    /// The middle finger's tip.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.middleTip")
    public static let handLandmarkKeyMiddleTIP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.middleTip.rawValue)
    /// The ring finger's metacarpophalangeal joint.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.ringMCP")
    public static let handLandmarkKeyRingMCP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.ringMCP.rawValue)
    /// The ring finger's proximal interphalangeal joint.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.ringPIP")
    public static let handLandmarkKeyRingPIP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.ringPIP.rawValue)
    /// The ring finger's distal interphalangeal joint.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.ringDIP")
    public static let handLandmarkKeyRingDIP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.ringDIP.rawValue)
    /// The ring finger's tip.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.ringTip")
    public static let handLandmarkKeyRingTIP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.ringTip.rawValue)
    /// The little finger's metacarpophalangeal joint.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.littleMCP")
    public static let handLandmarkKeyLittleMCP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.littleMCP.rawValue)
    /// The little finger's proximal interphalangeal joint.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.littlePIP")
    public static let handLandmarkKeyLittlePIP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.littlePIP.rawValue)
    /// The little finger's distal interphalangeal joint.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.littleDIP")
    public static let handLandmarkKeyLittleDIP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.littleDIP.rawValue)
    /// The little finger's tip.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointName.littleTip")
    public static let handLandmarkKeyLittleTIP = VNRecognizedPointKey(rawValue: VNHumanHandPoseObservation.JointName.littleTip.rawValue)
}

extension VNRecognizedPointGroupKey {
    /// The thumb's four joints.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointsGroupName.thumb")
    public static let handLandmarkRegionKeyThumb = VNRecognizedPointGroupKey(rawValue: VNHumanHandPoseObservation.JointsGroupName.thumb.rawValue)
    /// The index finger's four joints.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointsGroupName.indexFinger")
    public static let handLandmarkRegionKeyIndexFinger = VNRecognizedPointGroupKey(rawValue: VNHumanHandPoseObservation.JointsGroupName.indexFinger.rawValue)
    /// The middle finger's four joints.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointsGroupName.middleFinger")
    public static let handLandmarkRegionKeyMiddleFinger = VNRecognizedPointGroupKey(rawValue: VNHumanHandPoseObservation.JointsGroupName.middleFinger.rawValue)
    /// The ring finger's four joints.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointsGroupName.ringFinger")
    public static let handLandmarkRegionKeyRingFinger = VNRecognizedPointGroupKey(rawValue: VNHumanHandPoseObservation.JointsGroupName.ringFinger.rawValue)
    /// The little finger's four joints.
    @available(*, deprecated, renamed: "VNHumanHandPoseObservation.JointsGroupName.littleFinger")
    public static let handLandmarkRegionKeyLittleFinger = VNRecognizedPointGroupKey(rawValue: VNHumanHandPoseObservation.JointsGroupName.littleFinger.rawValue)
}
