import BlazeStages
@testable import BlazeTracking
import Foundation
import Testing

/// The legacy graphs' loops (`pose_landmark_cpu.pbtxt`, `hand_landmark_tracking_cpu.pbtxt`) where they differ
/// from the Tasks graphs'.
@Suite struct LegacyTrackerTests {
    static func rect(_ x: Float, _ y: Float, _ size: Float = 0.2) -> NormalizedRect {
        NormalizedRect(xCenter: x, yCenter: y, width: size, height: size, rotation: 0)
    }

    /// Equal positions up to float rounding.
    static func close(_ a: [NormalizedLandmark], _ b: [NormalizedLandmark]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0.x - $1.x) < 1e-6 && abs($0.y - $1.y) < 1e-6 && abs($0.z - $1.z) < 1e-6 }
    }

    static func pose(visibility: Float, shift: Float = 0) -> PoseTracker.Pose {
        let landmarks = (0..<33).map { i in
            NormalizedLandmark(x: 0.3 + 0.01 * Float(i) + shift, y: 0.2 + 0.015 * Float(i), z: 0, visibility: visibility, presence: 0.9)
        }
        let world = (0..<33).map { i in Landmark(x: 0.01 * Float(i), y: -0.02 * Float(i), z: 0.1, visibility: visibility, presence: 0.9) }
        let aux = [NormalizedLandmark(x: 0.5 + shift, y: 0.6, z: 0, visibility: visibility, presence: 0.9),
                   NormalizedLandmark(x: 0.5 + shift, y: 0.3, z: 0, visibility: visibility, presence: 0.9)]
        return PoseTracker.Pose(landmarks: landmarks, worldLandmarks: world, auxiliaryLandmarks: aux)
    }

    @Test func handPalmsComeFirstATrackedRegionReplacesThePalmsItOverlapsAndNothingIsClipped() {
        var tracker = LegacyHandTracker(numHands: 2)
        // Frame 1: no tracked regions; the detector's regions are used as they come.
        let palms = [Self.rect(0.2, 0.2), Self.rect(0.8, 0.8)]
        #expect(tracker.regionsOfInterest { palms } == palms)
        // One hand tracked (its region drifted off both palms): the detector runs and its palms come first.
        let hand = handLandmarks(wrist: SIMD2(640, 360), angle: 0.3, w: 1280, h: 720)
        tracker.finishFrame(hands: [hand], imageWidth: 1280, imageHeight: 720)
        let tracked = tracker.trackedRegions
        #expect(tracked.count == 1)
        var ran = false
        let away = [Self.rect(0.1, 0.1, 0.1), Self.rect(0.9, 0.9, 0.1)]
        let regions = tracker.regionsOfInterest { ran = true; return away }
        #expect(ran)
        #expect(regions == away + tracked, "legacy: not limited to numHands (3 regions for 2 hands)")
        // A palm overlapping the tracked region by IoU > 0.5 is replaced by it, whatever its place.
        let overlapping = [tracked[0], Self.rect(0.1, 0.1, 0.1)]
        #expect(tracker.regionsOfInterest { overlapping } == [Self.rect(0.1, 0.1, 0.1), tracked[0]])
        // Two tracked hands: the detector does not run.
        tracker.finishFrame(hands: [hand, handLandmarks(wrist: SIMD2(200, 300), angle: -0.2, w: 1280, h: 720)],
                            imageWidth: 1280, imageHeight: 720)
        ran = false
        #expect(tracker.regionsOfInterest { ran = true; return palms }.count == 2)
        #expect(!ran && tracker.detectorRunCount == 3 && tracker.frameCount == 4)
    }

    @Test func poseUsesOnlyTheFirstDetectionThenTracksFromTheFilteredAuxiliaryLandmarks() {
        var tracker = LegacyPoseTracker(smoothsLandmarks: true)
        let detected = [Self.rect(0.3, 0.3), Self.rect(0.7, 0.7)]
        #expect(tracker.regionsOfInterest { detected } == [detected[0]])
        let ns: Int64 = 33_333_000
        let out = tracker.finishFrame(Self.pose(visibility: 1), imageWidth: 640, imageHeight: 480, timestampNanoseconds: ns)
        // The first frame passes through every filter (up to the pixel round trip x·W/W).
        #expect(Self.close(out!.landmarks, Self.pose(visibility: 1).landmarks))
        #expect(out!.worldLandmarks == Self.pose(visibility: 1).worldLandmarks)
        let next = tracker.trackedRegion
        #expect(next == NextFrameROI.pose(auxiliaryLandmarks: out!.auxiliaryLandmarks, imageWidth: 640, imageHeight: 480))
        var ran = false
        #expect(tracker.regionsOfInterest { ran = true; return detected } == [next!])
        #expect(!ran)
        // The second frame moves: the auxiliary landmarks that place the next region are filtered (0.01 / 10),
        // so the region lags behind the raw ones.
        let moved = Self.pose(visibility: 1, shift: 0.05)
        let second = tracker.finishFrame(moved, imageWidth: 640, imageHeight: 480, timestampNanoseconds: 2 * ns)!
        #expect(second.auxiliaryLandmarks[0].x < moved.auxiliaryLandmarks[0].x)
        #expect(second.auxiliaryLandmarks[0].x > 0.5)
        let raw = NextFrameROI.pose(auxiliaryLandmarks: moved.auxiliaryLandmarks, imageWidth: 640, imageHeight: 480)!
        #expect(tracker.trackedRegion!.xCenter < raw.xCenter)
    }

    @Test func aFrameWithoutAPoseResetsTheCoordinateFiltersButNotTheVisibilityFilters() {
        var tracker = LegacyPoseTracker(smoothsLandmarks: true)
        let ns: Int64 = 33_333_000
        _ = tracker.finishFrame(Self.pose(visibility: 1), imageWidth: 640, imageHeight: 480, timestampNanoseconds: ns)
        #expect(tracker.finishFrame(nil, imageWidth: 640, imageHeight: 480, timestampNanoseconds: 2 * ns) == nil)
        #expect(tracker.trackedRegion == nil)
        let moved = Self.pose(visibility: 0, shift: 0.05)
        let out = tracker.finishFrame(moved, imageWidth: 640, imageHeight: 480, timestampNanoseconds: 3 * ns)!
        // The one-euro filters of the landmarks start over (the frame without a pose reset them) ...
        #expect(Self.close(out.landmarks, moved.landmarks))
        #expect(Self.close(out.auxiliaryLandmarks, moved.auxiliaryLandmarks))
        // ... the visibility filters got no packet on that frame and blend with the pose before it: 0.1·0 + 0.9·1.
        #expect(out.landmarks.allSatisfy { $0.visibility == 0.9 })
        #expect(out.worldLandmarks.allSatisfy { $0.visibility == 0.9 })
    }

    @Test func withoutSmoothingOnlyTheAuxiliaryLandmarksAreFiltered() {
        var tracker = LegacyPoseTracker(smoothsLandmarks: false)
        let ns: Int64 = 33_333_000
        _ = tracker.finishFrame(Self.pose(visibility: 1), imageWidth: 640, imageHeight: 480, timestampNanoseconds: ns)
        let moved = Self.pose(visibility: 0.5, shift: 0.05)
        let out = tracker.finishFrame(moved, imageWidth: 640, imageHeight: 480, timestampNanoseconds: 2 * ns)!
        #expect(out.landmarks == moved.landmarks && out.worldLandmarks == moved.worldLandmarks)
        #expect(out.auxiliaryLandmarks != moved.auxiliaryLandmarks)
    }

    @Test func segmentationSmoothingBlendsUncertainPixelsWithTheLastSmoothedMask() {
        var smoother = SegmentationSmoother()
        let first: [Float] = [0.5, 1, 0, 0.2]
        #expect(smoother.smooth(first, width: 2, height: 2) == first)
        let second: [Float] = [0.5, 1, 0.5, 0.9]
        let out = smoother.smooth(second, width: 2, height: 2)
        // p = 0.5 is fully uncertain: p + (q − p)·0.7.
        #expect(out[0] == 0.5)
        #expect(abs(out[2] - (0.5 + (0 - 0.5) * 0.7)) < 1e-6)
        // p = 1 is certain (the polynomial reaches ≈ 1): it barely moves.
        #expect(abs(out[1] - 1) < 1e-4)
        // p = 0.9 is fairly certain: it moves a fifth of the way (0.7 × 0.22) toward the previous 0.2.
        #expect(out[3] > 0.78 && out[3] < 0.8)
        // The third mask blends with the smoothed second one, not the raw one.
        let third = smoother.smooth([0.5, 1, 0.5, 0.9], width: 2, height: 2)
        #expect(abs(third[2] - (0.5 + (out[2] - 0.5) * 0.7)) < 1e-6)
        // Another size starts over.
        #expect(smoother.smooth([0.2, 0.4], width: 2, height: 1) == [0.2, 0.4])
    }
}
