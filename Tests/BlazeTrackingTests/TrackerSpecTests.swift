import BlazeStages
@testable import BlazeTracking
import Foundation
import Testing

/// `PoseTracker` with synthetic detector closures and poses on 640 × 360
/// (`mediapipe/tasks/cc/vision/pose_landmarker/pose_landmarker_graph.cc`, smoothing in
/// `pose_landmarks_detector_graph.cc`).
@Suite struct PoseTrackerSpecTests {
    static let w = 640, h = 360

    /// A two-landmark pose around `(cx, cy)` px whose auxiliary landmarks are `aux0 = (cx, cy)` and
    /// `aux1 = aux0 + (0, −auxDistance)` px: next-frame ROI centred on aux0, 2.5·auxDistance px square, rotation 0.
    static func pose(_ cx: Double, _ cy: Double, auxDistance: Double = 80, visibility: Float = 0.9) -> PoseTracker.Pose {
        func n(_ x: Double, _ y: Double) -> NormalizedLandmark {
            NormalizedLandmark(x: Float(x / 640), y: Float(y / 360), z: 0, visibility: visibility, presence: 0.75)
        }
        return PoseTracker.Pose(landmarks: [n(cx, cy - 50), n(cx + 20, cy + 40)],
                                worldLandmarks: [Landmark(x: Float(cx / 1000), y: -0.2, z: 0.1, visibility: visibility),
                                                 Landmark(x: 0.1, y: 0.3, z: 0, visibility: visibility)],
                                auxiliaryLandmarks: [NormalizedLandmark(x: Float(cx / 640), y: Float(cy / 360)),
                                                     NormalizedLandmark(x: Float(cx / 640), y: Float((cy - auxDistance) / 360))])
    }

    /// Checks `r` is the ROI `pose(cx, cy, auxDistance:)` should produce.
    static func isROI(_ r: NormalizedRect, _ cx: Double, _ cy: Double, auxDistance: Double = 80) -> Bool {
        let side = 2 * auxDistance * 1.25
        return approx(Double(r.xCenter) * 640, cx, 1e-5) && approx(Double(r.yCenter) * 360, cy, 1e-5)
            && approx(Double(r.width) * 640, side, 1e-5) && approx(Double(r.height) * 360, side, 1e-5) && abs(r.rotation) < 1e-6
    }

    static let detA = NormalizedRect(xCenter: 0.3, yCenter: 0.5, width: 0.3, height: 0.5)
    static let detB = NormalizedRect(xCenter: 0.8, yCenter: 0.5, width: 0.2, height: 0.3)

    @Test func theDetectorRunsOnTheFirstFrameNotWhileTrackedAndAgainAfterALoss() throws {
        var tracker = PoseTracker(numPoses: 1, minTrackingConfidence: 0.5)
        var calls = 0
        // Frame 1: nothing tracked, the detector runs; its two regions are clipped to numPoses = 1.
        let r1 = tracker.regionsOfInterest { calls += 1; return [Self.detA, Self.detB] }
        #expect(r1 == [Self.detA] && calls == 1)
        #expect(tracker.frameCount == 1 && tracker.detectorRunCount == 1)
        _ = tracker.finishFrame([Self.pose(200, 180)], imageWidth: Self.w, imageHeight: Self.h, timestampMilliseconds: 0)
        #expect(tracker.trackedRegions.count == 1 && Self.isROI(tracker.trackedRegions[0], 200, 180))

        // Frames 2 and 3: one pose tracked = numPoses: no detector; the region comes from the last landmarks.
        let r2 = tracker.regionsOfInterest { calls += 1; return [Self.detB] }
        #expect(r2 == tracker.trackedRegions && calls == 1)
        _ = tracker.finishFrame([Self.pose(210, 185, auxDistance: 100)], imageWidth: Self.w, imageHeight: Self.h,
                                timestampMilliseconds: 33)
        #expect(Self.isROI(tracker.trackedRegions[0], 210, 185, auxDistance: 100))
        let r3 = tracker.regionsOfInterest { calls += 1; return [Self.detB] }
        #expect(r3.count == 1 && Self.isROI(r3[0], 210, 185, auxDistance: 100) && calls == 1)
        #expect(tracker.frameCount == 3 && tracker.detectorRunCount == 1)

        // Frame 3 finds no pose: nothing tracked, so frame 4 runs the detector again.
        #expect(tracker.finishFrame([], imageWidth: Self.w, imageHeight: Self.h, timestampMilliseconds: 66).isEmpty)
        #expect(tracker.trackedRegions.isEmpty)
        let r4 = tracker.regionsOfInterest { calls += 1; return [Self.detB] }
        #expect(r4 == [Self.detB] && calls == 2)
        #expect(tracker.frameCount == 4 && tracker.detectorRunCount == 2)
        // The detector finding nothing leaves no region.
        #expect(tracker.regionsOfInterest { calls += 1; return [] }.isEmpty && calls == 3)
    }

