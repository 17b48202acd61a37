import BlazeKit
import BlazeTestSupport
import Foundation
import Testing

/// The accurate mode in VIDEO mode: the tiled search is spread over frames (the whole image and 8 tiles
/// per frame while the detector must run), so the small people of ``AccurateModeTests``' wide frame are
/// found within the first frames of a slow pan over it, then tracked without the detector.
@Suite struct AccurateModeVideoTests {
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
            counts.append(try landmarker.detect(videoFrame: panWindow(over: frame, frame: i), timestampInMilliseconds: 33 * i).landmarks.count)
        }
        // Every tile has been searched after ceil(tiles / 8) frames: both people by then, and on every frame after.
        let searched = (tiles + 7) / 8
        #expect(counts[searched...].allSatisfy { $0 == 2 }, "poses per frame \(counts), \(tiles) tiles")
        // Tracked: once both are found the detector no longer runs.
        let runs = landmarker.trackingStatistics.detectorRuns
        #expect(runs <= searched + 1, "detector ran on \(runs) of 30 frames")
    }
}
