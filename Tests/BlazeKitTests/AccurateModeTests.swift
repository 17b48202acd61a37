@testable import BlazeKit
import BlazeTestSupport
import Foundation
import Testing

/// The accurate mode on a wide frame made at test time from the project's own photo: `pose/mpii_052475643.png`
/// (its people 302 px tall) halved (2×2 box average, 151 px) and pasted at (1200, 600) into a
/// flat grey 1920×1080 frame — the size at which MediaPipe's full-frame detector sees nobody. The photo has two
/// people (seated, side by side).
@Suite struct AccurateModeTests {
    static let origin = (x: 1200, y: 600)

    /// The wide frame, and MediaPipe's landmarks of the photo moved to where the person is in it.
    static func wideFrame() throws -> (Image, [SIMD2<Float>]) {
        let photo = try Image(contentsOfPNGFile: PoseReference.directory.appendingPathComponent("mpii_052475643.png").path)
        let w = 1920, h = 1080
        let frame = try pastedHalved(photo, at: origin, width: w, height: h)
        let reference = try #require(PoseReference.load("full").first { $0.image == "mpii_052475643.png" }?.poses.first)
        let expected = reference.landmarks.map {
            SIMD2(($0[0] * Float(photo.width) / 2 + Float(origin.x)) / Float(w), ($0[1] * Float(photo.height) / 2 + Float(origin.y)) / Float(h))
        }
        return (frame, expected)
    }

    static func landmarker(accurate: PoseAccurateMode?, threads: Int = 1) throws -> PoseLandmarker {
        let options = PoseLandmarkerOptions()
        options.numPoses = 3
        options.baseOptions.threadCount = threads
        options.accurateMode = accurate
        return try PoseLandmarker(options: options)
    }

    @Test func findsTheSmallPersonTheDefaultMisses() throws {
        let (frame, expected) = try Self.wideFrame()
        #expect(try Self.landmarker(accurate: nil).detect(image: frame).landmarks.isEmpty)
        let found = try Self.landmarker(accurate: PoseAccurateMode()).detect(image: frame).landmarks
        // Both men of the photo (MediaPipe's reference, made with one pose, has the one on the right).
        try #require(found.count == 2, "accurate mode found \(found.count) poses")
        // One pose within 3 % of the person's height (151 px) of MediaPipe's on average, in pixels of the frame.
        let errors = found.map { pose in
            zip(pose, expected).map { l, e in
                let dx = (l.x - e.x) * 1920, dy = (l.y - e.y) * 1080
                return (dx * dx + dy * dy).squareRoot()
            }.reduce(0, +) / 33
        }
        #expect(errors.min()! < 0.03 * 151, "mean landmark errors \(errors) px")
    }

    /// Visibility drops where the direct and mirrored passes disagree, so it stays in 0…1, and the plainly
    /// visible seated men keep most of theirs (their heads, shoulders and hips above 0.5).
    @Test func visibilityKeepsThePlainlyVisibleLandmarks() throws {
        let (frame, _) = try Self.wideFrame()
        let found = try Self.landmarker(accurate: PoseAccurateMode()).detect(image: frame).landmarks
        try #require(!found.isEmpty)
        for pose in found {
            let visibility = pose.map { $0.visibility ?? -1 }
            #expect(visibility.allSatisfy { (0...1).contains($0) })
            for name in [PoseLandmarkName.nose, .leftShoulder, .rightShoulder, .leftHip, .rightHip] {
                #expect(visibility[name.rawValue] > 0.5, "\(name) visibility \(visibility[name.rawValue])")
            }
        }
    }

    @Test func withoutTilesTheSmallPersonStaysMissed() throws {
        let (frame, _) = try Self.wideFrame()
        #expect(try Self.landmarker(accurate: PoseAccurateMode(tiledSearch: false)).detect(image: frame).landmarks.isEmpty)
    }

    @Test func sameResultsOnOneAndTwoThreads() throws {
        let (frame, _) = try Self.wideFrame()
        let one = try Self.landmarker(accurate: PoseAccurateMode(), threads: 1).detect(image: frame)
        let two = try Self.landmarker(accurate: PoseAccurateMode(), threads: 2).detect(image: frame)
        #expect(one.landmarks == two.landmarks && one.worldLandmarks == two.worldLandmarks)
    }

