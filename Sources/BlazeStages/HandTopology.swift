/// The 21 hand landmarks, by index (`mediapipe/tasks/cc/vision/hand_landmarker/hand_topology.h`;
/// Python `mp.solutions.hands.HandLandmark`), named like Apple Vision's hand joints.
public enum HandLandmarkName: Int, CaseIterable, Sendable, Codable, Hashable {
    case wrist = 0
    case thumbCMC, thumbMCP, thumbIP, thumbTip
    case indexFingerMCP, indexFingerPIP, indexFingerDIP, indexFingerTip
    case middleFingerMCP, middleFingerPIP, middleFingerDIP, middleFingerTip
    case ringFingerMCP, ringFingerPIP, ringFingerDIP, ringFingerTip
    case pinkyMCP, pinkyPIP, pinkyDIP, pinkyTip
}

/// A skeleton edge between two hand landmark indices (as Tasks iOS `MPPConnection`).
public struct HandConnection: Sendable, Codable, Equatable, Hashable {
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }
}

public enum HandSkeleton {
    /// MediaPipe's 21 `HAND_CONNECTIONS`, in the order of the Tasks list
    /// `HandLandmarksConnections.HAND_CONNECTIONS` (palm, thumb, index, middle, ring, pinky;
    /// `mediapipe/tasks/python/vision/hand_landmarker.py`), with the palm edge wrist → index MCP `(0, 5)` as in
    /// `mediapipe/python/solutions/hands_connections.py`. (The Tasks Python list of 0.10.14 writes that edge as
    /// `(1, 5)`, which joins the thumb CMC to the index MCP — an upstream typo not followed here.)
    public static let connections: [HandConnection] = [
        (0, 1), (0, 5), (9, 13), (13, 17), (5, 9), (0, 17),
        (1, 2), (2, 3), (3, 4),
        (5, 6), (6, 7), (7, 8),
        (9, 10), (10, 11), (11, 12),
        (13, 14), (14, 15), (15, 16),
        (17, 18), (18, 19), (19, 20),
    ].map { HandConnection(start: $0.0, end: $0.1) }
}