    @Test func withTwoPosesTheDetectorRunsWhileFewerAreTrackedAndItsRegionsReplaceOverlaps() {
        var tracker = PoseTracker(numPoses: 2, minTrackingConfidence: 0.5)
        var calls = 0
        #expect(tracker.regionsOfInterest { calls += 1; return [Self.detA, Self.detB] } == [Self.detA, Self.detB])
        _ = tracker.finishFrame([Self.pose(200, 180), Self.pose(500, 200)], imageWidth: Self.w, imageHeight: Self.h,
                                timestampMilliseconds: 0)
        #expect(tracker.trackedRegions.count == 2)
        #expect(Self.isROI(tracker.trackedRegions[0], 200, 180) && Self.isROI(tracker.trackedRegions[1], 500, 200))
        // Two tracked: no detector.
        let tracked = tracker.trackedRegions
        #expect(tracker.regionsOfInterest { calls += 1; return [Self.detB] } == tracked && calls == 1)

        // Only one pose found: one tracked < 2, the detector runs again.
        _ = tracker.finishFrame([Self.pose(200, 180)], imageWidth: Self.w, imageHeight: Self.h, timestampMilliseconds: 33)
        let t = tracker.trackedRegions[0]   // 200 × 200 px around (200, 180)
        // far: well away from t; overlapping: t nudged by 4 px (IoU ≈ 0.96 > 0.5); another far one.
        let far = NormalizedRect(xCenter: 0.8, yCenter: 0.5, width: 0.1, height: 0.1)
        let overlapping = NormalizedRect(xCenter: t.xCenter + 4.0 / 640, yCenter: t.yCenter, width: t.width, height: t.height)
        let far2 = NormalizedRect(xCenter: 0.8, yCenter: 0.1, width: 0.1, height: 0.1)
        // [t] → [t, far] → the overlapping detection removes t: [far, overlapping] → far2 appended, then clipped to 2.
        let regions = tracker.regionsOfInterest { calls += 1; return [far, overlapping, far2] }
        #expect(calls == 2 && regions == [far, overlapping])
        #expect(tracker.frameCount == 3 && tracker.detectorRunCount == 2)
        // A non-overlapping detection is appended after the tracked region.
        _ = tracker.finishFrame([Self.pose(200, 180)], imageWidth: Self.w, imageHeight: Self.h, timestampMilliseconds: 66)
        #expect(tracker.regionsOfInterest { [far2] } == [tracker.trackedRegions[0], far2])
    }

    @Test func onlyASinglePoseIsSmoothed() {
        var two = PoseTracker(numPoses: 2, minTrackingConfidence: 0.5)
        #expect(!two.smoothsLandmarks)
        _ = two.regionsOfInterest { [Self.detA] }
        let p0 = [Self.pose(200, 180, visibility: 0.9)], p1 = [Self.pose(230, 170, visibility: 0.1)]
        #expect(two.finishFrame(p0, imageWidth: Self.w, imageHeight: Self.h, timestampMilliseconds: 1000) == p0)
        _ = two.regionsOfInterest { [Self.detA] }
        #expect(two.finishFrame(p1, imageWidth: Self.w, imageHeight: Self.h, timestampMilliseconds: 1040) == p1)

        var one = PoseTracker(numPoses: 1, minTrackingConfidence: 0.5)
        #expect(one.smoothsLandmarks)
        _ = one.regionsOfInterest { [Self.detA] }
        let first = one.finishFrame(p0, imageWidth: Self.w, imageHeight: Self.h, timestampMilliseconds: 1000)
        #expect(first.count == 1 && first[0].landmarks.map(\.visibility) == p0[0].landmarks.map(\.visibility))
        _ = one.regionsOfInterest { [Self.detA] }
        // The second pose's aux distance is 100 px: this frame's next-frame ROI is 250 px square, object scale 250.
        let moved = [Self.pose(230, 170, auxDistance: 100, visibility: 0.1)]
        let out = one.finishFrame(moved, imageWidth: Self.w, imageHeight: Self.h, timestampMilliseconds: 1040)
        #expect(out.count == 1)
        // Landmark 0 x: 200 → 230 px at 25 Hz, value scale 1/250, 0.05 / 80 / 1.
        let x0 = Double(Float(200.0 / 640) * 640), x1 = Double(Float(230.0 / 640) * 640)
        let x = euroStep(value: x1, previousRaw: x0, previousOutput: x0, previousEd: 0, frequency: 25, valueScale: 1.0 / 250,
                         minCutoff: Double(Float(0.05)), beta: 80, derivateCutoff: 1).y / 640
        #expect(approx(out[0].landmarks[0].x, Float(x), 1e-6), "\(out[0].landmarks[0].x) vs \(x)")
        #expect(out[0].landmarks[0].x > Float(200.0 / 640) && out[0].landmarks[0].x < Float(230.0 / 640))
        // Visibility low-passed with α 0.1, presence untouched; world landmarks smoothed too.
        #expect(approx(out[0].landmarks[0].visibility!, 0.1 * 0.1 + 0.9 * 0.9, 1e-6))
        #expect(out[0].landmarks[0].presence == 0.75)
        #expect(approx(out[0].worldLandmarks[0].visibility!, 0.1 * 0.1 + 0.9 * 0.9, 1e-6))
        #expect(out[0].worldLandmarks[0].x > 0.2 && out[0].worldLandmarks[0].x < 0.23)
        // The auxiliary landmarks are not smoothed, and the next-frame ROI comes from the raw ones.
        #expect(out[0].auxiliaryLandmarks == moved[0].auxiliaryLandmarks)
        #expect(Self.isROI(one.trackedRegions[0], 230, 170, auxDistance: 100))
    }

