import BlazeImage
import BlazeKit
import Foundation
import Testing

/// HolisticLandmarker against mediapipe 0.10.14's `mp.solutions.holistic.Holistic` (model_complexity 1) on committed
/// photos: `Fixtures/holistic/reference.json`, made by `Tools/fixtures/make_holistic_reference.py`.
@Suite struct HolisticLandmarkerTests {
    struct Reference: Decodable {
        struct Result: Decodable {
            var pose: [[Float]]?
            var left_hand: [[Float]]?
            var right_hand: [[Float]]?
            var face: [[Float]]?
            var photo: String?
            var refine: Bool?
        }
        struct Video: Decodable { var photo: String; var frames: [Result] }
        var image: [Result]
        var video: Video
    }

    static func reference() throws -> Reference {
        let url = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/holistic/reference.json")
        return try JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
    }

    /// `Tests/BlazeKitTests/Fixtures/...` → the bundled copy.
    static func photo(_ repoPath: String) throws -> Image {
        let relative = repoPath.replacingOccurrences(of: "Tests/BlazeKitTests/", with: "")
        return try Image(contentsOfPNGFile: Bundle.module.resourceURL!.appendingPathComponent(relative).path)
    }

    /// Largest and mean |Δx|, |Δy| of one part; records a failure when presence differs or the counts differ.
    static func difference(_ name: String, _ expected: [[Float]]?, _ actual: [NormalizedLandmark], context: String) -> (max: Float, mean: Float) {
        guard let expected else {
            #expect(actual.isEmpty, "\(context): \(name) found by BlazeKit, not by MediaPipe")
            return (0, 0)
        }
        #expect(actual.count == expected.count, "\(context): \(name) has \(actual.count) points, MediaPipe \(expected.count)")
        guard actual.count == expected.count else { return (.infinity, .infinity) }
        let d = zip(expected, actual).map { max(abs($0[0] - $1.x), abs($0[1] - $1.y)) }
        return (d.max() ?? 0, d.reduce(0, +) / Float(max(d.count, 1)))
    }

    static func parts(_ e: Reference.Result, _ r: HolisticLandmarkerResult) -> [(String, [[Float]]?, [NormalizedLandmark])] {
        [("pose", e.pose, r.poseLandmarks), ("left hand", e.left_hand, r.leftHandLandmarks),
         ("right hand", e.right_hand, r.rightHandLandmarks), ("face", e.face, r.faceLandmarks)]
    }

    @Test(arguments: [false, true]) func imageModeMatchesMediaPipe(refine: Bool) throws {
        let options = HolisticLandmarkerOptions()
        options.refineFaceLandmarks = refine
        let landmarker = try HolisticLandmarker(options: options)
        let cases = try Self.reference().image.filter { $0.refine == refine }
        #expect(cases.count == 5)
        for expected in cases {
            let result = try landmarker.detect(image: try Self.photo(expected.photo!))
            for (name, e, a) in Self.parts(expected, result) {
                let d = Self.difference(name, e, a, context: expected.photo!)
                #expect(d.max <= 0.002, "\(expected.photo!): \(name) off by \(d.max)")
            }
            if !result.poseLandmarks.isEmpty {
                #expect(result.poseWorldLandmarks.count == 33)
                #expect(result.leftHandWorldLandmarks.count == result.leftHandLandmarks.count)
                #expect(result.rightHandWorldLandmarks.count == result.rightHandLandmarks.count)
            }
        }
    }

    /// Image mode remembers nothing: the same photo gives the same result after another photo.
    @Test func imageModeForgetsThePreviousImage() throws {
        let landmarker = try HolisticLandmarker(options: HolisticLandmarkerOptions())
        let reference = try Self.reference()
        let first = try landmarker.detect(image: try Self.photo(reference.image[0].photo!))
        _ = try landmarker.detect(image: try Self.photo(reference.image[1].photo!))
        #expect(try landmarker.detect(image: try Self.photo(reference.image[0].photo!)) == first)
    }

