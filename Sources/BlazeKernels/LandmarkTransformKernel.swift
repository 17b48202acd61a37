#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// MediaPipe's three custom ops of the attention face mesh (`mediapipe/util/tflite/operations/`, version 2 of
/// each), with their arithmetic order and precision: float32 throughout except where MediaPipe's C++
/// mixes in `double` literals (noted at each place), no fused multiply-adds. Each op is a few hundred
/// operations, so there is one plain implementation each; ``transformTensorBilinear`` has a per-channel twin.
public enum LandmarkTransformKernel {
    /// The parameters of `Landmarks2TransformMatrix` v2.
    public struct MatrixParameters: Sendable, Equatable {
        public var leftRotationIndex: Int, rightRotationIndex: Int
        /// The landmarks whose rotated bounding box gives the crop's centre and size.
        public var subset: [Int]
        public var targetRotationRadians: Float
        public var scaleX: Float, scaleY: Float
        public var outputHeight: Int, outputWidth: Int

        public init(leftRotationIndex: Int, rightRotationIndex: Int, subset: [Int], targetRotationRadians: Float,
                    scaleX: Float, scaleY: Float, outputHeight: Int, outputWidth: Int) {
            self.leftRotationIndex = leftRotationIndex
            self.rightRotationIndex = rightRotationIndex
            self.subset = subset
            self.targetRotationRadians = targetRotationRadians
            self.scaleX = scaleX
            self.scaleY = scaleY
            self.outputHeight = outputHeight
            self.outputWidth = outputWidth
        }
    }

