import BlazeStages
@testable import BlazeTracking
import Foundation
import Testing

private func near(_ a: Float, _ b: Float, _ tol: Float = 1e-5) -> Bool { abs(a - b) <= tol * max(1, abs(b)) }
private func near(_ a: Double, _ b: Double, _ tol: Double = 1e-5) -> Bool { abs(a - b) <= tol * max(1, abs(b)) }

@Suite struct FilterTests {
    @Test func lowPassPassesTheFirstSampleThenBlends() {
        var f = LowPassFilter(alpha: 0.25)
        #expect(f.apply(8) == 8)
        #expect(f.apply(0) == 6)            // 0.25·0 + 0.75·8
        #expect(f.apply(4, alpha: 0.5) == 5)
        #expect(f.apply(5, alpha: 1.5) == 5)  // out-of-range alpha is ignored: 0.5·5 + 0.5·5
        #expect(f.lastRawValue == 5 && f.alpha == 0.5)
    }

    /// `α(c) = 1/(1 + τ/Te)`, τ = 1/(2πc), Te = 1/f.
    static func alpha(_ cutoff: Double, _ frequency: Double) -> Double { 1 / (1 + (1 / (2 * Double.pi * cutoff)) * frequency) }

    @Test func oneEuroMatchesTheFormulasAndKeeps30HzAfterAFirstSampleAtZero() {
        var f = OneEuroFilter(minCutoff: 1, beta: 0.5, derivateCutoff: 1)
        let ms: Int64 = 1_000_000
        #expect(f.apply(0, timestampNanoseconds: 0, valueScale: 1) == 0)
        // Second sample 40 ms later: MediaPipe 0.10.14 does not update the frequency after a sample at t = 0.
        let ad30 = Self.alpha(1, 30)
        let ed1 = ad30 * 30                                // d = (1 − 0)·1·30
        let a1 = Self.alpha(1 + 0.5 * ed1, 30)
        let out1 = f.apply(1, timestampNanoseconds: 40 * ms, valueScale: 1)
        #expect(near(Double(out1), a1))
        #expect(f.frequency == 30)
        // Third sample: now 25 Hz.
        let ad25 = Self.alpha(1, 25)
        let ed2 = ad25 * 12.5 + (1 - ad25) * ed1           // d = (1.5 − 1)·25
        let a2 = Self.alpha(1 + 0.5 * ed2, 25)
        let out2 = f.apply(1.5, timestampNanoseconds: 80 * ms, valueScale: 1)
        #expect(near(Double(out2), a2 * 1.5 + (1 - a2) * Double(out1)))
        #expect(near(f.frequency, 25, 1e-9))
        // A timestamp that does not increase returns the raw value and changes nothing.
        let before = f
        #expect(f.apply(7, timestampNanoseconds: 80 * ms, valueScale: 1) == 7)
        #expect(f == before)
    }

    @Test func oneEuroWithANonZeroFirstTimestampUsesTheRealFrequencyAtOnce() {
        var f = OneEuroFilter(minCutoff: 0.5, beta: 2, derivateCutoff: 1)
        let ms: Int64 = 1_000_000
        _ = f.apply(2, timestampNanoseconds: 1000 * ms, valueScale: 0.5)
        let out = f.apply(3, timestampNanoseconds: 1020 * ms, valueScale: 0.5)   // 50 Hz
        #expect(near(f.frequency, 50, 1e-9))
        let ed = Self.alpha(1, 50) * (1 * 0.5 * 50)
        let a = Self.alpha(0.5 + 2 * ed, 50)
        #expect(near(Double(out), a * 3 + (1 - a) * 2))
    }