    @Test func videoModeTracksAsMediaPipeDoes() throws {
        let reference = try Self.reference().video
        let options = HolisticLandmarkerOptions()
        options.runningMode = .video
        let landmarker = try HolisticLandmarker(options: options)
        let image = try Self.photo(reference.photo)
        for (i, expected) in reference.frames.enumerated() {
            let result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: i * 33)
            #expect(result.timestampInMilliseconds == i * 33)
            for (name, e, a) in Self.parts(expected, result) {
                let d = Self.difference(name, e, a, context: "frame \(i)")
                #expect(d.mean <= 0.003 && d.max <= 0.002, "frame \(i): \(name) off by \(d.max) (mean \(d.mean))")
            }
        }
    }

    /// With two threads a frame with both hands runs them side by side, one thread each, with the face detector
    /// before one and the mesh after the other, and a frame with one hand runs it beside the face; one thread runs
    /// the parts one after the other. The results are the same bits, in image and video mode.
    @Test func twoThreadsGiveTheOneThreadResults() throws {
        let reference = try Self.reference()
        let photos = Array(Set(reference.image.compactMap(\.photo))).sorted() + [reference.video.photo]
        var bothHandsAndFace = 0, oneHandAndFace = 0
        for mode in [RunningMode.image, .video] {
            var landmarkers: [HolisticLandmarker] = []
            for threads in [1, 2] {
                let options = HolisticLandmarkerOptions()
                options.runningMode = mode
                options.baseOptions.threadCount = threads
                landmarkers.append(try HolisticLandmarker(options: options))
            }
            for (i, path) in (photos + photos).enumerated() {
                let image = try Self.photo(path)
                let results = try landmarkers.map {
                    mode == .image ? try $0.detect(image: image) : try $0.detect(videoFrame: image, timestampInMilliseconds: i * 33)
                }
                #expect(results[0] == results[1], "\(mode) \(path): 2 threads differ from 1")
                let r = results[0]
                if !r.leftHandLandmarks.isEmpty && !r.rightHandLandmarks.isEmpty && !r.faceLandmarks.isEmpty { bothHandsAndFace += 1 }
                if r.leftHandLandmarks.isEmpty != r.rightHandLandmarks.isEmpty && !r.faceLandmarks.isEmpty { oneHandAndFace += 1 }
            }
        }
        #expect(bothHandsAndFace > 0, "no photo with both hands and a face: the hands-and-face side-by-side path was not run")
        #expect(oneHandAndFace > 0, "no photo with one hand and a face: the hand-beside-face path was not run")
    }

    final class Recorder: HolisticLandmarkerLiveStreamDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var results: [Int: HolisticLandmarkerResult] = [:]
        func holisticLandmarker(_ holisticLandmarker: HolisticLandmarker, didFinishDetection result: HolisticLandmarkerResult?,
                                timestampInMilliseconds: Int, error: (any Error)?) {
            lock.withLock { results[timestampInMilliseconds] = result }
        }
        func wait(for timestamp: Int) -> HolisticLandmarkerResult? {
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline {
                if let r = lock.withLock({ results[timestamp] }) { return r }
                usleep(2_000)
            }
            return nil
        }
    }

    /// Live stream, one frame at a time, gives what video mode gives.
    @Test func liveStreamGivesTheVideoResults() throws {
        let reference = try Self.reference().video
        let image = try Self.photo(reference.photo)
        let video = HolisticLandmarkerOptions()
        video.runningMode = .video
        let videoLandmarker = try HolisticLandmarker(options: video)
        let recorder = Recorder()
        let live = HolisticLandmarkerOptions()
        live.runningMode = .liveStream
        live.holisticLandmarkerLiveStreamDelegate = recorder
        let liveLandmarker = try HolisticLandmarker(options: live)
        for i in 0..<3 {
            let expected = try videoLandmarker.detect(videoFrame: image, timestampInMilliseconds: i * 33)
            try liveLandmarker.detectAsync(image: image, timestampInMilliseconds: i * 33)
            let got = recorder.wait(for: i * 33)
            #expect(got == expected, "frame \(i)")
            #expect(got?.faceLandmarks.count == 468)
        }
    }

    @Test func badOptionsAreNamed() throws {
        let options = HolisticLandmarkerOptions()
        options.minFaceLandmarksConfidence = 1.5
        #expect(throws: TaskError.invalidOption(name: "minFaceLandmarksConfidence", expected: "a value in [0, 1]", actual: "1.5")) {
            try HolisticLandmarker(options: options)
        }
        let live = HolisticLandmarkerOptions()
        live.runningMode = .liveStream
        #expect(throws: TaskError.invalidOption(name: "holisticLandmarkerLiveStreamDelegate", expected: "a delegate in running mode .liveStream",
                                                actual: "nil")) {
            try HolisticLandmarker(options: live)
        }
    }
}
