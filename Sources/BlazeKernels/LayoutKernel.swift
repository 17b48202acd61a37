import CBLAS

/// Data-movement kernels: zero padding, depth-to-space, concatenation; plus mean and fully
/// connected, which reduce. Shapes are given as 4-D NHWC (lower ranks padded with leading 1s).
public enum LayoutKernel {
    /// Zero padding of a 4-D tensor: `pads` = `[before0, after0, …, before3, after3]`.
    /// Output rows `rows` index the flattened `(n, h)` output rows.
    public static func pad(input: UnsafePointer<Float>, inputShape s: [Int], pads: [Int], output: UnsafeMutablePointer<Float>,
                           rows: Range<Int>) {
        let oh = s[1] + pads[2] + pads[3], ow = s[2] + pads[4] + pads[5], oc = s[3] + pads[6] + pads[7]
        let outRow = ow * oc
        for r in rows {
            let n = r / oh, y = r % oh
            let dst = output + r * outRow
            let iy = y - pads[2], inN = n - pads[0]
            guard inN >= 0, inN < s[0], iy >= 0, iy < s[1] else {
                dst.update(repeating: 0, count: outRow)
                continue
            }
            dst.update(repeating: 0, count: pads[4] * oc)
            let src = input + ((inN * s[1] + iy) * s[2]) * s[3]
            if pads[6] == 0, pads[7] == 0 {
                (dst + pads[4] * oc).update(from: src, count: s[2] * s[3])
            } else {
                for x in 0..<s[2] {
                    let d = dst + (pads[4] + x) * oc
                    d.update(repeating: 0, count: pads[6])
                    (d + pads[6]).update(from: src + x * s[3], count: s[3])
                    (d + pads[6] + s[3]).update(repeating: 0, count: pads[7])
                }
            }
            (dst + (pads[4] + s[2]) * oc).update(repeating: 0, count: pads[5] * oc)
        }
    }

    /// The plain twin of ``pad(input:inputShape:pads:output:rows:)`` over every output element, the test oracle.
    public static func padReference(input: UnsafePointer<Float>, inputShape s: [Int], pads: [Int], output: UnsafeMutablePointer<Float>) {
        var o = [Int](repeating: 0, count: 4)
        for axis in 0..<4 { o[axis] = s[axis] + pads[2 * axis] + pads[2 * axis + 1] }
        var i = 0
        for n in 0..<o[0] { for y in 0..<o[1] { for x in 0..<o[2] { for c in 0..<o[3] {
            let a = n - pads[0], b = y - pads[2], d = x - pads[4], e = c - pads[6]
            let insideNH = (0..<s[0]).contains(a) && (0..<s[1]).contains(b)
            let insideWC = (0..<s[2]).contains(d) && (0..<s[3]).contains(e)
            let inside = insideNH && insideWC
            output[i] = inside ? input[((a * s[1] + b) * s[2] + d) * s[3] + e] : 0
            i += 1
        } } } }
    }

    /// TFLite DEPTH_TO_SPACE: `out[h·b+dy, w·b+dx, c] = in[h, w, (dy·b+dx)·C_out + c]`, over input rows `rows`.
    public static func depthToSpace(input: UnsafePointer<Float>, height: Int, width: Int, channels: Int, blockSize b: Int,
                                    output: UnsafeMutablePointer<Float>, rows: Range<Int>) {
        let oc = channels / (b * b), ow = width * b
        for h in rows {
            for w in 0..<width {
                for dy in 0..<b {
                    let src = input + (h * width + w) * channels + dy * b * oc
                    let dst = output + ((h * b + dy) * ow + w * b) * oc
                    dst.update(from: src, count: b * oc)
                }
            }
        }
    }

    /// The plain twin of ``depthToSpace(input:height:width:channels:blockSize:output:rows:)`` over every output element, the test oracle.
    public static func depthToSpaceReference(input: UnsafePointer<Float>, height: Int, width: Int, channels: Int, blockSize b: Int,
                                             output: UnsafeMutablePointer<Float>) {
        let oc = channels / (b * b)
        for oy in 0..<(height * b) { for ox in 0..<(width * b) { for c in 0..<oc {
            let h = oy / b, dy = oy % b, w = ox / b, dx = ox % b
            output[(oy * width * b + ox) * oc + c] = input[(h * width + w) * channels + (dy * b + dx) * oc + c]
        } } }
    }

    /// Concatenation: the output is `outer` blocks, block `o` being input 0's `o`-th run of
    /// `runLengths[0]` floats, then input 1's, and so on.
    public static func concatenate(inputs: [UnsafePointer<Float>], runLengths: [Int], outer: Int, output: UnsafeMutablePointer<Float>) {
        var dst = output
        for o in 0..<outer {
            for (p, n) in zip(inputs, runLengths) {
                dst.update(from: p + o * n, count: n)
                dst += n
            }
        }
    }