    @Test func aFrameWithoutAPoseResetsTheSmoothing() {
        var tracker = PoseTracker(numPoses: 1, minTrackingConfidence: 0.5)
        let p0 = [Self.pose(200, 180, visibility: 0.9)], p1 = [Self.pose(230, 170, visibility: 0.1)]
        _ = tracker.finishFrame(p0, imageWidth: Self.w, imageHeight: Self.h, timestampMilliseconds: 1000)
        _ = tracker.finishFrame([], imageWidth: Self.w, imageHeight: Self.h, timestampMilliseconds: 1040)
        // The filters start over: the next pose is their first sample and passes through.
        let out = tracker.finishFrame(p1, imageWidth: Self.w, imageHeight: Self.h, timestampMilliseconds: 1080)
        #expect(out.count == 1)
        #expect(zip(out[0].landmarks, p1[0].landmarks).allSatisfy {
            approx($0.x, $1.x, 1e-6) && approx($0.y, $1.y, 1e-6) && $0.visibility == $1.visibility
        })
        #expect(out[0].worldLandmarks == p1[0].worldLandmarks)
    }

    @Test func resetForgetsTrackedRegionsAndSmoothing() {
        var tracker = PoseTracker(numPoses: 1, minTrackingConfidence: 0.5)
        var calls = 0
        _ = tracker.regionsOfInterest { calls += 1; return [Self.detA] }
        _ = tracker.finishFrame([Self.pose(200, 180, visibility: 0.9)], imageWidth: Self.w, imageHeight: Self.h,
                                timestampMilliseconds: 1000)
        #expect(!tracker.trackedRegions.isEmpty)
        tracker.reset()
        #expect(tracker.trackedRegions.isEmpty)
        #expect(tracker.regionsOfInterest { calls += 1; return [Self.detB] } == [Self.detB] && calls == 2)
        let p1 = [Self.pose(230, 170, visibility: 0.1)]
        let out = tracker.finishFrame(p1, imageWidth: Self.w, imageHeight: Self.h, timestampMilliseconds: 1040)
        #expect(out[0].landmarks.map(\.visibility) == p1[0].landmarks.map(\.visibility))
        #expect(approx(out[0].landmarks[0].x, p1[0].landmarks[0].x, 1e-6))
    }
}

/// `HandTracker` with synthetic hands (`mediapipe/tasks/cc/vision/hand_landmarker/hand_landmarker_graph.cc`) on
/// 640 × 360: each hand's next-frame ROI is 250 px square, centred (−2.5, −70.8) px from the wrist for an upright
/// hand (see `HandNextFrameROISpecTests`).
@Suite struct HandTrackerSpecTests {
    static let w = 640, h = 360

    static func hand(wristX: Double, wristY: Double = 220) -> [NormalizedLandmark] {
        handLandmarks(wrist: SIMD2(wristX, wristY), angle: 0, w: w, h: h)
    }

    static func isROI(_ r: NormalizedRect, wristX: Double, wristY: Double = 220) -> Bool {
        approx(Double(r.xCenter) * 640, wristX - 2.5, 1e-5) && approx(Double(r.yCenter) * 360, wristY - 70.8, 1e-5)
            && approx(Double(r.width) * 640, 250, 1e-5) && approx(Double(r.height) * 360, 250, 1e-5) && abs(r.rotation) < 1e-5
    }

