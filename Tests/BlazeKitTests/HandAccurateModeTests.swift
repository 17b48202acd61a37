import BlazeKit
import BlazeTestSupport
import Foundation
import Testing

/// The hand accurate mode on a wide frame made at test time from the project's own photo:
/// `hand/onehand10k_1402.png` (226×339, one right hand 186 px in size, the longer side of its landmarks'
/// box) halved (2×2 box average: a 93 px hand) and pasted at (1300, 700) into a flat grey 1920×1080
/// frame — a hand under a tenth of the frame's long side, which MediaPipe's full-frame palm detector misses.
@Suite struct HandAccurateModeTests {
    static let origin = (x: 1300, y: 700)
    static let photoName = "onehand10k_1402.png"

    /// The wide frame, MediaPipe's landmarks of the photo's hand moved to where the hand is in it
    /// (normalized to the frame), and the hand's size in the frame, in pixels.
    static func wideFrame() throws -> (frame: Image, expected: [SIMD2<Float>], handSize: Float) {
        let photo = try Image(contentsOfPNGFile: HandReference.directory.appendingPathComponent(photoName).path)
        let w = 1920, h = 1080
        let frame = try pastedHalved(photo, at: origin, width: w, height: h)
        let reference = try #require(HandReference.load("full").first { $0.image == photoName }?.hands.first)
        let inFrame = reference.landmarks.map {
            SIMD2($0[0] * Float(photo.width) / 2 + Float(origin.x), $0[1] * Float(photo.height) / 2 + Float(origin.y))
        }
        let xs = inFrame.map(\.x), ys = inFrame.map(\.y)
        let size = max(xs.max()! - xs.min()!, ys.max()! - ys.min()!)
        return (frame, inFrame.map { $0 / SIMD2(Float(w), Float(h)) }, size)
    }

    static func landmarker(accurate: HandAccurateMode?, threads: Int = 1) throws -> HandLandmarker {
        let options = HandLandmarkerOptions()
        options.numHands = 2
        options.baseOptions.threadCount = threads
        options.accurateMode = accurate
        return try HandLandmarker(options: options)
    }

    /// The mean distance, in pixels of the 1920×1080 frame, between a hand's landmarks and `expected`.
    static func meanError(_ hand: [NormalizedLandmark], _ expected: [SIMD2<Float>]) -> Float {
        zip(hand, expected).map { l, e in
            let dx = (l.x - e.x) * 1920, dy = (l.y - e.y) * 1080
            return (dx * dx + dy * dy).squareRoot()
        }.reduce(0, +) / Float(expected.count)
    }

    @Test func defaultModeMissesTheSmallHand() throws {
        let (frame, _, _) = try Self.wideFrame()
        #expect(try Self.landmarker(accurate: nil).detect(image: frame).landmarks.isEmpty)
    }

    @Test func findsTheSmallHandTheDefaultMisses() throws {
        let (frame, expected, handSize) = try Self.wideFrame()
        let result = try Self.landmarker(accurate: HandAccurateMode()).detect(image: frame)
        // One hand: the photo's only one (no duplicate from the overlapping tiles).
        try #require(result.landmarks.count == 1, "accurate mode found \(result.landmarks.count) hands")
        #expect(result.handedness[0].first?.categoryName == "Right")
        // Within 4 % of the hand's size (93 px) of MediaPipe's landmarks on the photo, on average.
        let error = Self.meanError(result.landmarks[0], expected)
        #expect(error < 0.04 * handSize, "mean landmark error \(error) px, hand \(handSize) px")
    }

    @Test func withoutTilesTheSmallHandStaysMissed() throws {
        let (frame, _, _) = try Self.wideFrame()
        #expect(try Self.landmarker(accurate: HandAccurateMode(tiledSearch: false)).detect(image: frame).landmarks.isEmpty)
    }