    /// Mean over the middle axis of a `[outer, reduce, inner]` view (e.g. H·W of NHWC with `inner` = C).
    public static func mean(input: UnsafePointer<Float>, outer: Int, reduce: Int, inner: Int, output: UnsafeMutablePointer<Float>) {
        let scale = 1 / Float(reduce)
        for o in 0..<outer {
            let dst = output + o * inner
            dst.update(repeating: 0, count: inner)
            for r in 0..<reduce {
                let src = input + (o * reduce + r) * inner
                for i in 0..<inner { dst[i] += src[i] }
            }
            for i in 0..<inner { dst[i] *= scale }
        }
    }

    /// The plain twin of ``mean(input:outer:reduce:inner:output:)``, summing in double precision: the test oracle.
    public static func meanReference(input: UnsafePointer<Float>, outer: Int, reduce: Int, inner: Int, output: UnsafeMutablePointer<Float>) {
        for o in 0..<outer { for i in 0..<inner {
            var s = 0.0
            for r in 0..<reduce { s += Double(input[(o * reduce + r) * inner + i]) }
            output[o * inner + i] = Float(s / Double(reduce))
        } }
    }

    /// Fully connected: `out[m, n] = clamp(bias[n] + Σ_k x[m, k] · W[n, k])` for output columns `columns`.
    ///
    /// OpenBLAS does the products, one call per block of columns small enough (``openBLASSingleThreadLimit``)
    /// that OpenBLAS runs it on the calling thread. A larger call would wake OpenBLAS's own threads, which then
    /// spin for about a tenth of a second on the host's cores: a landmarker asked for one thread burned two
    /// (measured: 16 ms of wall time and 32 ms of CPU per hand photo), and two landmarkers on two threads
    /// competed with those spinners. Every output's dot product is the same call of the same OpenBLAS kernel
    /// either way (blocks are whole multiples of 4 columns, OpenBLAS's block, and the remainder stays last),
    /// so the results are the same bits as one call.
    public static func fullyConnected(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                      output: UnsafeMutablePointer<Float>, rows m: Int, inFeatures k: Int, outFeatures n: Int,
                                      columns: Range<Int>, clamp: ClampBounds) {
        guard !columns.isEmpty else { return }
        for r in 0..<m { (output + r * n + columns.lowerBound).update(from: bias + columns.lowerBound, count: columns.count) }
        let perCall = singleThreadedColumns(rows: m, inFeatures: k)
        var start = columns.lowerBound
        while start < columns.upperBound {
            // Blocks of `perCall` columns, then the rest: the last (partial) group of 4 stays last, as in one call.
            let end = columns.upperBound - start > perCall ? start + perCall : columns.upperBound
            let count = end - start
            if m == 1 {
                cblas_sgemv(CblasRowMajor, CblasNoTrans, Int32(count), Int32(k), 1,
                            weights + start * k, Int32(k), input, 1, 1, output + start, 1)
            } else {
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(m), Int32(count), Int32(k), 1,
                            input, Int32(k), weights + start * k, Int32(k), 1, output + start, Int32(n))
            }
            start = end
        }
        if clamp != .none {
            for r in 0..<m { for j in columns { output[r * n + j] = clamp.apply(output[r * n + j]) } }
        }
    }

    /// Below this many multiply-adds per `cblas_sgemv` call (columns × inFeatures), OpenBLAS 0.3 computes on the
    /// calling thread (`interface/gemv.c`: `m · n < 2304 · GEMM_MULTITHREAD_THRESHOLD`, the threshold 4 by
    /// default); `cblas_sgemm` stays there below 65536 · 4 (`interface/gemm.c`, `SMP_THRESHOLD_MIN`).
    public static let openBLASSingleThreadLimit: (gemv: Int, gemm: Int) = (gemv: 2304 * 4, gemm: 65536 * 4)

    /// Columns per OpenBLAS call that keep the call on the calling thread: a multiple of 4, OpenBLAS's column
    /// block. When not even 4 columns fit (an input row of 2304 or more), all columns in one call (`Int.max`):
    /// smaller blocks would move columns out of OpenBLAS's 4-column kernel and change their last bits, so such
    /// a layer keeps OpenBLAS's own threading. The built-in models' rows are 672 and 1152 long.
    public static func singleThreadedColumns(rows m: Int, inFeatures k: Int) -> Int {
        let limit = m == 1 ? openBLASSingleThreadLimit.gemv : openBLASSingleThreadLimit.gemm
        let fit = (limit - 1) / max(1, m * k)
        return fit >= 4 ? fit / 4 * 4 : Int.max
    }

    /// The plain twin of ``fullyConnected(input:weights:bias:output:rows:inFeatures:outFeatures:columns:clamp:)`` over
    /// every output column, summing in double precision: the test oracle.
    public static func fullyConnectedReference(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                               output: UnsafeMutablePointer<Float>, rows m: Int, inFeatures k: Int, outFeatures n: Int,
                                               clamp: ClampBounds) {
        for r in 0..<m { for j in 0..<n {
            var s = Double(bias[j])
            for i in 0..<k { s += Double(input[r * k + i]) * Double(weights[j * k + i]) }
            output[r * n + j] = clamp.apply(Float(s))
        } }
    }
}