    @Test func duplicatesAreRemovedAndOnlyTheKeptHandsAreTracked() {
        var tracker = HandTracker(numHands: 2, minTrackingConfidence: 0.5)
        var calls = 0
        #expect(tracker.regionsOfInterest { calls += 1; return [] }.isEmpty && calls == 1)
        let a = Self.hand(wristX: 300)
        let twin = Self.hand(wristX: 302)        // every landmark 2 px away, baseline ≈ 86 px: a duplicate
        let other = Self.hand(wristX: 100)       // 200 px away: a second hand
        #expect(tracker.finishFrame(hands: [a, twin, other], imageWidth: Self.w, imageHeight: Self.h) == [0, 2])
        #expect(tracker.trackedRegions.count == 2)
        #expect(Self.isROI(tracker.trackedRegions[0], wristX: 300) && Self.isROI(tracker.trackedRegions[1], wristX: 100))
        // The earlier of two duplicates wins, whichever it is.
        var t2 = HandTracker(numHands: 2, minTrackingConfidence: 0.5)
        #expect(t2.finishFrame(hands: [twin, a], imageWidth: Self.w, imageHeight: Self.h) == [0])
        #expect(t2.trackedRegions.count == 1 && Self.isROI(t2.trackedRegions[0], wristX: 302))

        // Two tracked = numHands: no palm detection; the tracked regions are this frame's.
        let tracked = tracker.trackedRegions
        #expect(tracker.regionsOfInterest { calls += 1; return [] } == tracked && calls == 1)
        #expect(tracker.frameCount == 2 && tracker.detectorRunCount == 1)
    }

    @Test func theDetectorRunsWhileFewerThanNumHandsAreTrackedAndTrackedRegionsWin() {
        var tracker = HandTracker(numHands: 2, minTrackingConfidence: 0.5)
        var calls = 0
        _ = tracker.regionsOfInterest { calls += 1; return [] }
        let a = Self.hand(wristX: 300)
        // A hand and its duplicate: one kept, one tracked region < 2 hands.
        #expect(tracker.finishFrame(hands: [a, Self.hand(wristX: 301)], imageWidth: Self.w, imageHeight: Self.h) == [0])
        #expect(tracker.trackedRegions.count == 1)
        let t = tracker.trackedRegions[0]
        let palmOnT = NormalizedRect(xCenter: t.xCenter + 3.0 / 640, yCenter: t.yCenter, width: t.width, height: t.height)
        let palmFar = NormalizedRect(xCenter: 0.9, yCenter: 0.2, width: 0.1, height: 0.15)
        let palmFar2 = NormalizedRect(xCenter: 0.9, yCenter: 0.8, width: 0.1, height: 0.15)
        // The palm on the tracked hand is dropped (the tracked region wins), the far ones appended, clipped to 2.
        let regions = tracker.regionsOfInterest { calls += 1; return [palmOnT, palmFar, palmFar2] }
        #expect(calls == 2 && regions == [t, palmFar])
        #expect(tracker.frameCount == 2 && tracker.detectorRunCount == 2)

        // Losing every hand: nothing tracked, the detector runs.
        #expect(tracker.finishFrame(hands: [], imageWidth: Self.w, imageHeight: Self.h).isEmpty)
        #expect(tracker.trackedRegions.isEmpty)
        #expect(tracker.regionsOfInterest { calls += 1; return [palmFar] } == [palmFar] && calls == 3)
    }

    @Test func oneHandIsTrackedWithoutTheDetectorAndResetStartsOver() {
        var tracker = HandTracker(numHands: 1, minTrackingConfidence: 0.5)
        var calls = 0
        let palm = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.3, height: 0.4)
        #expect(tracker.regionsOfInterest { calls += 1; return [palm] } == [palm])
        #expect(tracker.finishFrame(hands: [Self.hand(wristX: 300)], imageWidth: Self.w, imageHeight: Self.h) == [0])
        #expect(tracker.regionsOfInterest { calls += 1; return [palm] }.count == 1 && calls == 1)
        // Hands are not smoothed: the next region follows the new landmarks exactly.
        #expect(tracker.finishFrame(hands: [Self.hand(wristX: 340, wristY: 200)], imageWidth: Self.w, imageHeight: Self.h) == [0])
        #expect(Self.isROI(tracker.trackedRegions[0], wristX: 340, wristY: 200))
        tracker.reset()
        #expect(tracker.trackedRegions.isEmpty)
        #expect(tracker.regionsOfInterest { calls += 1; return [palm] } == [palm] && calls == 2)
    }
}
