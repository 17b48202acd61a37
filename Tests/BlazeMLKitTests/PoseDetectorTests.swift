import BlazeKit
import BlazeMLKit
import BlazeRuntime
import BlazeTestSupport
import Foundation
import Testing

/// The stored pixels that display as `upright` under `orientation`.
func stored(_ upright: Image, displayedWith orientation: ImageOrientation) throws -> Image {
    let inverse: [ImageOrientation: ImageOrientation] = [.up: .up, .down: .down, .left: .right, .right: .left,
                                                         .upMirrored: .upMirrored, .downMirrored: .downMirrored,
                                                         .leftMirrored: .leftMirrored, .rightMirrored: .rightMirrored]
    var image = upright
    image.orientation = inverse[orientation]!
    var out = try image.oriented()
    out.orientation = orientation
    return out
}

/// Results gathered from several threads.
final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(Int, Result<[Pose], any Error>)] = []
    func append(_ i: Int, _ result: Result<[Pose], any Error>) { lock.withLock { items.append((i, result)) } }
    var sorted: [(Int, Result<[Pose], any Error>)] { lock.withLock { items.sorted { $0.0 < $1.0 } } }
}

@Suite(.serialized) struct PoseDetectorTests {
    let photo: Image

    init() throws { photo = try fixturePhoto("pose/mpii_052475643.png") }

    func singleImage(_ options: CommonPoseDetectorOptions) -> PoseDetector {
        options.detectorMode = .singleImage
        return PoseDetector.poseDetector(options: options)
    }

    @Test func singleImageGivesPoseLandmarkerLandmarksInPixels() throws {
        for (options, model) in [(PoseDetectorOptions() as CommonPoseDetectorOptions, PoseLandmarkerModel.lite),
                                 (AccuratePoseDetectorOptions(), .full)] {
            let poses = try singleImage(options).results(in: VisionImage(image: photo))
            let o = PoseLandmarkerOptions()
            o.model = model
            let expected = try PoseLandmarker(options: o).detect(image: photo).landmarks
            try #require(poses.count == 1 && expected.count == 1)
            #expect(poses[0].landmarks.map(\.type) == PoseLandmarkType.allCases)
            for (l, e) in zip(poses[0].landmarks, expected[0]) {
                #expect(l.position.x == CGFloat(e.x) * CGFloat(photo.width))
                #expect(l.position.y == CGFloat(e.y) * CGFloat(photo.height))
                #expect(l.position.z == CGFloat(e.z) * CGFloat(photo.width))
                #expect(l.inFrameLikelihood == e.presence)
            }
            #expect(poses[0].landmark(ofType: .leftAnkle) == poses[0].landmarks[27])
        }
    }

    @Test func theDefaultModeIsStreamAndTracksAcrossCalls() throws {
        #expect(PoseDetectorOptions().detectorMode == .stream)
        let stream = PoseDetector.poseDetector(options: AccuratePoseDetectorOptions())
        let still = try singleImage(AccuratePoseDetectorOptions()).results(in: VisionImage(image: photo))
        for _ in 0..<3 {
            let poses = try stream.results(in: VisionImage(image: photo))
            try #require(poses.count == 1)
            // Tracking crops from the previous landmarks, so positions move a little, not more.
            let d = zip(poses[0].landmarks, still[0].landmarks).map { abs($0.position.x - $1.position.x) + abs($0.position.y - $1.position.y) }
            #expect(d.reduce(0, +) / CGFloat(d.count) < 0.02 * CGFloat(photo.width))
        }
    }

    @Test func nobodyGivesAnEmptyArray() throws {
        let grey = try Image(rgb: [UInt8](repeating: 128, count: 320 * 240 * 3), width: 320, height: 240)
        #expect(try singleImage(PoseDetectorOptions()).results(in: VisionImage(image: grey)).isEmpty)
    }

