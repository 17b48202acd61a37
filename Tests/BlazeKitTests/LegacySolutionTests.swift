import BlazeKit
import Foundation
import Testing

/// The legacy graphs (`legacySolution`) as options of the landmarkers: what they refuse, and what they change.
@Suite struct LegacySolutionTests {
    typealias Shared = PythonParityFixtureTests

    @Test func theLegacyPoseGraphTracksOnePersonAndIsNotAnAccurateMode() throws {
        let options = PoseLandmarkerOptions()
        options.legacySolution = LegacyPoseSolution()
        options.numPoses = 2
        #expect(throws: TaskError.invalidOption(name: "numPoses", expected: "1 with legacySolution (the legacy graph tracks one person)",
                                                actual: "2")) { try PoseLandmarker(options: options) }
        options.numPoses = 1
        options.accurateMode = PoseAccurateMode()
        #expect(throws: TaskError.self) { try PoseLandmarker(options: options) }
        let hands = HandLandmarkerOptions()
        hands.legacySolution = LegacyHandSolution()
        hands.accurateMode = HandAccurateMode()
        #expect(throws: TaskError.self) { try HandLandmarker(options: hands) }
    }

    @Test func optionsAreCopiedAndDefaultToTheTasksGraph() {
        let options = PoseLandmarkerOptions()
        #expect(options.legacySolution == nil)
        options.legacySolution = LegacyPoseSolution(smoothLandmarks: false, smoothSegmentation: true, usesSolutionClock: false)
        let copy = PoseLandmarkerOptions()
        copy.copyOptions(from: options)
        #expect(copy.legacySolution == options.legacySolution)
        let hands = HandLandmarkerOptions()
        #expect(hands.legacySolution == nil)
        hands.legacySolution = LegacyHandSolution()
        let handCopy = HandLandmarkerOptions()
        handCopy.copyOptions(from: hands)
        #expect(handCopy.legacySolution != nil)
    }

    /// Same photo, both graphs: the same hand, the opposite label; the legacy hands are not deduplicated.
    @Test func legacyHandednessIsTheMirroredLabelOfTheSameClass() throws {
        let image = try Shared.photo("hand", "onehand10k_33.png")
        let tasks = try HandLandmarker(options: Shared.handOptions(.image)).detect(image: image)
        let legacyOptions = Shared.handOptions(.image)
        legacyOptions.legacySolution = LegacyHandSolution()
        let legacy = try HandLandmarker(options: legacyOptions).detect(image: image)
        #expect(!tasks.handedness.isEmpty && legacy.handedness.count >= tasks.handedness.count)
        let t = tasks.handedness[0][0], l = legacy.handedness[0][0]
        #expect(t.index == l.index)
        #expect(t.categoryName == (t.index == 0 ? "Right" : "Left"))
        #expect(l.categoryName == (l.index == 0 ? "Left" : "Right"))
    }

    /// The solution clock: in video, the filters see 33 333 µs a frame whatever the timestamps; without it they
    /// see the timestamps, so a clip stamped at another rate smooths differently.
    @Test func theSolutionClockIgnoresTheTimestamps() throws {
        let frames = try (0..<3).map { i in try panWindowFrame(i) }
        func run(clock: Bool, step: Int) throws -> [PoseLandmarkerResult] {
            let options = PoseLandmarkerOptions()
            options.runningMode = .video
            options.legacySolution = LegacyPoseSolution(usesSolutionClock: clock)
            let task = try PoseLandmarker(options: options)
            return try frames.enumerated().map { i, frame in
                var r = try task.detect(videoFrame: frame, timestampInMilliseconds: i * step)
                r.timestampInMilliseconds = 0
                return r
            }
        }
        let a = try run(clock: true, step: 33), b = try run(clock: true, step: 100)
        #expect(a == b)
        #expect(!a[2].landmarks.isEmpty)
        let c = try run(clock: false, step: 100)
        #expect(c[0] == a[0])
        #expect(c[2] != a[2])
    }

    /// Frame `i` of a 480×360 window moving 12 px a frame over the pose fixture photo.
    func panWindowFrame(_ i: Int) throws -> MPImage {
        let photo = try Shared.photo("pose", "mpii_052475643.png")
        let w = 480, h = 360, x0 = 40 + 12 * i, y0 = 60
        let src = photo.pixels
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<3 { out[(y * w + x) * 3 + c] = src[((y0 + y) * photo.width + x0 + x) * 3 + c] }
            }
        }
        return try MPImage(rgb: out, width: w, height: h)
    }
}
