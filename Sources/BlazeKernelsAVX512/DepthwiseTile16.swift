/// The AVX-512 interior run of the depthwise convolution: one block of 16 channels along one output
/// row, where every tap is in bounds, eight output pixels per pass sharing each weight load. The same
/// arithmetic as the 8-channel run in `BlazeKernels.DepthwiseConv2DKernel` (bias, then one fused
/// multiply-add per tap in kernel order, then the clamp), so both give identical bits per lane.
public enum DepthwiseTile16 {
    /// Geometry in bytes: `xStep` between successive output pixels' first taps, `tapStep` between
    /// taps of a kernel row, `rowStep` between kernel rows; `weightTap`/`weightRow` likewise in the
    /// `[KH, KW, C]` weights; `outStep` between output pixels. `input` points at the first tap of
    /// kernel row 0 for the first pixel, `weights` at kernel row 0, tap 0 of this channel block.
    @inline(never)
    public static func run(input: UnsafeRawPointer, weights: UnsafeRawPointer, bias: UnsafeRawPointer,
                           output: UnsafeMutableRawPointer, lo: Float, hi: Float, pixels: Int,
                           kernelRows: Range<Int>, kernelWidth: Int, xStep: Int, tapStep: Int, rowStep: Int,
                           weightTap: Int, weightRow: Int, outStep: Int) {
        let g = Geometry(input: input, weights: weights, bias: bias.loadUnaligned(as: SIMD16<Float>.self), output: output,
                         lo: SIMD16(repeating: lo), hi: SIMD16(repeating: hi), pixels: pixels, kernelRows: kernelRows,
                         xStep: xStep, tapStep: tapStep, rowStep: rowStep, weightTap: weightTap, weightRow: weightRow,
                         outStep: outStep)
        switch kernelWidth {
        case 3: g.run(kernelWidth: 3)
        case 5: g.run(kernelWidth: 5)
        default: g.run(kernelWidth: kernelWidth)
        }
    }

    private struct Geometry {
        typealias V = SIMD16<Float>
        let input: UnsafeRawPointer, weights: UnsafeRawPointer, bias: V, output: UnsafeMutableRawPointer
        let lo: V, hi: V
        let pixels: Int, kernelRows: Range<Int>
        let xStep: Int, tapStep: Int, rowStep: Int, weightTap: Int, weightRow: Int, outStep: Int

        @inline(__always) func load(_ p: UnsafeRawPointer, _ offset: Int) -> V { p.loadUnaligned(fromByteOffset: offset, as: V.self) }

        @inline(__always) func clamp(_ v: V) -> V {
            let x = v.replacing(with: lo, where: v .< lo)
            return x.replacing(with: hi, where: x .> hi)
        }

        @inline(__always)
        func run(kernelWidth kw: Int) {
            var x = 0
            var ip = input
            var op = output
            // Eight output pixels per pass: eight independent accumulator chains keep both FMA
            // pipes busy (four left the kernel waiting on FMA latency).
            let x1 = xStep, x2 = xStep &* 2, x3 = xStep &* 3, x4 = xStep &* 4
            let x5 = xStep &* 5, x6 = xStep &* 6, x7 = xStep &* 7
            while x &+ 8 <= pixels {
                var s0 = bias, s1 = bias, s2 = bias, s3 = bias, s4 = bias, s5 = bias, s6 = bias, s7 = bias
                var ky = kernelRows.lowerBound
                var rp = ip + ky &* rowStep
                var wp = weights + ky &* weightRow
                while ky < kernelRows.upperBound {
                    var tp = rp
                    for kx in 0..<kw {
                        let wv = load(wp, kx &* weightTap)
                        s0 = s0.addingProduct(load(tp, 0), wv)
                        s1 = s1.addingProduct(load(tp, x1), wv)
                        s2 = s2.addingProduct(load(tp, x2), wv)
                        s3 = s3.addingProduct(load(tp, x3), wv)
                        s4 = s4.addingProduct(load(tp, x4), wv)
                        s5 = s5.addingProduct(load(tp, x5), wv)
                        s6 = s6.addingProduct(load(tp, x6), wv)
                        s7 = s7.addingProduct(load(tp, x7), wv)
                        tp += tapStep
                    }
                    rp += rowStep
                    wp += weightRow
                    ky &+= 1
                }
                op.storeBytes(of: clamp(s0), as: V.self)
                op.storeBytes(of: clamp(s1), toByteOffset: outStep, as: V.self)
                op.storeBytes(of: clamp(s2), toByteOffset: outStep &* 2, as: V.self)
                op.storeBytes(of: clamp(s3), toByteOffset: outStep &* 3, as: V.self)
                op.storeBytes(of: clamp(s4), toByteOffset: outStep &* 4, as: V.self)
                op.storeBytes(of: clamp(s5), toByteOffset: outStep &* 5, as: V.self)
                op.storeBytes(of: clamp(s6), toByteOffset: outStep &* 6, as: V.self)
                op.storeBytes(of: clamp(s7), toByteOffset: outStep &* 7, as: V.self)
                x &+= 8
                ip += xStep &* 8
                op += outStep &* 8
            }
            while x < pixels {
                var s0 = bias
                var ky = kernelRows.lowerBound
                var rp = ip + ky &* rowStep
                var wp = weights + ky &* weightRow
                while ky < kernelRows.upperBound {
                    for kx in 0..<kw { s0 = s0.addingProduct(load(rp, kx &* tapStep), load(wp, kx &* weightTap)) }
                    rp += rowStep
                    wp += weightRow
                    ky &+= 1
                }
                op.storeBytes(of: clamp(s0), as: V.self)
                x &+= 1
                ip += xStep
                op += outStep
            }
        }
    }
}
