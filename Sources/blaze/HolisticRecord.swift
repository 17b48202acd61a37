import BlazeKit
import Foundation

/// One `blaze holistic` line: where the frame came from (``FrameOrigin``'s fields) and the four parts, each
/// null when it was not found.
struct HolisticRecord: JSONLine {
    /// One part's landmarks (rows of x, y, z, and for the pose visibility and presence) and world landmarks
    /// (none for the face).
    struct Part: JSONLine {
        var landmarks: [[Float]]
        var worldLandmarks: [[Float]]?

        func write(to json: inout JSONBytes) throws {
            var members: [JSONBytes.Member] = [("landmarks", { try $0.rows(landmarks) })]
            if let worldLandmarks { members.append(("worldLandmarks", { try $0.rows(worldLandmarks) })) }
            try json.object(members)
        }
    }

    var source: FrameOrigin
    var pose: Part?
    var face: Part?
    var leftHand: Part?
    var rightHand: Part?

    init(_ result: HolisticLandmarkerResult, source: FrameOrigin) {
        self.source = source
        func rows(_ points: [NormalizedLandmark]) -> [[Float]] { points.map { [$0.x, $0.y, $0.z] } }
        func rows(_ points: [Landmark]) -> [[Float]] { points.map { [$0.x, $0.y, $0.z] } }
        func hand(_ landmarks: [NormalizedLandmark], _ world: [Landmark]) -> Part? {
            landmarks.isEmpty ? nil : Part(landmarks: rows(landmarks), worldLandmarks: rows(world))
        }
        if !result.poseLandmarks.isEmpty {
            pose = Part(landmarks: result.poseLandmarks.map { [$0.x, $0.y, $0.z, $0.visibility ?? 0, $0.presence ?? 0] },
                        worldLandmarks: result.poseWorldLandmarks.map { [$0.x, $0.y, $0.z, $0.visibility ?? 0, $0.presence ?? 0] })
        }
        face = result.faceLandmarks.isEmpty ? nil : Part(landmarks: rows(result.faceLandmarks))
        leftHand = hand(result.leftHandLandmarks, result.leftHandWorldLandmarks)
        rightHand = hand(result.rightHandLandmarks, result.rightHandWorldLandmarks)
    }

    /// The parts by key, in no particular order (both writers sort keys).
    private var parts: [(key: String, part: Part?)] {
        [("pose", pose), ("face", face), ("leftHand", leftHand), ("rightHand", rightHand)]
    }

    func write(to json: inout JSONBytes) throws {
        try json.object(source.members + parts.map { entry in
            (entry.key, { json in
                if let part = entry.part { try part.write(to: &json) } else { json.null() }
            })
        })
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: RecordKey.self)
        try source.encode(into: &container)
        for (key, part) in parts {
            if let part { try container.encode(part, forKey: RecordKey(key)) } else { try container.encodeNil(forKey: RecordKey(key)) }
        }
    }

    /// `--format csv`: the long table of Google's Isolated Sign Language Recognition data, one row per landmark,
    /// every part's rows on every frame (x, y, z NaN for a part not found), parts in the order face, left_hand,
    /// pose, right_hand, so a frame has `facePoints` + 21 + 33 + 21 rows.
    static func table(facePoints: Int) -> CSVTable<HolisticLandmarkerResult> {
        CSVTable(columns: ["source", "frame", "timestamp_ms", "part", "index", "x", "y", "z"]) { result, origin, text in
            let lead = CSVText.field(origin.video ?? origin.image ?? "") + ",\(origin.index)," + (origin.timestampMs.map(String.init) ?? "") + ","
            let parts = [("face", facePoints, result.faceLandmarks), ("left_hand", 21, result.leftHandLandmarks),
                         ("pose", 33, result.poseLandmarks), ("right_hand", 21, result.rightHandLandmarks)]
            for (name, count, landmarks) in parts {
                for i in 0..<count {
                    text.append(lead + name + ",\(i),")
                    let point = landmarks.indices.contains(i) ? landmarks[i] : nil
                    text.number(point?.x ?? .nan)
                    text.append(",")
                    text.number(point?.y ?? .nan)
                    text.append(",")
                    text.number(point?.z ?? .nan)
                    text.append("\n")
                }
            }
        }
    }
}
