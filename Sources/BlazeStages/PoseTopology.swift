/// The 33 public pose landmarks, by index (`mediapipe/tasks/cc/vision/pose_landmarker/pose_topology.h`;
/// `mediapipe/modules/pose_landmark/pose_landmark_cpu.pbtxt`; Python `mp.solutions.pose.PoseLandmark`).
public enum PoseLandmarkName: Int, CaseIterable, Sendable, Codable, Hashable {
    case nose = 0
    case leftEyeInner, leftEye, leftEyeOuter
    case rightEyeInner, rightEye, rightEyeOuter
    case leftEar, rightEar
    case mouthLeft, mouthRight
    case leftShoulder, rightShoulder
    case leftElbow, rightElbow
    case leftWrist, rightWrist
    case leftPinky, rightPinky
    case leftIndex, rightIndex
    case leftThumb, rightThumb
    case leftHip, rightHip
    case leftKnee, rightKnee
    case leftAnkle, rightAnkle
    case leftHeel, rightHeel
    case leftFootIndex, rightFootIndex

    /// The same point on the other side of the body (`leftWrist` ↔ `rightWrist`, `mouthLeft` ↔ `mouthRight`);
    /// the nose is its own. What a left–right mirror of the image does to a landmark's meaning.
    public var mirrored: PoseLandmarkName {
        switch rawValue {
        case 0: return self
        case 1...3: return PoseLandmarkName(rawValue: rawValue + 3)!
        case 4...6: return PoseLandmarkName(rawValue: rawValue - 3)!
        default: return PoseLandmarkName(rawValue: rawValue % 2 == 1 ? rawValue + 1 : rawValue - 1)!
        }
    }
}

/// A skeleton edge between two landmark indices (as Tasks iOS `MPPConnection`).
public struct PoseConnection: Sendable, Codable, Equatable, Hashable {
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }
}

public enum PoseSkeleton {
    /// MediaPipe's 35 `POSE_CONNECTIONS` for overlays, in the order of the Tasks list
    /// `PoseLandmarksConnections.POSE_LANDMARKS` (`mediapipe/tasks/python/vision/pose_landmarker.py`;
    /// same set as `mediapipe/python/solutions/pose_connections.py`; checked against mediapipe 0.10.14).
    public static let connections: [PoseConnection] = [
        (0, 1), (1, 2), (2, 3), (3, 7), (0, 4), (4, 5), (5, 6), (6, 8), (9, 10), (11, 12), (11, 13),
        (13, 15), (15, 17), (15, 19), (15, 21), (17, 19), (12, 14), (14, 16), (16, 18), (16, 20), (16, 22),
        (18, 20), (11, 23), (12, 24), (23, 24), (23, 25), (24, 26), (25, 27), (26, 28), (27, 29), (28, 30),
        (29, 31), (30, 32), (27, 31), (28, 32),
    ].map { PoseConnection(start: $0.0, end: $0.1) }
}