    @Test func everyOrientationIsReportedInTheUprightImage() throws {
        let detector = singleImage(PoseDetectorOptions())
        let upright = try detector.results(in: VisionImage(image: photo))
        try #require(upright.count == 1)
        for orientation in ImageOrientation.allCases where orientation != .up {
            let pixels = try stored(photo, displayedWith: orientation)
            #expect(pixels.pixels != photo.pixels)
            let image = VisionImage(image: pixels)
            image.orientation = orientation
            // The detector sees exactly the upright pixels, so the answer is the same, mirrored ones included.
            #expect(try detector.results(in: image) == upright, "\(orientation)")
        }
    }

    @Test func aPersonCutOffByTheFrameHasLandmarksOutsideItWithLowLikelihood() throws {
        // Keep the top 45 % of the photo: the legs leave the frame.
        let h = photo.height * 45 / 100
        let top = try Image(rgb: Array(photo.pixels[0..<(photo.width * h * 3)]), width: photo.width, height: h)
        let poses = try singleImage(AccuratePoseDetectorOptions()).results(in: VisionImage(image: top))
        try #require(poses.count == 1)
        for type in [PoseLandmarkType.leftAnkle, .rightAnkle] {
            let l = poses[0].landmark(ofType: type)
            #expect(l.position.y > CGFloat(h), "\(type) at \(l.position.y), frame height \(h)")
            #expect(l.inFrameLikelihood < 0.5, "\(type) likelihood \(l.inFrameLikelihood)")
        }
        #expect(poses[0].landmark(ofType: .nose).inFrameLikelihood > 0.9)
    }

    @Test @MainActor func processCallsTheCompletionOnTheMainQueueWithTheSamePoses() async throws {
        let detector = singleImage(PoseDetectorOptions())
        let expected = try detector.results(in: VisionImage(image: photo))
        let image = VisionImage(image: photo)
        let delivered = await waitForCallback(seconds: 600) { done in
            detector.process(image) { poses, error in done((poses, error.map { "\($0)" }, isOnMainQueue())) }
        }
        let (poses, error, onMainQueue) = try #require(delivered, "the completion was not called within 600 s")
        #expect(error == nil)
        #expect(poses == expected)
        #expect(onMainQueue)
    }

    @Test func theAsyncFormNeedsNoMainQueueAndGivesTheSamePoses() async throws {
        let detector = singleImage(AccuratePoseDetectorOptions())
        let image = VisionImage(image: photo)
        let expected = try detector.results(in: image)
        try #require(expected.count == 1)
        #expect(try await detector.process(image) == expected)
    }

    @Test @MainActor func theImageIsReadWhenProcessIsCalled() async throws {
        // Changing the orientation after `process` returns must not change what it detects.
        let detector = singleImage(PoseDetectorOptions())
        let upright = try detector.results(in: VisionImage(image: photo))
        let image = VisionImage(image: photo)
        let delivered = await waitForCallback(seconds: 600) { done in
            detector.process(image) { poses, _ in done(poses) }
            image.orientation = .down
        }
        let poses = try #require(delivered, "the completion was not called within 600 s")
        #expect(poses == upright)
        #expect(try detector.results(in: image) != upright)
    }

    @Test func aBadOptionIsThrownByEveryCall() async throws {
        let options = PoseDetectorOptions()
        options.threadCount = 0
        let detector = PoseDetector.poseDetector(options: options)
        let expected = TaskError.invalidOption(name: "baseOptions.threadCount", expected: "1...64", actual: "0")
        #expect(throws: expected) { try detector.results(in: VisionImage(image: photo)) }
        await #expect(throws: expected) { try await detector.process(VisionImage(image: photo)) }
        let image = VisionImage(image: photo)
        let failure = await waitForCallback(seconds: 600) { done in
            detector.process(image) { poses, error in done(poses == nil && (error as? TaskError) == expected) }
        }
        #expect(failure == true)
    }

