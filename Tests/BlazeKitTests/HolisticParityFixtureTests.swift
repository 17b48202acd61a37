import BlazeKit
import Foundation
import Testing

/// The Swift API's ``HolisticLandmarker`` results on fixture photos, committed as
/// `Python/tests/fixtures/swift_holistic_results.json`, which the Python package's `mp.solutions.holistic` tests
/// compare theirs with, bit for bit. `BLAZEKIT_WRITE_PARITY_FIXTURE=1 swift test --filter HolisticParityFixture`
/// rewrites the file after an intended change. Floats and masks as in ``PythonParityFixtureTests``; pose landmarks
/// as [x, y, z, visibility, presence], face and hand landmarks as [x, y, z] (what `mp.solutions.holistic` gives).
///
/// Each case is a `Holistic(...)` of the Python tests: IMAGE mode is `static_image_mode=True`; VIDEO mode feeds
/// the photo as three frames of its own stream (the second and third track the pose, hands and face).
@Suite struct HolisticParityFixtureTests {
    typealias Shared = PythonParityFixtureTests
    static let fixture = Shared.repo.appendingPathComponent("Python/tests/fixtures/swift_holistic_results.json")

    /// One `Holistic(...)` configuration: its name in the file says its arguments.
    struct Case {
        var name: String
        var video = false
        var lite = false
        var refine = false
        var segmentation = true
        var smoothing = true
        var photos: [(task: String, name: String)]
    }

    static let person = (task: "pose", name: "panoptic_ex2_2.flv_000040_l.png")   // all four parts
    static let oneHand = (task: "pose", name: "mpii_052475643.png")                 // no left hand
    static let cases = [
        Case(name: "static_image_mode=True, enable_segmentation=True", photos: [person, oneHand]),
        Case(name: "static_image_mode=True, enable_segmentation=True, refine_face_landmarks=True", refine: true, photos: [person, oneHand]),
        Case(name: "static_image_mode=True, model_complexity=0", lite: true, segmentation: false, photos: [person]),
        Case(name: "enable_segmentation=True", video: true, photos: [person]),
        Case(name: "model_complexity=0, enable_segmentation=True, refine_face_landmarks=True, smooth_landmarks=False, smooth_segmentation=False",
             video: true, lite: true, refine: true, smoothing: false, photos: [oneHand]),
    ]

    struct ResultJSON: Codable, Equatable {
        var pose: [[Float?]]
        var poseWorld: [[Float?]]
        var leftHand: [[Float]]
        var rightHand: [[Float]]
        var face: [[Float]]
        var mask: String?
    }

    static func options(_ c: Case) -> HolisticLandmarkerOptions {
        let o = HolisticLandmarkerOptions()
        o.runningMode = c.video ? .video : .image
        o.poseModel = c.lite ? .lite : .full
        o.refineFaceLandmarks = c.refine
        o.shouldOutputPoseSegmentationMasks = c.segmentation
        o.poseSmoothing = LegacyPoseSolution(smoothLandmarks: c.smoothing, smoothSegmentation: c.smoothing)
        return o
    }

    static func json(_ r: HolisticLandmarkerResult) -> ResultJSON {
        let xyz = { (l: [NormalizedLandmark]) in l.map { [$0.x, $0.y, $0.z] } }
        return ResultJSON(pose: r.poseLandmarks.map { Shared.point($0.x, $0.y, $0.z, $0.visibility, $0.presence) },
                          poseWorld: r.poseWorldLandmarks.map { Shared.point($0.x, $0.y, $0.z, $0.visibility, $0.presence) },
                          leftHand: xyz(r.leftHandLandmarks), rightHand: xyz(r.rightHandLandmarks), face: xyz(r.faceLandmarks),
                          mask: r.poseSegmentationMask.map { "\($0.width)x\($0.height):\(Shared.fnv1a($0.float32Data))" })
    }

    /// Case name → photo name → the photo's results (one in IMAGE mode, three in VIDEO mode).
    static func current() throws -> [String: [String: [ResultJSON]]] {
        var out: [String: [String: [ResultJSON]]] = [:]
        for c in cases {
            for photo in c.photos {
                let image = try Shared.photo(photo.task, photo.name)
                let landmarker = try HolisticLandmarker(options: options(c))   // one per photo: a stream of its own
                out[c.name, default: [:]][photo.name] = try c.video
                    ? Shared.videoTimestamps.map { json(try landmarker.detect(videoFrame: image, timestampInMilliseconds: $0)) }
                    : [json(try landmarker.detect(image: image))]
            }
        }
        return out
    }

    @Test func committedFixtureIsTheSwiftAPIsOutput() throws {
        let results = try Self.current()
        let committed = try Shared.committed(results, at: Self.fixture)
        #expect(committed == results, "Python/tests/fixtures/swift_holistic_results.json differs from the Swift API's results")
        // The cases cover what they are named for: every part on the person, no left hand on the other photo
        // (and, on its second frame without smoothing, no right hand either), the refined face, masks only with
        // segmentation.
        let all = results.values.flatMap(\.values).joined()
        #expect(all.allSatisfy { $0.pose.count == 33 && $0.poseWorld.count == 33 && [0, 21].contains($0.rightHand.count) })
        #expect(results.values.flatMap { $0[Self.person.name] ?? [] }.allSatisfy { $0.leftHand.count == 21 })
        #expect(results.values.flatMap { $0[Self.oneHand.name] ?? [] }.allSatisfy { $0.leftHand.isEmpty })
        for c in Self.cases {
            let rows = (results[c.name] ?? [:]).values.joined()
            #expect(rows.allSatisfy { $0.face.count == (c.refine ? 478 : 468) && ($0.mask != nil) == c.segmentation }, "\(c.name)")
        }
    }
}
