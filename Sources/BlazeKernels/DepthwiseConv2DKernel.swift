import BlazeKernelsAVX512

/// Depthwise 2-D convolution (depth multiplier 1) on NHWC activations with `[KH, KW, C]` weights:
/// `out[y,x,c] = clamp(bias[c] + Σ_{ky,kx} in[y·sh−pt+ky·dh, x·sw−pl+kx·dw, c] · w[ky,kx,c])`,
/// taps outside the input reading zero. Never goes through GEMM.
///
/// ### See Also
/// - ``DepthwiseConv2DKernel/reference(input:weights:bias:output:window:channels:clamp:)``
public enum DepthwiseConv2DKernel {
    /// Direct SIMD kernel over output rows `rows`. With `wide` (only where `CPUFeatures.hasAVX512`),
    /// interior channels run in 16-channel AVX-512 blocks, with identical results. Channels are processed eight at a time with the
    /// kernel rows clipped once per output row; interior columns run without bounds checks, with
    /// the 3- and 5-wide kernel rows unrolled; border columns and the channel tail take a checked path.
    /// - Complexity: `2·outH·outW·C·KH·KW` flops.
    public static func direct(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                              output: UnsafeMutablePointer<Float>, window w: SpatialWindow, channels c: Int,
                              clamp: ClampBounds, rows: Range<Int>, wide: Bool = false) {
        let inRaw = UnsafeRawPointer(input), wRaw = UnsafeRawPointer(weights), bRaw = UnsafeRawPointer(bias)
        let outRaw = UnsafeMutableRawPointer(output)
        let interior = w.interiorColumns
        let c8 = c & ~7
        let lo = SIMD8<Float>(repeating: clamp.min), hi = SIMD8<Float>(repeating: clamp.max)
        let kw = w.kernelWidth
        let rowStride = w.inputWidth * c            // floats per input row
        let xStep = w.strideWidth * c               // floats between successive output columns' inputs
        let dx = w.dilationWidth * c                // floats between taps in a kernel row
        let dy = w.dilationHeight * rowStride       // floats between kernel rows

        for y in rows {
            let kRows = w.kernelRows(forOutputRow: y)
            let iy0 = y * w.strideHeight - w.padTop
            let outRow = y * w.outputWidth * c
            // Border columns (and everything when there is no interior), checked.
            for x in 0..<w.outputWidth where !interior.contains(x) {
                checkedPixel(input: input, weights: weights, bias: bias, output: output, window: w, channels: c,
                             clamp: clamp, y: y, x: x, kRows: kRows)
            }
            guard !interior.isEmpty else { continue }
            // The interior in chunks of pixels, every channel block of a chunk before the next chunk,
            // so the chunk's input rows are still in L1 when the next channel block reads them.
            let chunk = max(8, 2048 / max(c, 1))
            var chunkStart = interior.lowerBound
            while chunkStart < interior.upperBound {
                let count = min(chunk, interior.upperBound - chunkStart)
                let firstInput = (iy0 &* w.inputWidth &+ chunkStart &* w.strideWidth &- w.padLeft) &* c
                let firstOutput = outRow &+ chunkStart &* c
                var cb = 0
                // AVX-512: 16-channel blocks first (BlazeKernelsAVX512), the rest eight at a time.
                while wide, cb &+ 16 <= c {
                    DepthwiseTile16.run(input: inRaw + (firstInput &+ cb) &* 4, weights: wRaw + cb &* 4, bias: bRaw + cb &* 4,
                                        output: outRaw + (firstOutput &+ cb) &* 4,
                                        lo: clamp.min, hi: clamp.max, pixels: count, kernelRows: kRows, kernelWidth: kw,
                                        xStep: xStep &* 4, tapStep: dx &* 4, rowStep: dy &* 4, weightTap: c &* 4,
                                        weightRow: kw &* c &* 4, outStep: c &* 4)
                    cb &+= 16
                }
                while cb < c8 {
                    let geometry = InteriorRun(
                        input: inRaw + (firstInput &+ cb) &* 4, weights: wRaw + cb &* 4,
                        output: outRaw + (firstOutput &+ cb) &* 4,
                        bias: bRaw.loadUnaligned(fromByteOffset: cb &* 4, as: SIMD8<Float>.self), lo: lo, hi: hi,
                        pixels: count, kernelRows: kRows, xStepBytes: xStep &* 4, tapStepBytes: dx &* 4,
                        rowStepBytes: dy &* 4, weightTapBytes: c &* 4, weightRowBytes: kw &* c &* 4, outStepBytes: c &* 4)
                    switch kw {
                    case 3: geometry.run(kernelWidth: 3)
                    case 5: geometry.run(kernelWidth: 5)
                    default: geometry.run(kernelWidth: kw)
                    }
                    cb &+= 8
                }
                chunkStart &+= count
            }
            // Channel tail of interior columns, scalar.
            if c8 < c {
                for x in interior {
                    let ix0 = x * w.strideWidth - w.padLeft
                    for ch in c8..<c {
                        var acc = bias[ch]
                        for ky in kRows {
                            let base = ((iy0 + ky * w.dilationHeight) * w.inputWidth + ix0) * c + ch
                            for kx in 0..<kw { acc = mulAdd(acc, input[base + kx * dx], weights[(ky * kw + kx) * c + ch]) }
                        }
                        output[outRow + x * c + ch] = clamp.apply(acc)
                    }
                }
            }
        }
    }