    @Test func aStaticSignalStaysPutAndALargerBetaFollowsMotionFaster() {
        var still = OneEuroFilter(minCutoff: 0.05, beta: 80, derivateCutoff: 1)
        for k in 0..<20 { #expect(still.apply(0.3, timestampNanoseconds: Int64(k + 1) * 33_000_000, valueScale: 1) == 0.3) }
        var slow = OneEuroFilter(minCutoff: 0.05, beta: 1, derivateCutoff: 1)
        var fast = OneEuroFilter(minCutoff: 0.05, beta: 80, derivateCutoff: 1)
        var s: Float = 0, q: Float = 0
        for k in 0..<10 {
            let t = Int64(k + 1) * 33_000_000
            s = slow.apply(Float(k), timestampNanoseconds: t, valueScale: 1)
            q = fast.apply(Float(k), timestampNanoseconds: t, valueScale: 1)
        }
        #expect(q > s && q < 9 && s < 9)
    }
}

@Suite struct SmoothingTests {
    func pose(_ dx: Float, visibility: Float = 0.9) -> [NormalizedLandmark] {
        (0..<4).map { NormalizedLandmark(x: 0.2 + 0.1 * Float($0) + dx, y: 0.5, z: 0.01, visibility: visibility, presence: 0.7) }
    }

    @Test func visibilityIsLowPassedAndPresenceKept() {
        var v = VisibilitySmoother(alpha: 0.1)
        _ = v.smooth(pose(0, visibility: 1))
        let out = v.smooth(pose(0, visibility: 0))
        #expect(out.allSatisfy { near($0.visibility!, 0.9) && $0.presence == 0.7 })   // 0.1·0 + 0.9·1
        #expect(zip(out, pose(0)).allSatisfy { $0.x == $1.x && $0.y == $1.y && $0.z == $1.z })
        v.reset()
        #expect(v.smooth(pose(0, visibility: 0.2)).allSatisfy { $0.visibility == 0.2 })
    }

    @Test func normalizedLandmarksAreFilteredInPixelsWithTheROIScale() {
        // Filtering x·W with value scale 1/((w·W + h·H)/2) is the same as a bare one-euro filter on pixels.
        let w = 640, h = 360
        let roi = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5 * 640 / 360)
        let scale = (roi.width * Float(w) + roi.height * Float(h)) / 2
        var smoother = OneEuroLandmarkSmoother(configuration: .poseLandmarks)
        var bare = OneEuroFilter(minCutoff: OneEuroConfiguration.poseLandmarks.minCutoff, beta: 80, derivateCutoff: 1)
        for k in 0..<5 {
            let t = Int64(k) * 40_000_000
            let out = smoother.smooth(pose(0.01 * Float(k)), imageWidth: w, imageHeight: h, objectScaleROI: roi, timestampNanoseconds: t)
            let expected = bare.apply(pose(0.01 * Float(k))[0].x * Float(w), timestampNanoseconds: t, valueScale: Double(1 / scale))
            #expect(out[0].x == expected / Float(w))
            #expect(out[0].y == 0.5 && out[0].visibility == 0.9)
        }
    }

    @Test func aTinyObjectPassesThroughAndWorldLandmarksAreUnscaled() {
        var smoother = OneEuroLandmarkSmoother(configuration: .poseLandmarks)
        let roi = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0, height: 0)
        _ = smoother.smooth(pose(0), imageWidth: 100, imageHeight: 100, objectScaleROI: roi, timestampNanoseconds: 0)
        let moved = pose(0.2)
        #expect(smoother.smooth(moved, imageWidth: 100, imageHeight: 100, objectScaleROI: roi, timestampNanoseconds: 40_000_000) == moved)

        var world = OneEuroLandmarkSmoother(configuration: .poseWorldLandmarks)
        var bare = OneEuroFilter(minCutoff: OneEuroConfiguration.poseWorldLandmarks.minCutoff, beta: 40, derivateCutoff: 1)
        for k in 0..<4 {
            let t = Int64(k + 1) * 40_000_000
            let out = world.smooth([Landmark(x: 0.1 * Float(k), y: 0, z: 0)], timestampNanoseconds: t)
            #expect(out[0].x == bare.apply(0.1 * Float(k), timestampNanoseconds: t, valueScale: 1))
        }
    }

    @Test func poseSmootherResetsAndUsesMillisecondTimestamps() {
        var s = PoseSmoother()
        let world = (0..<4).map { Landmark(x: Float($0), y: 0, z: 0, visibility: 0.5) }
        let first = s.smooth(landmarks: pose(0), worldLandmarks: world, nextFrameROI: nil, imageWidth: 100, imageHeight: 100,
                             timestampMilliseconds: 0)
        #expect(first.landmarks == pose(0))
        let second = s.smooth(landmarks: pose(0.1, visibility: 0.1), worldLandmarks: world, nextFrameROI: nil,
                              imageWidth: 100, imageHeight: 100, timestampMilliseconds: 33)
        #expect(second.landmarks[0].x > pose(0)[0].x && second.landmarks[0].x < pose(0.1)[0].x)
        #expect(near(second.landmarks[0].visibility!, 0.82))
        s.reset()
        let again = s.smooth(landmarks: pose(0.1, visibility: 0.1), worldLandmarks: world, nextFrameROI: nil,
                             imageWidth: 100, imageHeight: 100, timestampMilliseconds: 66)
        #expect(again.landmarks == pose(0.1, visibility: 0.1))
    }
}

