import BlazeKit
import Foundation
import Testing

/// The accurate mode in VIDEO mode: the tiled search is spread over frames (the whole image and 8 tiles
/// per frame while the detector must run), so the small people of ``AccurateModeTests``' wide frame are
/// found within the first frames of a slow pan over it, then tracked without the detector.
@Suite struct AccurateModeVideoTests {
    /// Frame `i` of a 1600×900 window panning right over the wide frame, 4 px per frame.
    static func panned(_ frame: Image, _ i: Int) throws -> Image {
        let w = 1600, h = 900, x0 = 40 + 4 * i, y0 = 90
        let source = frame.pixels
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            let from = ((y0 + y) * frame.width + x0) * 3
            out.replaceSubrange((y * w * 3)..<((y + 1) * w * 3), with: source[from..<(from + w * 3)])
        }
        return try Image(rgb: out, width: w, height: h)
    }

    @Test func findsThePeopleWithinAFewFramesAndKeepsThem() throws {
        let (frame, _) = try AccurateModeTests.wideFrame()
        let options = PoseLandmarkerOptions()
        options.runningMode = .video
        options.numPoses = 2
        options.accurateMode = PoseAccurateMode()
        let landmarker = try PoseLandmarker(options: options)
        let tiles = PoseAccurateMode().tileCount(width: 1600, height: 900)
        var counts: [Int] = []
        for i in 0..<30 {
            counts.append(try landmarker.detect(videoFrame: Self.panned(frame, i), timestampInMilliseconds: 33 * i).landmarks.count)
        }
        // Every tile has been searched after ceil(tiles / 8) frames: both people by then, and on every frame after.
        let searched = (tiles + 7) / 8
        #expect(counts[searched...].allSatisfy { $0 == 2 }, "poses per frame \(counts), \(tiles) tiles")
        // Tracked: once both are found the detector no longer runs.
        let runs = landmarker.trackingStatistics.detectorRuns
        #expect(runs <= searched + 1, "detector ran on \(runs) of 30 frames")
    }
}
