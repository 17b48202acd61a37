import BlazeKernels
import Foundation
import Testing

/// The kernels of op set 2 (RELU, MUL, STRIDED_SLICE and MediaPipe's three landmark-transform ops) against
/// their twins on awkward sizes, and the landmark ops against values worked out by hand.
@Suite struct HolisticKernelTests {
    @Test(arguments: [1, 7, 8, 9, 31, 1000])
    func reluMatchesReference(count: Int) {
        var rng = SeededRandom(seed: UInt64(count) + 40)
        var x = rng.array(count, -4, 4)
        x[0] = -0.0
        if count > 2 { x[2] = .nan }
        var e = [Float](repeating: 0, count: count), g = [Float](repeating: 7, count: count)
        ElementwiseKernel.reluReference(x, &e, count: count)
        ElementwiseKernel.relu(x, &g, range: 0..<(count / 3))
        ElementwiseKernel.relu(x, &g, range: (count / 3)..<count)
        expectBitIdentical(g, e, "relu of \(count)", nanMatchesAnyNaN: true)
        #expect(g[0].bitPattern == Float(0).bitPattern, "relu(-0) is +0")
    }

    @Test(arguments: [1, 7, 8, 9, 31, 1000])
    func mulMatchesReference(count: Int) {
        var rng = SeededRandom(seed: UInt64(count) + 50)
        let a = rng.array(count, -8, 8), b = rng.array(count, -8, 8)
        for scalar in [false, true] {
            for clamp in [ClampBounds.none, ClampBounds(min: 0, max: 6), ClampBounds(min: -1, max: 1)] {
                var e = [Float](repeating: 0, count: count), g = [Float](repeating: .nan, count: count)
                ElementwiseKernel.mulReference(a, b, scalar: scalar, &e, count: count, clamp: clamp)
                ElementwiseKernel.mul(a, b, scalar: scalar, &g, range: 0..<(count / 2), clamp: clamp)
                ElementwiseKernel.mul(a, b, scalar: scalar, &g, range: (count / 2)..<count, clamp: clamp)
                expectBitIdentical(g, e, "mul of \(count), scalar \(scalar), clamp \(clamp)")
            }
        }
    }