@Suite struct NextFrameROITests {
    @Test func poseROIFromTheAuxiliaryLandmarks() throws {
        let w = 640, h = 360
        // aux1 100 px straight above aux0: rotation 0, side 2·100·1.25 = 250 px.
        let aux = [NormalizedLandmark(x: 320 / 640, y: 200 / 360), NormalizedLandmark(x: 320 / 640, y: 100 / 360)]
        let roi = try #require(NextFrameROI.pose(auxiliaryLandmarks: aux, imageWidth: w, imageHeight: h))
        #expect(near(roi.xCenter, 0.5) && near(roi.yCenter, 200 / 360))
        #expect(near(roi.width * Float(w), 250, 1e-4) && near(roi.height * Float(h), 250, 1e-4))
        #expect(abs(roi.rotation) < 1e-6)
        // aux1 to the right of aux0: the ROI's up axis points right, a quarter turn clockwise.
        let right = [aux[0], NormalizedLandmark(x: 420 / 640, y: 200 / 360)]
        let r = try #require(NextFrameROI.pose(auxiliaryLandmarks: right, imageWidth: w, imageHeight: h))
        #expect(near(r.rotation, Float.pi / 2))
        #expect(NextFrameROI.pose(auxiliaryLandmarks: [aux[0]], imageWidth: w, imageHeight: h) == nil)
    }

    /// An upright hand: wrist at the bottom, fingers up, in a 400×300 image; `angle` turns it about the wrist.
    static func hand(angle: Float) -> [NormalizedLandmark] {
        var pts: [SIMD2<Float>] = [SIMD2(0, 0)]
        let bases: [Float] = [-40, -20, 0, 20, 40]   // thumb, index, middle, ring, little
        for (f, bx) in bases.enumerated() {
            for j in 1...4 { pts.append(SIMD2(bx * (f == 0 ? 1 + 0.2 * Float(j) : 1), -30 - 20 * Float(j))) }
        }
        let c = cos(angle), s = sin(angle)
        return pts.map { p in
            let x = c * p.x - s * p.y + 200, y = s * p.x + c * p.y + 250
            return NormalizedLandmark(x: x / 400, y: y / 300)
        }
    }

    @Test func handRectIsTheTightestRotatedBoxOfTheSubset() throws {
        let upright = try #require(NextFrameROI.handRect(landmarks: Self.hand(angle: 0), imageWidth: 400, imageHeight: 300))
        #expect(abs(upright.rotation) < 1e-5)
        // Unrotated, the box is the subset's plain extent (the thumb tip, landmark 4, is not in the subset).
        let subset = NextFrameROI.handSubset.map { Self.hand(angle: 0)[$0] }
        let xs = subset.map { $0.x * 400 }, ys = subset.map { $0.y * 300 }
        #expect(near(upright.width * 400, xs.max()! - xs.min()!, 1e-4))
        #expect(near(upright.height * 300, ys.max()! - ys.min()!, 1e-4))
        #expect(near(upright.xCenter * 400, (xs.max()! + xs.min()!) / 2, 1e-4))
        // Turned a quarter clockwise (fingers pointing right): rotation π/2, same extents.
        let turned = try #require(NextFrameROI.handRect(landmarks: Self.hand(angle: .pi / 2), imageWidth: 400, imageHeight: 300))
        #expect(near(turned.rotation, .pi / 2, 1e-4))
        #expect(near(turned.width * 400, upright.width * 400, 1e-3) && near(turned.height * 300, upright.height * 300, 1e-3))
        #expect(NextFrameROI.handRect(landmarks: Array(Self.hand(angle: 0).prefix(20)), imageWidth: 400, imageHeight: 300) == nil)
    }

