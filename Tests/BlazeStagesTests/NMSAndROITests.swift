import Foundation
import Testing
@testable import BlazeStages

@Suite struct NonMaxSuppressionTests {
    func box(_ score: Float, _ x0: Float, _ y0: Float, _ x1: Float, _ y1: Float, kp: SIMD2<Float> = .zero) -> Detection {
        Detection(score: score, xmin: x0, ymin: y0, xmax: x1, ymax: y1, keypoints: [kp])
    }

    @Test func intersectionOverUnion() {
        let a = box(1, 0.1, 0.1, 0.5, 0.5), b = box(1, 0.14, 0.1, 0.54, 0.5)
        // I = 0.36·0.4 = 0.144, U = 0.16 + 0.16 − 0.144 = 0.176
        #expect(close(NonMaxSuppression.intersectionOverUnion(a, b), 0.144 / 0.176, 1e-5))
        #expect(NonMaxSuppression.intersectionOverUnion(a, a) == 1)
        #expect(NonMaxSuppression.intersectionOverUnion(a, box(1, 0.6, 0.6, 0.9, 0.9)) == 0)
        #expect(NonMaxSuppression.intersectionOverUnion(a, box(1, 0.5, 0.1, 0.9, 0.5)) == 0)   // touching edge
    }

    @Test func overlappingBoxesMergeAsScoreWeightedMean() {
        let a = box(0.9, 0.1, 0.1, 0.5, 0.5, kp: SIMD2(0.3, 0.3))
        let b = box(0.6, 0.14, 0.1, 0.54, 0.5, kp: SIMD2(0.4, 0.2))
        let c = box(0.95, 0.7, 0.7, 0.9, 0.9, kp: SIMD2(0.8, 0.8))
        let out = NonMaxSuppression.weighted([b, a, c], iouThreshold: 0.5)
        #expect(out.count == 2)
        #expect(out[0] == c)                                   // highest score first, alone → unchanged
        let merged = out[1]
        #expect(merged.score == 0.9)                           // the top detection's score
        #expect(close(merged.xmin, (0.1 * 0.9 + 0.14 * 0.6) / 1.5))
        #expect(close(merged.xmax, (0.5 * 0.9 + 0.54 * 0.6) / 1.5))
        #expect(close(merged.ymin, 0.1) && close(merged.ymax, 0.5))
        let kx: Float = (0.3 * 0.9 + 0.4 * 0.6) / 1.5
        let ky: Float = (0.3 * 0.9 + 0.2 * 0.6) / 1.5
        #expect(close(merged.keypoints[0], SIMD2(kx, ky)))
    }

    @Test func belowThresholdBoxesAreKeptSeparatelyInScoreOrder() {
        let a = box(0.7, 0.1, 0.1, 0.5, 0.5)
        let b = box(0.8, 0.3, 0.1, 0.7, 0.5)   // IoU = 0.08/0.24 = 1/3
        let separate = NonMaxSuppression.weighted([a, b], iouThreshold: 0.5)
        // A lone candidate is still "averaged" ((x·s)/s), which may move it by an ulp — as in MediaPipe.
        #expect(separate.map(\.score) == [0.8, 0.7])
        #expect(close(separate[0].xmin, 0.3) && close(separate[0].xmax, 0.7) && close(separate[1].xmin, 0.1))
        let merged = NonMaxSuppression.weighted([a, b], iouThreshold: 0.3)
        #expect(merged.count == 1 && merged[0].score == 0.8)
        #expect(close(merged[0].xmin, (0.3 * 0.8 + 0.1 * 0.7) / 1.5))
    }

    @Test func zeroAreaTopDetectionStopsTheLoopAsInMediaPipe() {
        // IoU of a zero-width box with itself is 0, so it is not its own candidate: MediaPipe emits it
        // unchanged and breaks out of the loop, dropping everything else.
        let degenerate = box(0.99, 0.2, 0.2, 0.2, 0.6)
        let other = box(0.5, 0.6, 0.6, 0.9, 0.9)
        #expect(NonMaxSuppression.weighted([other, degenerate], iouThreshold: 0.5) == [degenerate])
        #expect(NonMaxSuppression.weighted([], iouThreshold: 0.5).isEmpty)
    }
}

@Suite struct LetterboxRemovalTests {
    let padding = LetterboxPadding(left: 0.125, top: 0.25, right: 0.125, bottom: 0.25)

    @Test func detection() {
        let d = Detection(score: 0.7, xmin: 0.25, ymin: 0.5, width: 0.375, height: 0.25, keypoints: [SIMD2(0.125, 0.75)])
        let r = padding.removing(from: d)
        #expect(close(r.xmin, (0.25 - 0.125) / 0.75) && close(r.width, 0.5))
        #expect(close(r.ymin, 0.5) && close(r.height, 0.5))
        #expect(close(r.keypoints[0], SIMD2(0, 1)))
        #expect(r.score == 0.7)
    }