    /// `Landmarks2TransformMatrix` v2: the row-major 4×4 matrix (16 floats into `output`) from landmarks
    /// `[N, 3]` (x, y, z). Indices must be below N (the planner checks them).
    public static func landmarksToTransformMatrix(_ landmarks: UnsafePointer<Float>, _ p: MatrixParameters,
                                                  output: UnsafeMutablePointer<Float>) {
        func x(_ i: Int) -> Float { landmarks[i * 3] }
        func y(_ i: Int) -> Float { landmarks[i * 3 + 1] }
        let l = p.leftRotationIndex, r = p.rightRotationIndex
        let rotation = p.targetRotationRadians - atan2f(y(r) - y(l), x(r) - x(l))
        // The subset's bounding box after rotating by `rotation` (points as (x, y, 1) through a 3×3 matrix).
        let rot = mat3(cosf(rotation), -sinf(rotation), 0, sinf(rotation), cosf(rotation), 0, 0, 0, 1)
        var maxX = -Float.infinity, maxY = -Float.infinity, minX = Float.infinity, minY = Float.infinity
        for (k, i) in p.subset.enumerated() {
            let v = mul3(rot, (x(i), y(i), 1))
            if k == 0 { (maxX, maxY, minX, minY) = (v.0, v.1, v.0, v.1); continue }
            if maxX < v.0 { maxX = v.0 }
            if maxY < v.1 { maxY = v.1 }
            if minX > v.0 { minX = v.0 }
            if minY > v.1 { minY = v.1 }
        }
        let cropWidth = maxX - minX, cropHeight = maxY - minY
        let inverse = mat3(cosf(-rotation), -sinf(-rotation), 0, sinf(-rotation), cosf(-rotation), 0, 0, 0, 1)
        let centre = mul3(inverse, ((minX + maxX) / 2, (minY + maxY) / 2, 1))
        var t: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        t = mul4(t, [1, 0, 0, centre.0, 0, 1, 0, centre.1, 0, 0, 1, 0, 0, 0, 0, 1])
        let a = -rotation
        t = mul4(t, [cosf(a), -sinf(a), 0, 0, sinf(a), cosf(a), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
        let sx = p.scaleX * cropWidth / Float(p.outputWidth), sy = p.scaleY * cropHeight / Float(p.outputHeight)
        t = mul4(t, [sx, 0, 0, 0, 0, sy, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])
        // `-1.0 * (output_width / 2.0)`: double, exact for these integers.
        let shiftX = Float(-1.0 * (Double(p.outputWidth) / 2.0)), shiftY = Float(-1.0 * (Double(p.outputHeight) / 2.0))
        t = mul4(t, [1, 0, 0, shiftX, 0, 1, 0, shiftY, 0, 0, 1, 0, 0, 0, 0, 1])
        for i in 0..<16 { output[i] = t[i] }
    }

    private static func mat3(_ v: Float...) -> [Float] { v }

    /// MediaPipe's `Mat3 * float3`: each row summed from 0 in k order.
    private static func mul3(_ m: [Float], _ v: (Float, Float, Float)) -> (Float, Float, Float) {
        let a = [v.0, v.1, v.2]
        var r: [Float] = [0, 0, 0]
        for row in 0..<3 {
            var sum: Float = 0
            for k in 0..<3 { sum += m[row * 3 + k] * a[k] }
            r[row] = sum
        }
        return (r[0], r[1], r[2])
    }

    /// MediaPipe's `Mat4 *=`: each element summed from 0 in k order.
    private static func mul4(_ a: [Float], _ b: [Float]) -> [Float] {
        var r = [Float](repeating: 0, count: 16)
        for row in 0..<4 { for c in 0..<4 {
            var sum: Float = 0
            for k in 0..<4 { sum += a[row * 4 + k] * b[k * 4 + c] }
            r[row * 4 + c] = sum
        } }
        return r
    }

    /// MediaPipe's `DotProduct` of a matrix row and `(x, y, 0, 1)`, left to right in float32.
    @inline(__always)
    static func apply(_ m: UnsafePointer<Float>, row: Int, _ x: Float, _ y: Float) -> Float {
        m[row * 4] * x + m[row * 4 + 1] * y + m[row * 4 + 2] * 0 + m[row * 4 + 3] * 1
    }

    /// `TransformLandmarks` v2: for `count` landmarks of `dimensions` (2 or 3) values, x and y through rows 0
    /// and 1 of the 4×4 `matrix` (z = 0, w = 1); a third value is copied.
    public static func transformLandmarks(_ landmarks: UnsafePointer<Float>, count: Int, dimensions: Int,
                                          matrix: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>) {
        for i in 0..<count {
            let o = i * dimensions
            let x = landmarks[o], y = landmarks[o + 1]
            output[o] = apply(matrix, row: 0, x, y)
            output[o + 1] = apply(matrix, row: 1, x, y)
            if dimensions == 3 { output[o + 2] = landmarks[o + 2] }
        }
    }

    /// `TransformTensorBilinear` v2 over output rows `rows`: output pixel (ox, oy) samples the `[H, W, C]`
    /// input bilinearly at rows 0 and 1 of `matrix` applied to (ox, oy) with the half-pixel shift; a point
    /// outside `[0, W−1] × [0, H−1]` gives zeros. The output is `[outputHeight, outputWidth, C]`.
    public static func transformTensorBilinear(_ input: UnsafePointer<Float>, height: Int, width: Int, channels: Int,
                                               matrix: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
                                               outputWidth: Int, rows: Range<Int>) {
        let m = shiftedRows(matrix)
        withUnsafeBytes(of: m) { bytes in
            let mp = bytes.bindMemory(to: Float.self)
            for oy in rows {
                for ox in 0..<outputWidth {
                    let dst = output + (oy * outputWidth + ox) * channels
                    guard let s = Sample(mp.baseAddress!, ox, oy, height: height, width: width) else {
                        dst.update(repeating: 0, count: channels)
                        continue
                    }
                    let w1 = 1.0 - Double(s.right), w2 = 1.0 - Double(s.lower)
                    for c in 0..<channels {
                        let q = s.corners(input, width: width, channels: channels, channel: c)
                        let upper = Float(w1 * Double(q.0) + Double(s.right * q.1))
                        let lower = Float(w1 * Double(q.2) + Double(s.right * q.3))
                        dst[c] = Float(Double(s.lower * lower) + w2 * Double(upper))
                    }
                }
            }
        }
    }

    /// The twin of ``transformTensorBilinear(_:height:width:channels:matrix:output:outputWidth:rows:)`` over every output
    /// element, the coordinates recomputed per channel as MediaPipe's loop does.
    public static func transformTensorBilinearReference(_ input: UnsafePointer<Float>, height: Int, width: Int, channels: Int,
                                                        matrix: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
                                                        outputHeight: Int, outputWidth: Int) {
        let m = shiftedRows(matrix)
        for oy in 0..<outputHeight { for ox in 0..<outputWidth { for c in 0..<channels {
            let tx = m[0] * Float(ox) + m[1] * Float(oy) + m[2] * 0 + m[3] * 1
            let ty = m[4] * Float(ox) + m[5] * Float(oy) + m[6] * 0 + m[7] * 1
            var result: Float = 0
            if tx >= 0, tx <= Float(width - 1), ty >= 0, ty <= Float(height - 1) {
                func read(_ h: Int, _ w: Int) -> Float {
                    h < 0 || w < 0 || h >= height || w >= width ? 0 : input[(h * width + w) * channels + c]
                }
                let fx = tx.rounded(.down), fy = ty.rounded(.down)
                let q11 = read(Int(fy), Int(fx)), q21 = read(Int(fy), Int(fx) + 1)
                let q12 = read(Int(fy) + 1, Int(fx)), q22 = read(Int(fy) + 1, Int(fx) + 1)
                let rc = tx - fx, lc = ty - fy
                let upper = Float((1.0 - Double(rc)) * Double(q11) + Double(rc * q21))
                let lower = Float((1.0 - Double(rc)) * Double(q12) + Double(rc * q22))
                result = Float(Double(lc * lower) + (1.0 - Double(lc)) * Double(upper))
            }
            output[(oy * outputWidth + ox) * channels + c] = result
        } } }
    }

    /// Rows 0 and 1 of the matrix with v2's half-pixel shift, `m[3] += m[0]·0.5 + m[1]·0.5 − 0.5`, done in
    /// double as MediaPipe's `0.5` literals make it.
    /// A vector, not an array: a run allocates nothing.
    private static func shiftedRows(_ matrix: UnsafePointer<Float>) -> SIMD8<Float> {
        var m = SIMD8<Float>(matrix[0], matrix[1], matrix[2], matrix[3], matrix[4], matrix[5], matrix[6], matrix[7])
        m[3] = Float(Double(m[3]) + (Double(m[0]) * 0.5 + Double(m[1]) * 0.5 - 0.5))
        m[7] = Float(Double(m[7]) + (Double(m[4]) * 0.5 + Double(m[5]) * 0.5 - 0.5))
        return m
    }

    /// One output pixel's sampling point: the top-left corner, the fractional weights, and whether the
    /// right column and the row below exist (MediaPipe reads cells outside the input as zeros).
    private struct Sample {
        let x0: Int, y0: Int
        let right: Float, lower: Float
        let hasRight: Bool, hasBelow: Bool

        init?(_ m: UnsafePointer<Float>, _ ox: Int, _ oy: Int, height: Int, width: Int) {
            let tx = LandmarkTransformKernel.apply(m, row: 0, Float(ox), Float(oy))
            let ty = LandmarkTransformKernel.apply(m, row: 1, Float(ox), Float(oy))
            // Written so that a NaN coordinate (from a NaN matrix) falls outside too.
            guard tx >= 0, tx <= Float(width - 1), ty >= 0, ty <= Float(height - 1) else { return nil }
            let fx = tx.rounded(.down), fy = ty.rounded(.down)
            (x0, y0, right, lower) = (Int(fx), Int(fy), tx - fx, ty - fy)
            (hasRight, hasBelow) = (x0 + 1 < width, y0 + 1 < height)
        }

        /// (q11, q21, q12, q22): top-left, top-right, bottom-left, bottom-right of channel `c`.
        @inline(__always)
        func corners(_ input: UnsafePointer<Float>, width: Int, channels: Int, channel c: Int) -> (Float, Float, Float, Float) {
            let top = input + (y0 * width + x0) * channels + c
            let below = top + width * channels
            return (top[0], hasRight ? top[channels] : 0,
                    hasBelow ? below[0] : 0, hasRight && hasBelow ? below[channels] : 0)
        }
    }
}