    /// The default mode is MediaPipe's: the option is nil unless set, and copies carry it.
    @Test func offByDefaultAndCopied() throws {
        let options = PoseLandmarkerOptions()
        #expect(options.accurateMode == nil)
        options.accurateMode = PoseAccurateMode(smallestPersonHeight: 60, flipAveraging: false)
        #expect(options.copy().accurateMode == options.accurateMode)
        options.accurateMode = PoseAccurateMode(smallestPersonHeight: 8)
        #expect(throws: TaskError.invalidOption(name: "accurateMode.smallestPersonHeight", expected: ">= 32", actual: "8")) {
            try PoseLandmarker(options: options)
        }
    }

    /// JSON round-trips, and JSON written before a part existed (no `maskedRetry` key) decodes with the part's
    /// default; a key of the wrong type is refused.
    @Test func codableKeepsOlderJSON() throws {
        let mode = PoseAccurateMode(smallestPersonHeight: 90, flipAveraging: false, maskedRetry: false)
        #expect(try JSONDecoder().decode(PoseAccurateMode.self, from: JSONEncoder().encode(mode)) == mode)
        let older = #"{"tiledSearch":true,"smallestPersonHeight":150,"rotatedSearch":false,"zoomedOutSearch":true,"refinement":true,"flipAveraging":true}"#
        let decoded = try JSONDecoder().decode(PoseAccurateMode.self, from: Data(older.utf8))
        #expect(decoded == PoseAccurateMode(smallestPersonHeight: 150, rotatedSearch: false))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(PoseAccurateMode.self, from: Data(#"{"smallestPersonHeight":"tall"}"#.utf8))
        }
        let hand = HandAccurateMode(smallestHandSize: 60, flipAveraging: false)
        #expect(try JSONDecoder().decode(HandAccurateMode.self, from: JSONEncoder().encode(hand)) == hand)
        #expect(try JSONDecoder().decode(HandAccurateMode.self, from: Data("{}".utf8)) == HandAccurateMode())
    }

    /// Parts turned off by their short names, as `blaze pose --accurate-off` gives them; an unknown name is refused.
    @Test func partsTurnedOffByName() throws {
        #expect(try PoseAccurateMode(smallestPersonHeight: 90, turningOff: "tiles, flip")
                == PoseAccurateMode(tiledSearch: false, smallestPersonHeight: 90, flipAveraging: false))
        #expect(try PoseAccurateMode(smallestPersonHeight: 120, turningOff: "") == PoseAccurateMode())
        #expect(try PoseAccurateMode(smallestPersonHeight: 120, turningOff: "masked-retry") == PoseAccurateMode(maskedRetry: false))
        #expect(try PoseAccurateMode(smallestPersonHeight: 120, turningOff: "zoom-in,zoom-out")
                == PoseAccurateMode(zoomedOutSearch: false, zoomedInSearch: false))
        #expect(throws: TaskError.invalidOption(name: "accurate mode part", expected: "one of tiles, rotations, zoom-out, zoom-in, refine, flip, masked-retry",
                                                actual: "'everything'")) {
            try PoseAccurateMode(smallestPersonHeight: 120, turningOff: "tiles,everything")
        }
    }

    /// The tile pyramid of a 1080p frame at the default smallest height: 35 tiles of 360 px and 8 of 720 px;
    /// none on a photo smaller than the smallest tile; more for smaller people. A 640×480 photo is searched
    /// for people of 80 px (a sixth of its short side): 12 tiles of 240 px.
    @Test func tileCounts() {
        #expect(PoseAccurateMode().searchedPersonHeight(width: 1920, height: 1080) == 120)
        #expect(PoseAccurateMode().searchedPersonHeight(width: 640, height: 480) == 80)
        #expect(PoseAccurateMode().searchedPersonHeight(width: 200, height: 150) == 64)
        #expect(PoseAccurateMode(smallestPersonHeight: 60).searchedPersonHeight(width: 640, height: 480) == 60)
        #expect(PoseAccurateMode().tileCount(width: 640, height: 480) == 12)
        #expect(PoseAccurateMode().tileCount(width: 1920, height: 1080) == 43)
        #expect(PoseAccurateMode().tileCount(width: 100, height: 200) == 0)
        // A photo without tiles that yields no one: zoomed-in tiles of a third and two thirds of its short side,
        // neighbours overlapping by half (5 × 7 of 50 px, 2 × 3 of 100 px).
        #expect(AccuratePosePipeline.zoomedInTiles(width: 150, height: 196).count == 35 + 6)
        #expect(PoseAccurateMode(smallestPersonHeight: 60).tileCount(width: 1920, height: 1080) > 43)
        #expect(PoseAccurateMode(tiledSearch: false).tileCount(width: 1920, height: 1080) == 0)
    }

    /// A small photo that a person fills: `pose/coco_000000040083.png`'s skier (137 px), cropped to MediaPipe's
    /// landmarks with 4 px around them and halved (62×73). No tile fits in it, and neither the whole-image,
    /// rotated nor zoomed-out passes find him; the zoomed-in search does, where MediaPipe's landmarks put him.
    @Test func zoomedInSearchFindsWhoFillsASmallPhoto() throws {
        let photo = try fixturePhoto("pose/coco_000000040083.png")
        let reference = try #require(PoseReference.load("full").first { $0.image == "coco_000000040083.png" }?.poses.first)
        let xs = reference.landmarks.map { $0[0] * Float(photo.width) }, ys = reference.landmarks.map { $0[1] * Float(photo.height) }
        let x = Int(xs.min()!) - 4, y = Int(ys.min()!) - 4
        let small = try croppedShrunk(photo, x: x, y: y, width: Int(xs.max()!) + 5 - x, height: Int(ys.max()!) + 5 - y, factor: 2)
        #expect(small.width == 62 && small.height == 73)
        #expect(PoseAccurateMode().tileCount(width: small.width, height: small.height) == 0)
        let without = try Self.landmarker(accurate: PoseAccurateMode(zoomedInSearch: false)).detect(image: small).landmarks
        #expect(without.isEmpty, "found \(without.count) without the zoomed-in search")
        let found = try Self.landmarker(accurate: PoseAccurateMode()).detect(image: small).landmarks
        try #require(found.count == 1, "found \(found.count) with it")
        // Within 15 % of his height of MediaPipe's landmarks on the whole photo (body landmarks, mean; 10 % here).
        let height = Float(small.height)
        let error = [0, 11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28].map { i -> Float in
            let ex = (xs[i] - Float(x)) / 2, ey = (ys[i] - Float(y)) / 2
            let dx = found[0][i].x * Float(small.width) - ex, dy = found[0][i].y * height - ey
            return (dx * dx + dy * dy).squareRoot()
        }.reduce(0, +) / 13
        #expect(error < 0.15 * height, "mean body landmark error \(error) px in a \(height) px photo")
    }
}