    @Test func oneDetectorServesSeveralThreadsAtOnce() throws {
        // Image mode: every thread gets exactly the sequential answer. Stream mode: every call finds the
        // person (its calls are serialized in timestamp order, so the landmarker never rejects one).
        let still = singleImage(PoseDetectorOptions())
        let expected = try still.results(in: VisionImage(image: photo))
        try #require(expected.count == 1)
        let stream = PoseDetector.poseDetector(options: PoseDetectorOptions())
        let shared = VisionImage(image: photo)
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 9) { i in
            guard i < 8 else {
                // Meanwhile another thread keeps setting the shared image's orientation (to the same value).
                for _ in 0..<1000 { shared.orientation = .up }
                return
            }
            let detector = i % 2 == 0 ? still : stream
            results.append(i, Result { try detector.results(in: i % 4 < 2 ? shared : VisionImage(image: photo)) })
        }
        let all = results.sorted
        #expect(all.count == 8)
        for (i, outcome) in all {
            let poses = try outcome.get()
            if i % 2 == 0 { #expect(poses == expected, "thread \(i)") } else { #expect(poses.count == 1, "thread \(i)") }
        }
    }

    /// The README's port of ML Kit's iOS guide snippet, compiled and run.
    @Test func readmeSnippetRuns() throws {
        let uiImage = photo
        var found: CGPoint?
        func detect() {
            // Base pose detector with streaming.
            let options = PoseDetectorOptions()
            options.detectorMode = .stream
            let poseDetector = PoseDetector.poseDetector(options: options)

            let image = VisionImage(image: uiImage)
            image.orientation = uiImage.orientation

            var results: [Pose]?
            do {
                results = try poseDetector.results(in: image)
            } catch let error {
                print("Failed to detect pose with error: \(error.localizedDescription).")
                return
            }
            guard let detectedPoses = results, !detectedPoses.isEmpty else {
                print("Pose detector returned no results.")
                return
            }
            for pose in detectedPoses {
                let leftAnkleLandmark = pose.landmark(ofType: .leftAnkle)
                if leftAnkleLandmark.inFrameLikelihood > 0.5 {
                    let position = leftAnkleLandmark.position
                    found = CGPoint(x: position.x, y: position.y)
                }
            }
        }
        detect()
        let ankle = try #require(found)
        #expect(ankle.x > 0 && ankle.x < CGFloat(photo.width) && ankle.y > CGFloat(photo.height) / 2)
    }
}

/// ML Kit's detector with BlazeKit's accurate mode: the photo's people at half size in a wide grey frame,
/// too small for MediaPipe's detector, are found (one pose, ML Kit's limit) where they are.
@Suite struct PoseDetectorAccurateModeTests {
    @Test func findsTheSmallPersonOnlyWithTheOption() throws {
        let frame = try pastedHalved(try fixturePhoto("pose/mpii_052475643.png"), at: (x: 1200, y: 600))
        for accurate in [false, true] {
            let options = AccuratePoseDetectorOptions()
            options.detectorMode = .singleImage
            options.accurateMode = accurate ? PoseAccurateMode() : nil
            let poses = try PoseDetector.poseDetector(options: options).results(in: VisionImage(image: frame))
            #expect(poses.count == (accurate ? 1 : 0))
            if let nose = poses.first?.landmark(ofType: .nose) {
                // The photo (854×480, halved) covers x 1200–1627, y 600–840 of the frame.
                #expect((1200...1627).contains(nose.position.x) && (600...840).contains(nose.position.y), "nose at \(nose.position)")
            }
        }
    }
}

/// ML Kit's options with BlazeKit's kernel planning: both networks of the detector are planned as it says.
@Suite struct PoseDetectorKernelPlanningTests {
    @Test func bothNetworksArePlannedAsTheOptionSays() throws {
        for planning in [Planning.fixed, .measured] {
            let options = PoseDetectorOptions()
            options.kernelPlanning = planning
            let sessions = reachableObjects(InferenceSession.self, from: PoseDetector.poseDetector(options: options))
            #expect(sessions.count == 2 && sessions.allSatisfy { $0.options.planning == planning }, "\(planning): \(sessions.map(\.options))")
        }
    }
}