    /// One channel block of one output row's interior columns, all taps in bounds.
    private struct InteriorRun {
        let input: UnsafeRawPointer, weights: UnsafeRawPointer
        let output: UnsafeMutableRawPointer
        let bias: SIMD8<Float>, lo: SIMD8<Float>, hi: SIMD8<Float>
        let pixels: Int
        let kernelRows: Range<Int>
        let xStepBytes: Int, tapStepBytes: Int, rowStepBytes: Int, weightTapBytes: Int, weightRowBytes: Int, outStepBytes: Int

        @inline(__always)
        func load(_ p: UnsafeRawPointer, _ offset: Int) -> SIMD8<Float> {
            p.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
        }

        /// Four output pixels per pass share each weight load; `kernelWidth` is a literal at the
        /// call sites so the tap loop unrolls.
        @inline(__always)
        func run(kernelWidth kw: Int) {
            var x = 0
            var ip = input
            var op = output
            let x1 = xStepBytes, x2 = xStepBytes &* 2, x3 = xStepBytes &* 3
            while x &+ 4 <= pixels {
                var a0 = bias, a1 = bias, a2 = bias, a3 = bias
                var ky = kernelRows.lowerBound
                var rp = ip + ky &* rowStepBytes
                var wp = weights + ky &* weightRowBytes
                while ky < kernelRows.upperBound {
                    for kx in 0..<kw {
                        let wv = load(wp, kx &* weightTapBytes)
                        let t = kx &* tapStepBytes
                        a0 = mulAdd(a0, load(rp, t), wv)
                        a1 = mulAdd(a1, load(rp, t &+ x1), wv)
                        a2 = mulAdd(a2, load(rp, t &+ x2), wv)
                        a3 = mulAdd(a3, load(rp, t &+ x3), wv)
                    }
                    rp += rowStepBytes
                    wp += weightRowBytes
                    ky &+= 1
                }
                op.storeBytes(of: clampLanes(a0, lo, hi), as: SIMD8<Float>.self)
                op.storeBytes(of: clampLanes(a1, lo, hi), toByteOffset: outStepBytes, as: SIMD8<Float>.self)
                op.storeBytes(of: clampLanes(a2, lo, hi), toByteOffset: outStepBytes &* 2, as: SIMD8<Float>.self)
                op.storeBytes(of: clampLanes(a3, lo, hi), toByteOffset: outStepBytes &* 3, as: SIMD8<Float>.self)
                x &+= 4
                ip += xStepBytes &* 4
                op += outStepBytes &* 4
            }
            while x < pixels {
                var a0 = bias
                var ky = kernelRows.lowerBound
                var rp = ip + ky &* rowStepBytes
                var wp = weights + ky &* weightRowBytes
                while ky < kernelRows.upperBound {
                    for kx in 0..<kw { a0 = mulAdd(a0, load(rp, kx &* tapStepBytes), load(wp, kx &* weightTapBytes)) }
                    rp += rowStepBytes
                    wp += weightRowBytes
                    ky &+= 1
                }
                op.storeBytes(of: clampLanes(a0, lo, hi), as: SIMD8<Float>.self)
                x &+= 1
                ip += xStepBytes
                op += outStepBytes
            }
        }
    }

