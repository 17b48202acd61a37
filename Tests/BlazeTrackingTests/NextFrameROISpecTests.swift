import BlazeStages
@testable import BlazeTracking
import Foundation
import Testing

/// The pose's next-frame ROI from its two auxiliary landmarks (`mediapipe/modules/pose_landmark/pose_landmarks_to_roi.pbtxt`;
/// `mediapipe/calculators/util/alignment_points_to_rects_calculator.cc`, `rect_transformation_calculator.cc`) on a
/// non-square 640 × 360 image.
@Suite struct PoseNextFrameROISpecTests {
    static let w = 640, h = 360

    static func aux(_ p0: SIMD2<Double>, _ p1: SIMD2<Double>) -> [NormalizedLandmark] {
        [NormalizedLandmark(x: Float(p0.x / 640), y: Float(p0.y / 360)), NormalizedLandmark(x: Float(p1.x / 640), y: Float(p1.y / 360))]
    }

    /// `aux1 − aux0` in pixels, the expected rotation (so that the ROI's up axis points from aux0 to aux1).
    static let cases: [(offset: SIMD2<Double>, rotation: Double)] = [
        (SIMD2(0, -80), 0),                      // straight above: up is up
        (SIMD2(80, 0), Double.pi / 2),           // to the right: a quarter turn clockwise
        (SIMD2(-80, 0), -Double.pi / 2),         // to the left
        (SIMD2(0, 80), Double.pi),               // below: half a turn (±π)
        (SIMD2(60, -80), atan2(60.0, 80.0)),     // up and right, 100 px away: 0.6435 rad
        (SIMD2(-30, 40), -Double.pi + atan2(30.0, 40.0)),
    ]

    @Test(arguments: 0..<6)
    func centreSideAndRotation(index: Int) throws {
        let (offset, rotation) = Self.cases[index]
        let p0 = SIMD2<Double>(320, 200), p1 = p0 + offset
        let roi = try #require(NextFrameROI.pose(auxiliaryLandmarks: Self.aux(p0, p1), imageWidth: Self.w, imageHeight: Self.h))
        // Centred on aux0.
        #expect(approx(centerPixels(roi, 640, 360).x, 320, 1e-5) && approx(centerPixels(roi, 640, 360).y, 200, 1e-5))
        // Square in pixels, side 2·distance·1.25.
        let side = 2 * (offset.x * offset.x + offset.y * offset.y).squareRoot() * 1.25
        #expect(approx(Double(roi.width) * 640, side, 1e-5), "width \(roi.width * 640) px vs \(side)")
        #expect(approx(Double(roi.height) * 360, side, 1e-5), "height \(roi.height * 360) px vs \(side)")
        #expect(sameAngle(roi.rotation, rotation), "rotation \(roi.rotation) vs \(rotation)")
        #expect(roi.rotation >= -Float.pi && roi.rotation <= Float.pi)
        // NormalizedRect's convention: the rect's up axis (0, −1) maps to (sin θ, −cos θ) in pixels,
        // which must point from aux0 toward aux1.
        let up = SIMD2(sin(Double(roi.rotation)), -cos(Double(roi.rotation)))
        let dir = offset / (offset.x * offset.x + offset.y * offset.y).squareRoot()
        #expect(approx(up.x, dir.x, 1e-5) && approx(up.y, dir.y, 1e-5))
    }

    @Test func theAngleIsMeasuredInPixelsNotNormalizedUnits() throws {
        // 60 px right, 80 px up: in normalized units that is (0.094, −0.222), a different angle (0.40 rad).
        let roi = try #require(NextFrameROI.pose(auxiliaryLandmarks: Self.aux(SIMD2(320, 200), SIMD2(380, 120)),
                                                 imageWidth: Self.w, imageHeight: Self.h))
        #expect(approx(Double(roi.rotation), 0.643501109, 1e-5))
        #expect(abs(Double(roi.rotation) - atan2(60.0 / 640, 80.0 / 360)) > 0.2)
    }

    @Test func needsTwoAuxiliaryLandmarksAndUsesOnlyTheFirstTwo() throws {
        let two = Self.aux(SIMD2(320, 200), SIMD2(320, 120))
        #expect(NextFrameROI.pose(auxiliaryLandmarks: [], imageWidth: Self.w, imageHeight: Self.h) == nil)
        #expect(NextFrameROI.pose(auxiliaryLandmarks: [two[0]], imageWidth: Self.w, imageHeight: Self.h) == nil)
        let three = two + [NormalizedLandmark(x: 0.9, y: 0.9)]
        let a = try #require(NextFrameROI.pose(auxiliaryLandmarks: three, imageWidth: Self.w, imageHeight: Self.h))
        #expect(approx(Double(a.width) * 640, 200, 1e-5) && abs(a.rotation) < 1e-6)
    }
}

/// The hand's next-frame ROI (`mediapipe/modules/hand_landmark/calculators/hand_landmarks_to_rect_calculator.cc`;
/// Tasks `hand_landmarks_detector_graph.cc`) on a synthetic hand (see `uprightHandPixels`) in a
/// 640 × 360 image: subset box 125 × 118 px (× stretch in y) around (−2.5, −59) from the wrist, upright.
@Suite struct HandNextFrameROISpecTests {
    static let w = 640, h = 360
    static let wrist = SIMD2<Double>(300, 220)
    static let angles: [Double] = [0, Double.pi / 2, -Double.pi / 2, Double.pi / 6, -2 * Double.pi / 3, Double.pi]