    @Test func landmarkScalesZWithTheHorizontalFactorAndKeepsVisibility() {
        let l = NormalizedLandmark(x: 0.5, y: 0.25, z: 0.3, visibility: 0.9, presence: 0.8)
        let r = padding.removing(from: l)
        #expect(close(r.x, 0.5) && close(r.y, 0) && close(r.z, 0.4))
        #expect(r.visibility == 0.9 && r.presence == 0.8)
        #expect(LetterboxPadding.zero.removing(from: l) == l)
    }
}

@Suite struct DetectionToROITests {
    func detection(kp0: SIMD2<Float>, kp1: SIMD2<Float>) -> Detection {
        Detection(score: 0.9, xmin: 0, ymin: 0, width: 0.1, height: 0.1, keypoints: [kp0, kp1, .zero, .zero])
    }

    @Test func uprightPose() throws {
        // 640×480: kp0 (320, 240), kp1 (320, 120) → distance 120 px, side 240 px, up axis already up.
        let rect = try #require(AlignmentPointsRect.poseDetection.rect(for: detection(kp0: SIMD2(0.5, 0.5), kp1: SIMD2(0.5, 0.25)),
                                                                   imageWidth: 640, imageHeight: 480))
        #expect(rect.xCenter == 0.5 && rect.yCenter == 0.5)
        #expect(close(rect.width, 240 / 640) && close(rect.height, 240 / 480))
        #expect(close(rect.rotation, 0))
        let roi = RectTransformation.poseDetectionToROI.apply(to: rect, imageWidth: 640, imageHeight: 480)
        // side 2.5 · 120 = 300 px
        #expect(close(roi.width * 640, 300, 1e-4) && close(roi.height * 480, 300, 1e-4))
        #expect(roi.xCenter == 0.5 && roi.yCenter == 0.5 && close(roi.rotation, 0))
    }

    @Test func rotationFollowsTheStartToEndVector() throws {
        let rule = AlignmentPointsRect.poseDetection
        // kp1 to the right of kp0 (in pixels, on a non-square image): the ROI's up axis points right → +π/2.
        let right = try #require(rule.rect(for: detection(kp0: SIMD2(0.5, 0.5), kp1: SIMD2(0.75, 0.5)), imageWidth: 640, imageHeight: 480))
        #expect(close(right.rotation, .pi / 2) && close(right.width, 2 * 160 / 640) && close(right.height, 2 * 160 / 480))
        // kp1 below kp0: upside down → −π (normalizeRadians maps π to −π).
        let down = try #require(rule.rect(for: detection(kp0: SIMD2(0.5, 0.5), kp1: SIMD2(0.5, 0.75)), imageWidth: 640, imageHeight: 480))
        #expect(close(down.rotation, -.pi))
        // 45° up-left in pixels: (−100, −100) px → rotation −π/4; side 2·100√2.
        let upLeft = try #require(rule.rect(for: detection(kp0: SIMD2(0.5, 0.5), kp1: SIMD2(0.5 - 100 / 640, 0.5 - 100 / 480)),
                                            imageWidth: 640, imageHeight: 480))
        #expect(close(upLeft.rotation, -.pi / 4, 1e-5))
        #expect(close(upLeft.width * 640, 200 * Float(2).squareRoot(), 1e-3))
        #expect(rule.rect(for: Detection(score: 1, xmin: 0, ymin: 0, width: 0, height: 0, keypoints: [.zero]),
                          imageWidth: 10, imageHeight: 10) == nil)
    }

    @Test func normalizeRadiansRange() {
        #expect(normalizeRadians(0) == 0)
        #expect(close(normalizeRadians(3 * .pi / 2), -.pi / 2))
        #expect(close(normalizeRadians(-.pi), -.pi))
        #expect(close(normalizeRadians(Float(Double.pi)), -.pi))   // rounds up past π → wraps
        #expect(normalizeRadians(Float.pi) == Float.pi)              // Float.pi < π stays
        #expect(close(normalizeRadians(7), 7 - 2 * .pi, 1e-6))
    }

    @Test func shiftUnderRotationMovesAlongTheRectsUpAxis() {
        // 100×200 image, rect 20×60 px rotated +90° (its up axis points right); shift half a height up.
        let rect = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.3, rotation: .pi / 2)
        let t = RectTransformation(scaleX: 2, scaleY: 2, shiftX: 0, shiftY: -0.5, squareLong: true)
        let out = t.apply(to: rect, imageWidth: 100, imageHeight: 200)
        #expect(close(out.xCenter, 0.8, 1e-6) && close(out.yCenter, 0.5, 1e-6))   // 30 px to the right
        #expect(close(out.width, 1.2) && close(out.height, 0.6))                  // square 60 px, ×2
        #expect(out.rotation == rect.rotation)
        // rotation exactly 0: shift in normalized units, x by width·shift_x.
        let flat = RectTransformation(shiftX: 0.5, shiftY: 0.25).apply(
            to: NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.4), imageWidth: 100, imageHeight: 200)
        #expect(close(flat.xCenter, 0.6) && close(flat.yCenter, 0.6) && flat.width == 0.2 && flat.height == 0.4)
        // square_short uses the shorter pixel side.
        let short = RectTransformation(squareShort: true).apply(to: rect, imageWidth: 100, imageHeight: 200)
        #expect(close(short.width, 0.2) && close(short.height, 0.1))
    }
}
