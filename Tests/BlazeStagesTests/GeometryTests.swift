import BlazeImage
import Foundation
import Testing
@testable import BlazeStages

@Suite struct ImageToTensorGeometryTests {
    @Test func wholeImageLetterboxedToSquareTensor() throws {
        let g = try ImageToTensorGeometry(rect: nil, imageWidth: 640, imageHeight: 480,
                                          tensorWidth: 224, tensorHeight: 224, keepAspectRatio: true)
        #expect(g.roi == PixelRotatedRect(centerX: 320, centerY: 240, width: 640, height: 640, rotation: 0))
        #expect(g.letterboxPadding == LetterboxPadding(left: 0, top: 0.125, right: 0, bottom: 0.125))
        // bottom-left, top-left, top-right, bottom-right (cv2.boxPoints gives exactly these).
        #expect(g.sourceCorners == [SIMD2(0, 560), SIMD2(0, -80), SIMD2(640, -80), SIMD2(640, 560)])
        #expect(g.tensorCorners == [SIMD2(0, 224), SIMD2(0, 0), SIMD2(224, 0), SIMD2(224, 224)])
        let m = g.tensorToImageMatrix
        #expect(m[0] == 1 && m[1] == 0 && m[3] == 0)
        #expect(m[4] == 0 && close(m[5], 640 / 480) && close(m[7], -80 / 480))
        #expect(m[10] == 1 && m[15] == 1 && m[2] == 0 && m[8] == 0 && m[12] == 0)
        // the top of the image sits at tensor v = 0.125, the bottom at v = 0.875
        #expect(close(g.projectToImage(SIMD2(0.3, 0.125)), SIMD2(0.3, 0)))
        #expect(close(g.projectToImage(SIMD2(0.3, 0.875)), SIMD2(0.3, 1)))
    }