    @Test(arguments: angles)
    func handRectIsTheRotatedBoxOfTheTwelveLandmarkSubset(angle: Double) throws {
        let lms = handLandmarks(wrist: Self.wrist, angle: angle, w: Self.w, h: Self.h)
        let rect = try #require(NextFrameROI.handRect(landmarks: lms, imageWidth: Self.w, imageHeight: Self.h))
        // Rotation: the hand's own turn (the wrist → ¼·lm5 + ½·lm9 + ¼·lm13 vector points up at angle 0).
        #expect(sameAngle(rect.rotation, angle, 1e-4), "rotation \(rect.rotation) vs \(angle)")
        #expect(rect.rotation >= -Float.pi && rect.rotation <= Float.pi)
        // Width and height in pixels are the subset's extents in the hand's frame, whatever the turn.
        #expect(approx(Double(rect.width) * 640, 125, 1e-5), "width \(rect.width * 640)")
        #expect(approx(Double(rect.height) * 360, 118, 1e-5), "height \(rect.height * 360)")
        // Centre: the subset box centre (−2.5, −59) turned with the hand.
        let c = Self.wrist + rotate(SIMD2(-2.5, -59), by: angle)
        let got = centerPixels(rect, Self.w, Self.h)
        #expect(abs(got.x - c.x) < 1e-3 && abs(got.y - c.y) < 1e-3, "centre \(got) vs \(c)")
    }

    @Test func anUprightHandHasRotationZeroAndItsPlainExtent() throws {
        let lms = handLandmarks(wrist: Self.wrist, angle: 0, w: Self.w, h: Self.h)
        let rect = try #require(NextFrameROI.handRect(landmarks: lms, imageWidth: Self.w, imageHeight: Self.h))
        #expect(abs(rect.rotation) < 1e-6)
        // Subset: x 235…360, y 102…220 px. All 21 would be x 210…370, y 60…220.
        #expect(approx(rect.xCenter, Float(297.5 / 640), 1e-6) && approx(rect.yCenter, Float(161.0 / 360), 1e-6))
        #expect(approx(rect.width, Float(125.0 / 640), 1e-6) && approx(rect.height, Float(118.0 / 360), 1e-6))
        #expect(NextFrameROI.handSubset == [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18])
        #expect(NextFrameROI.handRect(landmarks: Array(lms.prefix(20)), imageWidth: Self.w, imageHeight: Self.h) == nil)
    }

    /// `hand` = `handRect`, then shift −0.1·height along the rect's up axis (toward the fingers), square on
    /// the long side, ×2.
    @Test(arguments: angles)
    func handROIShiftsTowardTheFingersSquaresAndDoubles(angle: Double) throws {
        let lms = handLandmarks(wrist: Self.wrist, angle: angle, w: Self.w, h: Self.h)
        let roi = try #require(NextFrameROI.hand(landmarks: lms, imageWidth: Self.w, imageHeight: Self.h))
        #expect(sameAngle(roi.rotation, angle, 1e-4))
        // long = max(125, 118) = 125 px; ×2 = 250 px, square in pixels.
        #expect(approx(Double(roi.width) * 640, 250, 1e-5) && approx(Double(roi.height) * 360, 250, 1e-5))
        // Centre (−2.5, −59 − 0.1·118) = (−2.5, −70.8) in the hand's frame.
        let c = Self.wrist + rotate(SIMD2(-2.5, -70.8), by: angle)
        let got = centerPixels(roi, Self.w, Self.h)
        #expect(abs(got.x - c.x) < 1e-3 && abs(got.y - c.y) < 1e-3, "centre \(got) vs \(c)")
    }

    @Test func aTallHandIsSquaredOnItsHeight() throws {
        // y stretched by 1.5: subset box 125 × 177 px around (−2.5, −88.5); long side 177 → 354 px.
        for angle in [0, Double.pi / 2, 0.4] {
            let lms = handLandmarks(wrist: SIMD2(300, 250), angle: angle, w: Self.w, h: Self.h, stretchY: 1.5)
            let rect = try #require(NextFrameROI.handRect(landmarks: lms, imageWidth: Self.w, imageHeight: Self.h))
            #expect(approx(Double(rect.width) * 640, 125, 1e-5) && approx(Double(rect.height) * 360, 177, 1e-5))
            let roi = try #require(NextFrameROI.hand(landmarks: lms, imageWidth: Self.w, imageHeight: Self.h))
            #expect(approx(Double(roi.width) * 640, 354, 1e-5) && approx(Double(roi.height) * 360, 354, 1e-5))
            let c = SIMD2<Double>(300, 250) + rotate(SIMD2(-2.5, -88.5 - 17.7), by: angle)
            let got = centerPixels(roi, Self.w, Self.h)
            #expect(abs(got.x - c.x) < 1e-3 && abs(got.y - c.y) < 1e-3, "angle \(angle): centre \(got) vs \(c)")
        }
    }

    @Test func handTransformationConstants() {
        let t = NextFrameROI.handTransformation
        #expect(t.scaleX == 2 && t.scaleY == 2 && t.shiftX == 0 && t.shiftY == -0.1 && t.squareLong && !t.squareShort)
    }
}