    /// One output pixel whose window crosses the padding: only in-bounds taps, eight channels at a
    /// time, the same fused multiply-add order as the interior runs; scalar for the channel tail.
    @inline(__always)
    private static func checkedPixel(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                     output: UnsafeMutablePointer<Float>, window w: SpatialWindow, channels c: Int,
                                     clamp: ClampBounds, y: Int, x: Int, kRows: Range<Int>) {
        let out = UnsafeMutableRawPointer(output + (y * w.outputWidth + x) * c)
        let inRaw = UnsafeRawPointer(input), wRaw = UnsafeRawPointer(weights), bRaw = UnsafeRawPointer(bias)
        let lo = SIMD8<Float>(repeating: clamp.min), hi = SIMD8<Float>(repeating: clamp.max)
        let ix0 = x * w.strideWidth - w.padLeft
        var kxFirst = 0, kxEnd = w.kernelWidth
        while kxFirst < kxEnd, ix0 + kxFirst * w.dilationWidth < 0 { kxFirst += 1 }
        while kxEnd > kxFirst, ix0 + (kxEnd - 1) * w.dilationWidth >= w.inputWidth { kxEnd -= 1 }
        var cb = 0
        while cb + 8 <= c {
            var acc = bRaw.loadUnaligned(fromByteOffset: cb * 4, as: SIMD8<Float>.self)
            for ky in kRows {
                let iy = y * w.strideHeight - w.padTop + ky * w.dilationHeight
                for kx in kxFirst..<kxEnd {
                    let i = ((iy * w.inputWidth + ix0 + kx * w.dilationWidth) * c + cb) * 4
                    let k = ((ky * w.kernelWidth + kx) * c + cb) * 4
                    acc = mulAdd(acc, inRaw.loadUnaligned(fromByteOffset: i, as: SIMD8<Float>.self),
                                 wRaw.loadUnaligned(fromByteOffset: k, as: SIMD8<Float>.self))
                }
            }
            out.storeBytes(of: clampLanes(acc, lo, hi), toByteOffset: cb * 4, as: SIMD8<Float>.self)
            cb += 8
        }
        for ch in cb..<c {
            var acc = bias[ch]
            for ky in kRows {
                let iy = y * w.strideHeight - w.padTop + ky * w.dilationHeight
                for kx in kxFirst..<kxEnd {
                    acc = mulAdd(acc, input[(iy * w.inputWidth + ix0 + kx * w.dilationWidth) * c + ch],
                                 weights[(ky * w.kernelWidth + kx) * c + ch])
                }
            }
            out.storeBytes(of: clamp.apply(acc), toByteOffset: ch * 4, as: Float.self)
        }
    }

    /// The plain twin, the test oracle.
    public static func reference(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                 output: UnsafeMutablePointer<Float>, window w: SpatialWindow, channels c: Int,
                                 clamp: ClampBounds) {
        for y in 0..<w.outputHeight {
            for x in 0..<w.outputWidth {
                for ch in 0..<c {
                    var acc = Double(bias[ch])
                    for ky in 0..<w.kernelHeight {
                        let iy = y * w.strideHeight - w.padTop + ky * w.dilationHeight
                        guard iy >= 0, iy < w.inputHeight else { continue }
                        for kx in 0..<w.kernelWidth {
                            let ix = x * w.strideWidth - w.padLeft + kx * w.dilationWidth
                            guard ix >= 0, ix < w.inputWidth else { continue }
                            acc += Double(input[(iy * w.inputWidth + ix) * c + ch]) * Double(weights[(ky * w.kernelWidth + kx) * c + ch])
                        }
                    }
                    output[(y * w.outputWidth + x) * c + ch] = clamp.apply(Float(acc))
                }
            }
        }
    }
}