    @Test func stretchHasNoPaddingAndSentinelOrInvalidRectsThrow() throws {
        let g = try ImageToTensorGeometry(rect: nil, imageWidth: 640, imageHeight: 480,
                                          tensorWidth: 256, tensorHeight: 256, keepAspectRatio: false)
        #expect(g.letterboxPadding == .zero && g.roi.width == 640 && g.roi.height == 480)
        #expect(throws: ImageToTensorGeometryError.sentinelRect) {
            try ImageToTensorGeometry(rect: NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0, height: 0),
                                      imageWidth: 10, imageHeight: 10, tensorWidth: 8, tensorHeight: 8, keepAspectRatio: true)
        }
        #expect(throws: ImageToTensorGeometryError.invalidROI(width: -5, height: 5)) {
            try ImageToTensorGeometry(rect: NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: -0.5, height: 0.5),
                                      imageWidth: 10, imageHeight: 10, tensorWidth: 8, tensorHeight: 8, keepAspectRatio: false)
        }
        #expect(throws: ImageToTensorGeometryError.self) {
            try ImageToTensorGeometry(rect: NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: .nan, height: 0.5),
                                      imageWidth: 10, imageHeight: 10, tensorWidth: 8, tensorHeight: 8, keepAspectRatio: true)
        }
        #expect(throws: ImageToTensorGeometryError.invalidImageSize(width: 0, height: 10)) {
            try ImageToTensorGeometry(rect: nil, imageWidth: 0, imageHeight: 10, tensorWidth: 8, tensorHeight: 8, keepAspectRatio: true)
        }
    }

    /// Reference values: `cv2.boxPoints(((cx, cy), (w, h), float32(float32(rot)·180)/π))` in the peer venv
    /// (OpenCV 5.0.0), float32 bits. MediaPipe 0.10.14 links OpenCV **3.4.20** (version string in
    /// `_framework_bindings.so`), whose `RotatedRect::points` derives the opposite corners as
    /// `p2 = 2c − p0`, `p3 = 2c − p1`; OpenCV 5 computes them directly, which can differ by an ulp —
    /// so p0/p1 are checked against cv2 bit for bit and p2/p3 against the 3.4 rule.
    @Test func boxPointsMatchOpenCVBitForBit() {
        let cases: [(PixelRotatedRect, [SIMD2<Float>])] = [
            (PixelRotatedRect(centerX: 123.4, centerY: 77.7, width: 90.5, height: 60.25, rotation: 0.3),
             [SIMD2(0x1.1d12ecp+6, 0x1.746dcap+6), SIMD2(0x1.644b58p+6, 0x1.1c62b4p+5),
              SIMD2(0x1.5f1024p+7, 0x1.f2579cp+5), SIMD2(0x1.3b73eep+7, 0x1.df683ep+6)]),
            (PixelRotatedRect(centerX: 412.25, centerY: 300.5, width: 333.3, height: 333.3, rotation: -2.5),
             [SIMD2(0x1.42bf7cp+9, 0x1.0ab98cp+8), SIMD2(0x1.be0676p+8, 0x1.0adf7cp+9)]),
            (PixelRotatedRect(centerX: 120, centerY: 120, width: 150, height: 150, rotation: Float(Double.pi / 2)),
             [SIMD2(45, 45), SIMD2(195, 45), SIMD2(195, 195), SIMD2(45, 195)]),
        ]
        for (rect, expected) in cases {
            let points = ImageToTensorGeometry.openCVBoxPoints(rect)
            #expect(Array(points.prefix(expected.count)) == expected)
            let c = SIMD2(rect.centerX, rect.centerY)
            #expect(points[2] == 2 * c - points[0] && points[3] == 2 * c - points[1])
        }
        // the second case's p2 with OpenCV 3.4's rule (cv2 5.0 gives 0x1.660214p+7 = 179.00406)
        let second = ImageToTensorGeometry.openCVBoxPoints(cases[1].0)
        #expect(second[2].x == 412.25 * 2 - 0x1.42bf7cp+9)
    }

    /// A rotated ROI on a non-square image: 300×200, rect 150×100 px at (120, 120) turned 90° clockwise,
    /// letterboxed to 256×256 (height padded to 150).
    let rotated = try! ImageToTensorGeometry(
        rect: NormalizedRect(xCenter: 0.4, yCenter: 0.6, width: 0.5, height: 0.5, rotation: Float(Double.pi / 2)),
        imageWidth: 300, imageHeight: 200, tensorWidth: 256, tensorHeight: 256, keepAspectRatio: true)

    @Test func rotatedNonSquareCase() {
        #expect(rotated.roi.width == 150 && rotated.roi.height == 150)
        #expect(close(rotated.letterboxPadding.top, 1 / 6) && rotated.letterboxPadding.left == 0)
        // Tensor top-left = center + R(90°)·(−75, −75) = (195, 45): the image's upper right.
        // (0.6f·200 = 120.0000076: the ROI center is not exactly 120)
        let expectedCorners: [SIMD2<Float>] = [SIMD2(45, 45), SIMD2(195, 45), SIMD2(195, 195), SIMD2(45, 195)]
        for (c, e) in zip(rotated.sourceCorners, expectedCorners) { #expect(close(c, e, 1e-4)) }
        // MATRIX maps the tensor's normalized corners onto the source corners (normalized).
        let tensorUnitCorners: [SIMD2<Float>] = [SIMD2(0, 1), SIMD2(0, 0), SIMD2(1, 0), SIMD2(1, 1)]
        for (t, s) in zip(tensorUnitCorners, rotated.sourceCorners) {
            #expect(close(rotated.projectToImage(t), SIMD2(s.x / 300, s.y / 200), 1e-5))
        }
        let m = rotated.tensorToImageMatrix
        #expect(close(m[0], 0, 1e-6) && close(m[1], -150 / 300) && close(m[4], 150 / 200) && close(m[10], 0.5))
        // tensor pixel → source pixel, OpenCV convention
        let t = rotated.tensorToSourcePixel
        #expect(abs(t.apply(0, 0).x - 195) < 1e-4 && abs(t.apply(0, 0).y - 45) < 1e-4)
        #expect(abs(t.apply(256, 0).y - 195) < 1e-4 && abs(t.apply(0, 256).x - 45) < 1e-4)
        #expect(abs(t.apply(128, 128).x - 120) < 1e-4 && abs(t.apply(128, 128).y - 120) < 1e-4)
        #expect(t.apply(0, 0).y == Double(rotated.sourceCorners[1].y))
    }

    @Test func maskWarpMapsOutputImagePixelsToMaskPixels() {
        // WARP_INVERSE_MAP direction: output image pixel (X, Y) → mask pixel.
        let a = rotated.maskWarpInverseAffine(maskWidth: 256, maskHeight: 256)
        let topLeft = a.apply(195, 45), bottomRight = a.apply(45, 195), center = a.apply(120, 120)
        let bottomLeft = a.apply(45, 45)
        #expect(abs(topLeft.x) < 1e-3 && abs(topLeft.y) < 1e-3)
        #expect(abs(bottomRight.x - 256) < 1e-3 && abs(bottomRight.y - 256) < 1e-3)
        #expect(abs(center.x - 128) < 1e-3 && abs(center.y - 128) < 1e-3)
        #expect(abs(bottomLeft.x) < 1e-3 && abs(bottomLeft.y - 256) < 1e-3)
        // and it is the inverse of the MATRIX (scaled): M · M⁻¹ = I
        let m = rotated.tensorToImageMatrix, inv = rotated.imageToTensorMatrix
        for r in 0..<4 {
            for c in 0..<4 {
                let v = (0..<4).reduce(Float(0)) { $0 + m[r * 4 + $1] * inv[$1 * 4 + c] }
                #expect(close(v, r == c ? 1 : 0, 1e-5))
            }
        }
    }

    @Test func detectionProjectionEqualsLetterboxRemovalWithoutRotation() throws {
        let g = try ImageToTensorGeometry(rect: nil, imageWidth: 640, imageHeight: 480,
                                          tensorWidth: 224, tensorHeight: 224, keepAspectRatio: true)
        let d = Detection(score: 0.8, xmin: 0.2, ymin: 0.3, width: 0.25, height: 0.4,
                          keypoints: [SIMD2(0.31, 0.52), SIMD2(0.33, 0.2)])
        let projected = g.projectToImage(d), removed = g.letterboxPadding.removing(from: d)
        #expect(close(projected.xmin, removed.xmin) && close(projected.ymin, removed.ymin))
        #expect(close(projected.width, removed.width) && close(projected.height, removed.height))
        for (p, r) in zip(projected.keypoints, removed.keypoints) { #expect(close(p, r)) }
        #expect(projected.score == 0.8)
    }

    @Test func detectionProjectionUnderRotationUsesTheBoundingBoxOfTheRotatedBox() throws {
        // iOS .right on a 300×200 image, letterboxed: ROI 300×300 px at (150, 100), θ = 3π/2, so
        // tensor (u, v) ↦ (150 + (v − ½)·300, 100 − (u − ½)·300) px.
        let rect = try DetectorInputRect.forOrientation(.right, imageWidth: 300, imageHeight: 200)
        let g = try ImageToTensorGeometry(rect: rect, imageWidth: 300, imageHeight: 200,
                                          tensorWidth: 224, tensorHeight: 224, keepAspectRatio: true)
        #expect(close(g.roi.width, 300, 1e-4) && close(g.roi.height, 300, 1e-4))
        let d = Detection(score: 0.9, xmin: 0.25, ymin: 0.25, width: 0.5, height: 0.25, keypoints: [SIMD2(0.5, 0.25)])
        let p = g.projectToImage(d)
        #expect(close(p.xmin, 0.25, 1e-5) && close(p.xmax, 0.5, 1e-5))
        #expect(close(p.ymin, 0.125, 1e-5) && close(p.ymax, 0.875, 1e-5))
        #expect(close(p.keypoints[0], SIMD2(0.25, 0.5), 1e-5))
    }
}

@Suite struct DetectorInputRectTests {
    @Test func iOSOrientations() throws {
        #expect(try DetectorInputRect.forOrientation(.up, imageWidth: 300, imageHeight: 200) == .fullImage)
        let down = try DetectorInputRect.forOrientation(.down, imageWidth: 300, imageHeight: 200)
        #expect(down.rotation == Float(Double.pi) && down.width == 1 && down.height == 1)
        let right = try DetectorInputRect.forOrientation(.right, imageWidth: 300, imageHeight: 200)
        #expect(right.rotation == Float(3 * Double.pi / 2))
        #expect(right.width == Float(200.0 / 300.0) && right.height == 1.5)
        let left = try DetectorInputRect.forOrientation(.left, imageWidth: 300, imageHeight: 200)
        #expect(left.rotation == Float(Double.pi / 2) && left.width == right.width && left.height == 1.5)
        for mirrored in [ImageOrientation.upMirrored, .downMirrored, .leftMirrored, .rightMirrored] {
            #expect(throws: DetectorInputRectError.mirroredOrientationUnsupported(mirrored)) {
                try DetectorInputRect.forOrientation(mirrored, imageWidth: 300, imageHeight: 200)
            }
        }
        #expect(try DetectorInputRect.forRotationDegrees(90).rotation == Float(-Double.pi / 2))
        #expect(try DetectorInputRect.forRotationDegrees(90).width == 1)
        #expect(throws: DetectorInputRectError.rotationNotMultipleOf90(45)) { try DetectorInputRect.forRotationDegrees(45) }
    }

    @Test func rightOrientedCropCoversExactlyTheImageWithItsTopLeftAtTheStoredBottomLeft() throws {
        let rect = try DetectorInputRect.forOrientation(.right, imageWidth: 300, imageHeight: 200)
        let g = try ImageToTensorGeometry(rect: rect, imageWidth: 300, imageHeight: 200,
                                          tensorWidth: 224, tensorHeight: 224, keepAspectRatio: false)
        let corners = g.sourceCorners
        // order: tensor bottom-left, top-left, top-right, bottom-right
        let expected: [SIMD2<Float>] = [SIMD2(300, 200), SIMD2(0, 200), SIMD2(0, 0), SIMD2(300, 0)]
        for (c, e) in zip(corners, expected) { #expect(close(c, e, 1e-3)) }
    }
}

@Suite struct CropBandTests {
    /// Splitting the crop into row bands (one per thread) must not change a byte or a float.
    @Test(arguments: [2, 3, 7, 500])
    func bandsGiveTheSameCrop(_ bands: Int) throws {
        let w = 37, h = 29
        let pixels = (0..<(w * h * 3)).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) }
        let image = try Image(rgb: pixels, width: w, height: h)
        let roi = NormalizedRect(xCenter: 0.55, yCenter: 0.45, width: 0.9, height: 0.9 * Float(w) / Float(h), rotation: 0.4)
        let geometry = try ImageToTensorGeometry(rect: roi, imageWidth: w, imageHeight: h, tensorWidth: 19, tensorHeight: 23,
                                                 keepAspectRatio: false)
        func crop(_ bands: Int) -> ([UInt8], [Float]) {
            var bytes = [UInt8](repeating: 0, count: 19 * 23 * 3)
            var floats = [Float](repeating: -1, count: 19 * 23 * 3)
            floats.withUnsafeMutableBufferPointer {
                CropSampler.sample(image, geometry: geometry, border: .replicate, into: &bytes, tensor: $0, valueRange: (-1, 1), bands: bands)
            }
            return (bytes, floats)
        }
        let one = crop(1), many = crop(bands)
        #expect(one.0 == many.0)
        #expect(one.1 == many.1)
        #expect(zip(one.0, one.1).allSatisfy { Float($0) * (2 / Float(255)) + -1 == $1 })
    }
}