    @Test func handROIDoublesSquaresAndShiftsTowardTheFingers() throws {
        let rect = try #require(NextFrameROI.handRect(landmarks: Self.hand(angle: 0), imageWidth: 400, imageHeight: 300))
        let roi = try #require(NextFrameROI.hand(landmarks: Self.hand(angle: 0), imageWidth: 400, imageHeight: 300))
        let long = max(rect.width * 400, rect.height * 300)
        #expect(near(roi.width * 400, 2 * long, 1e-4) && near(roi.height * 300, 2 * long, 1e-4))
        #expect(near(roi.yCenter, rect.yCenter - 0.1 * rect.height, 1e-5))   // up, toward the fingers (rotation 0)
        #expect(roi.xCenter == rect.xCenter)
    }
}

@Suite struct AssociationTests {
    func rect(_ x: Float, _ y: Float, _ w: Float, _ h: Float, rotation: Float = 0) -> NormalizedRect {
        NormalizedRect(xCenter: x, yCenter: y, width: w, height: h, rotation: rotation)
    }

    @Test func iouIgnoresRotation() {
        let a = rect(0.5, 0.5, 0.4, 0.4), b = rect(0.6, 0.5, 0.4, 0.4, rotation: 1)
        // Intersection 0.3·0.4 = 0.12; union 0.16 + 0.16 − 0.12 = 0.2.
        #expect(near(RegionAssociation.intersectionOverUnion(a, b), 0.6))
        #expect(RegionAssociation.intersectionOverUnion(a, rect(0.95, 0.5, 0.1, 0.1)) == 0)
    }

    @Test func poseDetectionsReplaceOverlappingTrackedRegions() {
        let tracked = [rect(0.3, 0.5, 0.4, 0.4), rect(0.8, 0.5, 0.2, 0.2)]
        let detected = [rect(0.32, 0.5, 0.4, 0.4), rect(0.5, 0.1, 0.1, 0.1)]
        let merged = RegionAssociation.replacingOverlaps(tracked: tracked, detected: detected, threshold: 0.5)
        #expect(merged == [tracked[1], detected[0], detected[1]])
        // IoU equal to the threshold is not an overlap (strictly greater).
        let a = rect(0.5, 0.5, 0.4, 0.4), b = rect(0.6, 0.5, 0.4, 0.4)
        let iou = RegionAssociation.intersectionOverUnion(a, b)
        #expect(RegionAssociation.replacingOverlaps(tracked: [a], detected: [b], threshold: iou) == [a, b])
        #expect(RegionAssociation.replacingOverlaps(tracked: [], detected: detected, threshold: 0.5) == detected)
    }

    @Test func trackedHandsWinOverOverlappingPalms() {
        let tracked = [rect(0.3, 0.5, 0.4, 0.4)]
        let detected = [rect(0.32, 0.5, 0.4, 0.4), rect(0.8, 0.5, 0.2, 0.2), rect(0.81, 0.5, 0.2, 0.2)]
        let merged = RegionAssociation.keepingTracked(tracked: tracked, detected: detected, threshold: 0.5)
        #expect(merged == [tracked[0], detected[1]])   // the third overlaps the accepted second
    }
}

@Suite struct TrackerTests {
    static let roiA = NormalizedRect(xCenter: 0.3, yCenter: 0.5, width: 0.3, height: 0.4)

    /// A pose whose auxiliary landmarks give a ROI around (x, 0.5).
    static func pose(_ x: Float) -> PoseTracker.Pose {
        let lms = (0..<33).map { NormalizedLandmark(x: x + 0.001 * Float($0), y: 0.5, z: 0, visibility: 0.9, presence: 0.9) }
        return PoseTracker.Pose(landmarks: lms, worldLandmarks: (0..<33).map { Landmark(x: Float($0), y: 0, z: 0, visibility: 0.9) },
                                auxiliaryLandmarks: [NormalizedLandmark(x: x, y: 0.5), NormalizedLandmark(x: x, y: 0.4)])
    }