    /// (input shape, begin, strides, output shape), all 4-D.
    @Test(arguments: [
        ([1, 4, 4, 64], [0, 0, 0, 0], [1, 1, 1, 1], [1, 4, 4, 32]),
        ([1, 1, 1, 1404], [0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1404]),
        ([2, 5, 7, 9], [1, 1, 2, 3], [1, 2, 3, 2], [1, 2, 2, 3]),
        ([1, 9, 3, 5], [0, 8, 0, 4], [1, 1, 2, 1], [1, 1, 2, 1]),
    ])
    func stridedSliceMatchesReference(input: [Int], begin: [Int], strides: [Int], output: [Int]) {
        var rng = SeededRandom(seed: 60)
        let x = rng.array(input.reduce(1, *))
        let n = output.reduce(1, *), rows = output[0] * output[1] * output[2]
        var e = [Float](repeating: 0, count: n), g = [Float](repeating: .nan, count: n)
        LayoutKernel.stridedSliceReference(input: x, inputShape: input, begin: begin, strides: strides, output: &e, outputShape: output)
        LayoutKernel.stridedSlice(input: x, inputShape: input, begin: begin, strides: strides, output: &g, outputShape: output,
                                  rows: 0..<(rows / 2))
        LayoutKernel.stridedSlice(input: x, inputShape: input, begin: begin, strides: strides, output: &g, outputShape: output,
                                  rows: (rows / 2)..<rows)
        expectBitIdentical(g, e, "strided slice \(input) from \(begin) by \(strides)")
        // The reference itself, on the first case: a channel prefix.
        if input == [1, 4, 4, 64] { #expect(e[33] == x[65]) }
    }

    /// Matrices that map the output grid inside, across and outside the input's edges, on odd sizes.
    @Test(arguments: [(7, 9, 3, 5, 4), (48, 48, 32, 16, 16), (5, 5, 1, 9, 7)])
    func transformTensorBilinearMatchesTwin(h: Int, w: Int, c: Int, oh: Int, ow: Int) {
        var rng = SeededRandom(seed: UInt64(h * 100 + c))
        let x = rng.array(h * w * c)
        for trial in 0..<6 {
            let angle = rng.uniform(-0.6, 0.6), scale = rng.uniform(0.3, 1.6)
            let tx = rng.uniform(-3, Float(w)), ty = rng.uniform(-3, Float(h))
            var m = [Float](repeating: 0, count: 16)
            (m[0], m[1], m[3]) = (scale * cos(angle), -scale * sin(angle), tx)
            (m[4], m[5], m[7]) = (scale * sin(angle), scale * cos(angle), ty)
            (m[10], m[15]) = (1, 1)
            var e = [Float](repeating: 0, count: oh * ow * c), g = [Float](repeating: .nan, count: oh * ow * c)
            LandmarkTransformKernel.transformTensorBilinearReference(x, height: h, width: w, channels: c, matrix: m, output: &e,
                                                                     outputHeight: oh, outputWidth: ow)
            LandmarkTransformKernel.transformTensorBilinear(x, height: h, width: w, channels: c, matrix: m, output: &g,
                                                            outputWidth: ow, rows: 0..<(oh / 2))
            LandmarkTransformKernel.transformTensorBilinear(x, height: h, width: w, channels: c, matrix: m, output: &g,
                                                            outputWidth: ow, rows: (oh / 2)..<oh)
            expectBitIdentical(g, e, "bilinear \(h)x\(w)x\(c) -> \(oh)x\(ow), trial \(trial)")
        }
    }

    /// v2 shifts the matrix by half a pixel scaled (`m[3] += m[0]/2 + m[1]/2 − 1/2`): the identity copies the
    /// input, and a scale of 2 samples each output pixel at the centre of its 2×2 block (their mean).
    @Test func transformTensorBilinearSamplesPixelCentres() {
        let (h, w) = (8, 10)
        let x = (0..<(h * w)).map { Float($0 * $0 % 7) }
        var g = [Float](repeating: .nan, count: h * w)
        let identity: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        LandmarkTransformKernel.transformTensorBilinear(x, height: h, width: w, channels: 1, matrix: identity, output: &g,
                                                        outputWidth: w, rows: 0..<h)
        #expect(g == x)
        let half: [Float] = [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        var q = [Float](repeating: .nan, count: h * w / 4)
        LandmarkTransformKernel.transformTensorBilinear(x, height: h, width: w, channels: 1, matrix: half, output: &q,
                                                        outputWidth: w / 2, rows: 0..<(h / 2))
        for oy in 0..<(h / 2) { for ox in 0..<(w / 2) {
            let (y, x0) = (2 * oy, 2 * ox)
            let want = (x[y * w + x0] + x[y * w + x0 + 1] + x[(y + 1) * w + x0] + x[(y + 1) * w + x0 + 1]) / 4
            #expect(abs(q[oy * w / 2 + ox] - want) <= 1e-6, "(\(ox), \(oy)): \(q[oy * w / 2 + ox]) vs \(want)")
        } }
    }

    /// A matrix holding NaN or infinity (a network fed NaN) samples nowhere: zeros, as outside the input, not a trap.
    @Test(arguments: [Float.nan, .infinity, -.infinity])
    func transformTensorBilinearTreatsANonFiniteMatrixAsOutside(bad: Float) {
        let (h, w, c) = (6, 5, 3)
        let x = (0..<(h * w * c)).map { Float($0) }
        for entry in [0, 1, 3, 5, 7] {
            var m: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
            m[entry] = bad
            var g = [Float](repeating: -1, count: 4 * 4 * c), e = [Float](repeating: -1, count: 4 * 4 * c)
            LandmarkTransformKernel.transformTensorBilinear(x, height: h, width: w, channels: c, matrix: m, output: &g,
                                                            outputWidth: 4, rows: 0..<4)
            LandmarkTransformKernel.transformTensorBilinearReference(x, height: h, width: w, channels: c, matrix: m, output: &e,
                                                                     outputHeight: 4, outputWidth: 4)
            expectBitIdentical(g, e, "matrix entry \(entry) = \(bad)")
            #expect(!g.contains(-1) && !g.contains(where: \.isNaN), "matrix entry \(entry) = \(bad)")
        }
    }

    @Test func transformLandmarksAppliesTheAffineRows() {
        let m: [Float] = [2, 0, 0, 10, 0, 3, 0, -4, 0, 0, 1, 0, 0, 0, 0, 1]
        let two: [Float] = [1, 2, -3, 0.5]
        var g2 = [Float](repeating: .nan, count: 4)
        LandmarkTransformKernel.transformLandmarks(two, count: 2, dimensions: 2, matrix: m, output: &g2)
        #expect(g2 == [12, 2, 4, -2.5])
        let three: [Float] = [1, 2, 9, -3, 0.5, -7]
        var g3 = [Float](repeating: .nan, count: 6)
        LandmarkTransformKernel.transformLandmarks(three, count: 2, dimensions: 3, matrix: m, output: &g3)
        #expect(g3 == [12, 2, 9, 4, -2.5, -7])
    }

    /// An axis-aligned box of landmarks (rotation 0): the matrix scales the 16×16 output to 1.5 × the box and
    /// centres it on the box's centre, `t = shift(centre) · scale(1.5·size/16) · shift(−8)`.
    @Test func landmarksToTransformMatrixOfAnAxisAlignedBox() {
        // Landmarks 0 and 1 level (left, right), the subset spanning x 10...50, y 20...40.
        let points: [(Float, Float)] = [(10, 30), (50, 30), (30, 20), (30, 40), (25, 25)]
        let landmarks: [Float] = points.flatMap { [$0.0, $0.1, Float(0)] }
        let p = LandmarkTransformKernel.MatrixParameters(leftRotationIndex: 0, rightRotationIndex: 1, subset: [0, 1, 2, 3, 4],
                                                         targetRotationRadians: 0, scaleX: 1.5, scaleY: 1.5,
                                                         outputHeight: 16, outputWidth: 16)
        var g = [Float](repeating: .nan, count: 16)
        LandmarkTransformKernel.landmarksToTransformMatrix(landmarks, p, output: &g)
        let sx: Float = 1.5 * 40 / 16, sy: Float = 1.5 * 20 / 16
        let want: [Float] = [sx, 0, 0, 30 - 8 * sx, 0, sy, 0, 30 - 8 * sy, 0, 0, 1, 0, 0, 0, 0, 1]
        expectClose(g, want, rtol: 1e-6, atol: 1e-5, "matrix")
        // A quarter turn of the same landmarks: the first column turns with them.
        let turned: [Float] = points.flatMap { [-$0.1, $0.0, Float(0)] }
        LandmarkTransformKernel.landmarksToTransformMatrix(turned, p, output: &g)
        #expect(abs(g[0]) < 1e-5 && abs(g[4] - sx) < 1e-4, "rotated matrix \(g)")
    }
}
