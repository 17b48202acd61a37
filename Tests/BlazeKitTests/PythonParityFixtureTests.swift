import BlazeKit
import Foundation
import Testing

/// The Swift API's results on fixture photos, committed as `Python/tests/fixtures/swift_results.json`, which
/// the Python package's tests compare their results with, bit for bit (issue 27). This test fails when the
/// Swift results and the file disagree; `BLAZEKIT_WRITE_PARITY_FIXTURE=1 swift test --filter PythonParityFixture`
/// rewrites the file after an intended change of results.
///
/// IMAGE mode: each photo once. VIDEO mode: each photo as three frames (0, 33, 66 ms) of its own stream, so the
/// second and third frames run from the tracker; the Python tests also feed these frames to LIVE_STREAM mode one
/// at a time, which must give the same results. Floats are written as Swift's shortest round-trip decimal, so
/// `numpy.float32(value)` is the exact Float; masks as the FNV-1a 64 hash of their little-endian float32 bytes.
@Suite struct PythonParityFixtureTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixture = repo.appendingPathComponent("Python/tests/fixtures/swift_results.json")
    static let posePhotos = ["mpii_052475643.png", "coco_000000040083.png"]
    static let handPhotos = ["panoptic_ex2_2.flv_000040_l.png", "onehand10k_33.png"]
    static let videoTimestamps = [0, 33, 66]

    static func photo(_ task: String, _ name: String) throws -> MPImage {
        try MPImage(contentsOfFile: repo.appendingPathComponent("Tests/BlazeKitTests/Fixtures/\(task)/\(name)").path)
    }

    static func fnv1a(_ values: [Float]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for v in values {
            var bits = v.bitPattern.littleEndian
            withUnsafeBytes(of: &bits) { for b in $0 { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 } }
        }
        return String(hash, radix: 16)
    }

    static func point(_ x: Float, _ y: Float, _ z: Float, _ visibility: Float?, _ presence: Float?) -> [Float?] {
        [x, y, z, visibility, presence]
    }

    struct PoseJSON: Codable, Equatable {
        var landmarks: [[[Float?]]]
        var world: [[[Float?]]]
        var masks: [String]
    }

    struct HandJSON: Codable, Equatable {
        var handedness: [[String]]
        var landmarks: [[[Float?]]]
        var world: [[[Float?]]]
    }

    struct FixtureJSON: Codable, Equatable {
        var poseOptions: String
        var handOptions: String
        var poseImage: [String: PoseJSON]
        var poseVideo: [String: [PoseJSON]]
        var handImage: [String: HandJSON]
        var handVideo: [String: [HandJSON]]
    }

    static func pose(_ r: PoseLandmarkerResult) -> PoseJSON {
        PoseJSON(landmarks: r.landmarks.map { $0.map { point($0.x, $0.y, $0.z, $0.visibility, $0.presence) } },
                 world: r.worldLandmarks.map { $0.map { point($0.x, $0.y, $0.z, $0.visibility, $0.presence) } },
                 masks: r.segmentationMasks.map { "\($0.width)x\($0.height):\(fnv1a($0.float32Data))" })
    }

    static func hand(_ r: HandLandmarkerResult) -> HandJSON {
        HandJSON(handedness: r.handedness.map { $0.map { "\($0.index) \($0.score) \($0.categoryName ?? "") \($0.displayName ?? "")" } },
                 landmarks: r.landmarks.map { $0.map { point($0.x, $0.y, $0.z, $0.visibility, $0.presence) } },
                 world: r.worldLandmarks.map { $0.map { point($0.x, $0.y, $0.z, $0.visibility, $0.presence) } })
    }

    static func poseOptions(_ mode: RunningMode) -> PoseLandmarkerOptions {
        let o = PoseLandmarkerOptions()
        o.runningMode = mode
        o.numPoses = 2
        o.shouldOutputSegmentationMasks = true
        return o
    }

    static func handOptions(_ mode: RunningMode) -> HandLandmarkerOptions {
        let o = HandLandmarkerOptions()
        o.runningMode = mode
        o.numHands = 2
        return o
    }

    static func current() throws -> FixtureJSON {
        var out = FixtureJSON(poseOptions: "built-in full models, num_poses=2, output_segmentation_masks=True",
                              handOptions: "built-in full models, num_hands=2",
                              poseImage: [:], poseVideo: [:], handImage: [:], handVideo: [:])
        let poseImage = try PoseLandmarker(options: poseOptions(.image))
        for name in posePhotos {
            let image = try photo("pose", name)
            out.poseImage[name] = pose(try poseImage.detect(image: image))
            let video = try PoseLandmarker(options: poseOptions(.video))
            out.poseVideo[name] = try videoTimestamps.map { pose(try video.detect(videoFrame: image, timestampInMilliseconds: $0)) }
        }
        let handImage = try HandLandmarker(options: handOptions(.image))
        for name in handPhotos {
            let image = try photo("hand", name)
            out.handImage[name] = hand(try handImage.detect(image: image))
            let video = try HandLandmarker(options: handOptions(.video))
            out.handVideo[name] = try videoTimestamps.map { hand(try video.detect(videoFrame: image, timestampInMilliseconds: $0)) }
        }
        return out
    }

    /// The committed fixture at `url`, first rewritten from `results` (sorted keys, a final newline) when
    /// `BLAZEKIT_WRITE_PARITY_FIXTURE=1`.
    static func committed<T: Codable>(_ results: T, at url: URL) throws -> T {
        if ProcessInfo.processInfo.environment["BLAZEKIT_WRITE_PARITY_FIXTURE"] == "1" {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try (encoder.encode(results) + Data("\n".utf8)).write(to: url)
        }
        return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
    }

    @Test func committedFixtureIsTheSwiftAPIsOutput() throws {
        let results = try Self.current()
        let committed = try Self.committed(results, at: Self.fixture)
        // On a difference: rewrite the file with BLAZEKIT_WRITE_PARITY_FIXTURE=1 if the change is intended.
        #expect(committed == results, "Python/tests/fixtures/swift_results.json differs from the Swift API's results")
        #expect(results.poseImage.values.allSatisfy { !$0.landmarks.isEmpty })
        #expect(results.handImage.values.allSatisfy { !$0.landmarks.isEmpty })
    }
}