    @Test func theDetectorRunsOnlyWhileFewerThanNumPosesAreTracked() {
        var tracker = PoseTracker(numPoses: 1, minTrackingConfidence: 0.5)
        var calls = 0
        let detect = { () -> [NormalizedRect] in calls += 1; return [Self.roiA] }
        #expect(tracker.regionsOfInterest(detect: detect) == [Self.roiA])
        _ = tracker.finishFrame([Self.pose(0.3)], imageWidth: 640, imageHeight: 480, timestampMilliseconds: 0)
        let expected = NextFrameROI.pose(auxiliaryLandmarks: Self.pose(0.3).auxiliaryLandmarks, imageWidth: 640, imageHeight: 480)!
        #expect(tracker.trackedRegions == [expected])
        #expect(tracker.regionsOfInterest(detect: detect) == [expected])
        #expect(calls == 1)
        _ = tracker.finishFrame([], imageWidth: 640, imageHeight: 480, timestampMilliseconds: 33)   // lost
        #expect(tracker.trackedRegions.isEmpty)
        _ = tracker.regionsOfInterest(detect: detect)
        #expect(calls == 2 && tracker.frameCount == 3 && tracker.detectorRunCount == 2)
        tracker.reset()
        #expect(tracker.trackedRegions.isEmpty)
    }

    @Test func withTwoPosesTheDetectorKeepsRunningAndNothingIsSmoothed() {
        var tracker = PoseTracker(numPoses: 2, minTrackingConfidence: 0.5)
        var calls = 0
        let far = NormalizedRect(xCenter: 0.8, yCenter: 0.5, width: 0.1, height: 0.1)
        let detect = { () -> [NormalizedRect] in calls += 1; return [far] }
        _ = tracker.regionsOfInterest(detect: detect)
        let poses = [Self.pose(0.3)]
        #expect(tracker.finishFrame(poses, imageWidth: 640, imageHeight: 480, timestampMilliseconds: 0) == poses)
        let regions = tracker.regionsOfInterest(detect: detect)
        #expect(calls == 2 && regions.count == 2 && regions[1] == far)
        let moved = [Self.pose(0.35)]
        #expect(tracker.finishFrame(moved, imageWidth: 640, imageHeight: 480, timestampMilliseconds: 33) == moved)
        #expect(!tracker.smoothsLandmarks)
    }

    @Test func onePoseIsSmoothedAndRegionsAreClipped() {
        var tracker = PoseTracker(numPoses: 1, minTrackingConfidence: 0.5)
        let two = [Self.roiA, NormalizedRect(xCenter: 0.8, yCenter: 0.5, width: 0.1, height: 0.1)]
        #expect(tracker.regionsOfInterest { two } == [Self.roiA])
        _ = tracker.finishFrame([Self.pose(0.3)], imageWidth: 640, imageHeight: 480, timestampMilliseconds: 0)
        let out = tracker.finishFrame([Self.pose(0.4)], imageWidth: 640, imageHeight: 480, timestampMilliseconds: 33)
        #expect(out.count == 1 && out[0].landmarks[0].x > 0.3 && out[0].landmarks[0].x < 0.4)
        #expect(out[0].auxiliaryLandmarks == Self.pose(0.4).auxiliaryLandmarks)
    }

    @Test func handTrackerDeduplicatesAndTracksOnlyTheKeptHands() {
        var tracker = HandTracker(numHands: 2, minTrackingConfidence: 0.5)
        var calls = 0
        _ = tracker.regionsOfInterest { calls += 1; return [] }
        let hand = NextFrameROITests.hand(angle: 0)
        let twin = hand.map { NormalizedLandmark(x: $0.x + 0.002, y: $0.y) }
        let other = hand.map { NormalizedLandmark(x: $0.x - 0.3, y: $0.y) }
        #expect(tracker.finishFrame(hands: [hand, twin, other], imageWidth: 400, imageHeight: 300) == [0, 2])
        #expect(tracker.trackedRegions == [NextFrameROI.hand(landmarks: hand, imageWidth: 400, imageHeight: 300)!,
                                           NextFrameROI.hand(landmarks: other, imageWidth: 400, imageHeight: 300)!])
        _ = tracker.regionsOfInterest { calls += 1; return [] }
        #expect(calls == 1 && tracker.detectorRunCount == 1 && tracker.frameCount == 2)
    }
}
