import BlazeImage
import BlazeKit
import Foundation
import Testing

/// Pose IDs on the tiny synthetic clip of `Tools/identity/make_identity_clips.py --tiny`
/// (Fixtures/identity: two people cut from test photos cross, B in front of A, 16 frames, truth.json).
@Suite struct IdentityClipTests {
    struct Truth: Decodable {
        struct Person: Decodable {
            var id: String
            var visible: Double
            var height: Double
            var landmarks: [[Double]]
        }
        struct Frame: Decodable {
            var frame: String
            var people: [Person]
        }
        var width: Int
        var height: Int
        var frames: [Frame]
    }

    static let directory = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/identity")

    /// Per frame, for each true identity: (index in the result's list, ID) of the pose whose landmarks lie on
    /// average within 0.2 of the person's height of its true landmarks (the nearest such pose).
    static func matches(_ truth: Truth.Frame, _ result: PoseLandmarkerResult, width: Int, height: Int) -> [String: (index: Int, id: Int)] {
        var out: [String: (index: Int, id: Int)] = [:]
        for person in truth.people {
            let distances = result.landmarks.map { pose in
                zip(pose, person.landmarks).map { l, t in hypot(Double(l.x) * Double(width) - t[0], Double(l.y) * Double(height) - t[1]) }
                    .reduce(0, +) / Double(pose.count) / person.height
            }
            if let best = distances.indices.min(by: { distances[$0] < distances[$1] }), distances[best] < 0.2 {
                out[person.id] = (best, result.ids[best])
            }
        }
        return out
    }

    @Test func idsFollowThePeopleThroughTheCrossingWhereTheListOrderSwaps() throws {
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: Self.directory.appendingPathComponent("truth.json")))
        let options = PoseLandmarkerOptions()
        options.numPoses = 2
        options.runningMode = .video
        let landmarker = try PoseLandmarker(options: options)
        var matched: [[String: (index: Int, id: Int)]] = []
        for (i, frame) in truth.frames.enumerated() {
            let image = try Image(contentsOfPNGFile: Self.directory.appendingPathComponent(frame.frame + ".png").path)
            let result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: i * 33)
            #expect(result.ids.count == result.landmarks.count && Set(result.ids).count == result.ids.count, "frame \(i)")
            matched.append(Self.matches(frame, result, width: truth.width, height: truth.height))
        }
        let first = try #require(matched.first), last = try #require(matched.last)
        for who in ["A", "B"] {
            let start = try #require(first[who], "\(who) found on the first frame")
            let end = try #require(last[who], "\(who) found on the last frame")
            #expect(start.id == end.id, "\(who): ID \(start.id) at the start, \(end.id) at the end")
            // Where both people are apart and found, each pose carries its person's first ID.
            for (i, frame) in matched.enumerated() where frame.count == 2 && truth.frames[i].people.allSatisfy({ $0.visible > 0.99 }) {
                #expect(frame[who]?.id == start.id, "frame \(i), \(who)")
            }
        }
        #expect(first["A"]!.id != first["B"]!.id)
        // The list order alone (MediaPipe's results) would have swapped them.
        #expect(first["A"]!.index != last["A"]!.index && first["B"]!.index != last["B"]!.index)
    }
}