    /// The default mode is MediaPipe's: the option is nil unless set, and copies carry it; a smallest hand
    /// size under 24 px is refused when the landmarker is made.
    @Test func offByDefaultCopiedAndChecked() throws {
        let options = HandLandmarkerOptions()
        #expect(options.accurateMode == nil)
        options.accurateMode = HandAccurateMode(smallestHandSize: 48, refinement: true)
        #expect(options.copy().accurateMode == options.accurateMode)
        options.accurateMode = HandAccurateMode(smallestHandSize: 8)
        #expect(throws: TaskError.invalidOption(name: "accurateMode.smallestHandSize", expected: ">= 24", actual: "8")) {
            try HandLandmarker(options: options)
        }
    }

    /// Parts turned on and off by their short names, as `blaze hand --accurate-on` and `--accurate-off` give
    /// them (off last); an unknown name is refused.
    @Test func partsTurnedOffByName() throws {
        #expect(try HandAccurateMode(smallestHandSize: 60, turningOff: "tiles, flip")
                == HandAccurateMode(tiledSearch: false, smallestHandSize: 60, flipAveraging: false))
        #expect(try HandAccurateMode(smallestHandSize: 80, turningOn: "refine", turningOff: "") == HandAccurateMode(refinement: true))
        #expect(try HandAccurateMode(smallestHandSize: 80, turningOn: "refine", turningOff: "refine") == HandAccurateMode())
        #expect(try HandAccurateMode(smallestHandSize: 80, turningOff: "") == HandAccurateMode())
        #expect(throws: TaskError.invalidOption(name: "hand accurate mode part", expected: "one of tiles, refine, flip",
                                                actual: "'everything'")) {
            try HandAccurateMode(smallestHandSize: 80, turningOff: "tiles,everything")
        }
    }

    /// The tile pyramid of a 1080p frame at the default smallest size (80 px): 40 tiles of 320 px, 8 of
    /// 640 px, 3 of 1080 px; none on a photo whose long side is under the smallest tile / 0.75; more for
    /// smaller hands.
    @Test func tileCounts() {
        #expect(HandAccurateMode().tileCount(width: 1920, height: 1080) == 51)
        #expect(HandAccurateMode().tileCount(width: 400, height: 300) == 0)
        #expect(HandAccurateMode(smallestHandSize: 40).tileCount(width: 1920, height: 1080) > 51)
        #expect(HandAccurateMode(tiledSearch: false).tileCount(width: 1920, height: 1080) == 0)
    }
}

/// The hand accurate mode in VIDEO mode: the tiled search is spread over frames (the whole image and 8
/// tiles per frame while the detector must run), so the small hand of ``HandAccurateModeTests``' wide
/// frame is found within the first frames of a slow pan over it, then tracked without the detector.
@Suite struct HandAccurateModeVideoTests {
    @Test func findsTheHandWithinAFewFramesAndKeepsIt() throws {
        let (frame, _, _) = try HandAccurateModeTests.wideFrame()
        let options = HandLandmarkerOptions()
        options.runningMode = .video
        options.accurateMode = HandAccurateMode()
        let landmarker = try HandLandmarker(options: options)
        let tiles = HandAccurateMode().tileCount(width: 1600, height: 900)
        let searched = (tiles + 7) / 8
        var counts: [Int] = []
        for i in 0..<(searched + 4) {
            counts.append(try landmarker.detect(videoFrame: panWindow(over: frame, frame: i), timestampInMilliseconds: 33 * i).landmarks.count)
        }
        // Every tile has been searched after ceil(tiles / 8) frames: the hand by then, and on every frame after.
        #expect(counts[searched...].allSatisfy { $0 == 1 }, "hands per frame \(counts), \(tiles) tiles")
        // Tracked: once found the detector no longer runs.
        let runs = landmarker.trackingStatistics.detectorRuns
        #expect(runs <= searched + 1, "detector ran on \(runs) of \(counts.count) frames")
    }
}
