import BlazeKit
import Foundation
import Testing

/// The Swift API's results with the legacy graphs (`legacySolution`) on fixture photos, committed as
/// `Python/tests/fixtures/swift_legacy_results.json`, which the Python package's `mp.solutions` tests compare
/// theirs with, bit for bit. `BLAZEKIT_WRITE_PARITY_FIXTURE=1 swift test --filter LegacyParityFixture` rewrites
/// the file after an intended change. The layout and float format are those of ``PythonParityFixtureTests``.
///
/// IMAGE mode is `static_image_mode=True`; VIDEO mode feeds each photo as three frames of its own stream, so the
/// second and third run from the tracked region through the filters (and the mask smoother).
@Suite struct LegacyParityFixtureTests {
    typealias Shared = PythonParityFixtureTests
    static let fixture = Shared.repo.appendingPathComponent("Python/tests/fixtures/swift_legacy_results.json")
    static let models: [(name: String, pose: PoseLandmarkerModel, hand: HandLandmarkerModel)] = [("full", .full, .full), ("lite", .lite, .lite)]

    struct FixtureJSON: Codable, Equatable {
        var poseOptions: String
        var handOptions: String
        var poseImage: [String: Shared.PoseJSON]
        var poseVideo: [String: [Shared.PoseJSON]]
        var handImage: [String: Shared.HandJSON]
        var handVideo: [String: [Shared.HandJSON]]
    }

    static func poseOptions(_ mode: RunningMode, _ model: PoseLandmarkerModel) -> PoseLandmarkerOptions {
        let o = PoseLandmarkerOptions()
        o.runningMode = mode
        o.model = model
        o.shouldOutputSegmentationMasks = true
        o.legacySolution = LegacyPoseSolution()
        return o
    }

    static func handOptions(_ mode: RunningMode, _ model: HandLandmarkerModel) -> HandLandmarkerOptions {
        let o = HandLandmarkerOptions()
        o.runningMode = mode
        o.model = model
        o.numHands = 2
        o.legacySolution = LegacyHandSolution()
        return o
    }

    static func current() throws -> FixtureJSON {
        var out = FixtureJSON(poseOptions: "Pose(model_complexity=1 'full' / 0 'lite', enable_segmentation=True), other arguments default",
                              handOptions: "Hands(model_complexity=1 'full' / 0 'lite'), other arguments default",
                              poseImage: [:], poseVideo: [:], handImage: [:], handVideo: [:])
        for model in models {
            let poseImage = try PoseLandmarker(options: poseOptions(.image, model.pose))
            for name in Shared.posePhotos {
                let image = try Shared.photo("pose", name)
                let key = "\(model.name)/\(name)"
                out.poseImage[key] = Shared.pose(try poseImage.detect(image: image))
                let video = try PoseLandmarker(options: poseOptions(.video, model.pose))
                out.poseVideo[key] = try Shared.videoTimestamps.map { Shared.pose(try video.detect(videoFrame: image, timestampInMilliseconds: $0)) }
            }
            let handImage = try HandLandmarker(options: handOptions(.image, model.hand))
            for name in Shared.handPhotos {
                let image = try Shared.photo("hand", name)
                let key = "\(model.name)/\(name)"
                out.handImage[key] = Shared.hand(try handImage.detect(image: image))
                let video = try HandLandmarker(options: handOptions(.video, model.hand))
                out.handVideo[key] = try Shared.videoTimestamps.map { Shared.hand(try video.detect(videoFrame: image, timestampInMilliseconds: $0)) }
            }
        }
        return out
    }

    @Test func committedFixtureIsTheSwiftAPIsOutput() throws {
        let results = try Self.current()
        let committed = try Shared.committed(results, at: Self.fixture)
        #expect(committed == results, "Python/tests/fixtures/swift_legacy_results.json differs from the Swift API's results")
        #expect(results.poseImage.values.allSatisfy { $0.landmarks.count == 1 && $0.masks.count == 1 })
        #expect(results.handImage.values.allSatisfy { !$0.landmarks.isEmpty })
        // The legacy label map: index 0 is "Left", 1 is "Right" (Tasks: the opposite).
        for hand in results.handImage.values.flatMap(\.handedness) {
            let fields = hand[0].split(separator: " ")
            #expect(fields[2] == (fields[0] == "0" ? "Left" : "Right"))
        }
    }
}
