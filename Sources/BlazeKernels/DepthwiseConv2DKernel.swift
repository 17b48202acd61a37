import BlazeKernelsAVX512

/// Depthwise 2-D convolution (depth multiplier 1) on NHWC activations with `[KH, KW, C]` weights:
/// `out[y,x,c] = clamp(bias[c] + Σ_{ky,kx} in[y·sh−pt+ky·dh, x·sw−pl+kx·dw, c] · w[ky,kx,c])`,
/// taps outside the input reading zero. Never goes through GEMM.
///
/// ### See Also
/// - ``DepthwiseConv2DKernel/reference(input:weights:bias:output:window:channels:clamp:)``
public enum DepthwiseConv2DKernel {
    /// True when the SIMD kernels accumulate with fused multiply-adds (one rounding per tap), as in
    /// builds with FMA codegen (x86-64-v3, arm64); false in `BLAZEKIT_PORTABLE` builds for baseline
    /// x86-64, which round the product and the sum separately. Tests use it to rebuild the exact bits.
    public static var fusesMultiplyAdd: Bool {
        #if BLAZEKIT_FMA
        return true
        #else
        return false
        #endif
    }

    /// Direct SIMD kernel over output rows `rows`. Per output element: the bias, then one fused
    /// multiply-add per in-bounds tap in kernel order (row by row, left to right), then the clamp —
    /// so every path, block width and thread split gives the same bits.
    ///
    /// Interior columns (every tap in bounds) run in blocks of eight output pixels per eight channels
    /// (``DepthwiseRun8``; 3×3 and 5×5 at strides 1 and 2 have unrolled layouts), in chunks of
    /// pixels so a chunk's input stays in L1 while its channel blocks pass over it. With `wide` (only
    /// where `CPUFeatures.hasAVX512`) the channel blocks are sixteen wide (`DepthwiseTile16`), the
    /// last eight channels and the tail below eight taking the narrower paths. Border columns, and
    /// rows with fewer than four interior columns, go pixel by pixel over only the in-bounds taps,
    /// several channel blocks at a time; channels beyond the last block of eight are scalar.
    /// - Complexity: `2·outH·outW·C·KH·KW` flops.
    public static func direct(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                              output: UnsafeMutablePointer<Float>, window w: SpatialWindow, channels c: Int,
                              clamp: ClampBounds, rows: Range<Int>, wide: Bool = false) {
        guard c > 0, w.outputWidth > 0 else { return }
        let inRaw = UnsafeRawPointer(input), wRaw = UnsafeRawPointer(weights), bRaw = UnsafeRawPointer(bias)
        let outRaw = UnsafeMutableRawPointer(output)
        let interior = w.interiorColumns.clamped(to: 0..<w.outputWidth)
        let blocked = interior.count >= 4
        let c8 = c & ~7
        let c16 = wide ? c & ~15 : 0
        let lo = SIMD8<Float>(repeating: clamp.min), hi = SIMD8<Float>(repeating: clamp.max)
        let kw = w.kernelWidth
        let layout = DepthwiseRun8.layout(kernelWidth: kw, strideWidth: w.strideWidth, dilationWidth: w.dilationWidth)
        let rowStride = w.inputWidth * c            // floats per input row
        let xStep = w.strideWidth * c               // floats between successive output columns' inputs
        let dx = w.dilationWidth * c                // floats between taps in a kernel row
        let dy = w.dilationHeight * rowStride       // floats between kernel rows
        // Interior pixels per chunk: a multiple of the 8-pixel block, about 8 KB of input per kernel row.
        let chunk = max(8, (2048 / c) & ~7)

        for y in rows {
            let kRows = w.kernelRows(forOutputRow: y)
            let iy0 = y * w.strideHeight - w.padTop
            let outRow = y * w.outputWidth * c
            // Border columns (all columns when fewer than four are interior), checked.
            for x in 0..<w.outputWidth where !(blocked && interior.contains(x)) {
                borderPixel(input: inRaw, weights: wRaw, bias: bRaw, output: outRaw, window: w, channels: c, clamp: clamp,
                            wide: wide, y: y, x: x, kRows: kRows)
            }
            guard blocked else { continue }
            // The interior in chunks of pixels, every channel block of a chunk before the next chunk.
            // A remainder shorter than a block joins the last chunk.
            var chunkStart = interior.lowerBound
            while chunkStart < interior.upperBound {
                var count = min(chunk, interior.upperBound - chunkStart)
                if interior.upperBound - chunkStart - count < 8 { count = interior.upperBound - chunkStart }
                let firstInput = (iy0 &* w.inputWidth &+ chunkStart &* w.strideWidth &- w.padLeft) &* c
                let firstOutput = outRow &+ chunkStart &* c
                // AVX-512: 16-channel blocks first (BlazeKernelsAVX512), the rest eight at a time.
                if c16 > 0 {
                    DepthwiseTile16.run(input: inRaw + firstInput &* 4, weights: wRaw, bias: bRaw, output: outRaw + firstOutput &* 4,
                                        lo: clamp.min, hi: clamp.max, channelBlocks: c16 / 16, pixels: count, kernelRows: kRows,
                                        kernelWidth: kw, strideWidth: w.strideWidth, dilationWidth: w.dilationWidth,
                                        xStep: xStep &* 4, tapStep: dx &* 4, rowStep: dy &* 4, weightTap: c &* 4,
                                        weightRow: kw &* c &* 4, outStep: c &* 4)
                }
                if c16 < c8 {
                    DepthwiseRun8(input: inRaw + (firstInput &+ c16) &* 4, weights: wRaw + c16 &* 4, bias: bRaw + c16 &* 4,
                                  output: outRaw + (firstOutput &+ c16) &* 4, channelBlocks: (c8 - c16) / 8, lo: lo, hi: hi,
                                  kernelRows: kRows, kernelWidth: kw, pixelStep: xStep &* 4, tapStep: dx &* 4,
                                  rowStep: dy &* 4, weightTap: c &* 4, weightRow: kw &* c &* 4, outStep: c &* 4)
                        .run(pixels: count, layout: layout)
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

    /// One output pixel whose window may cross the padding: only its in-bounds taps, in kernel order.
    /// With `wide`, channels below the last multiple of 16 go through `DepthwiseTile16.pixel`; the rest
    /// run four blocks of eight at a time (four independent accumulators), then one block at a time,
    /// then scalar.
    @inline(never)
    private static func borderPixel(input: UnsafeRawPointer, weights: UnsafeRawPointer, bias: UnsafeRawPointer,
                                    output: UnsafeMutableRawPointer, window w: SpatialWindow, channels c: Int,
                                    clamp: ClampBounds, wide: Bool, y: Int, x: Int, kRows: Range<Int>) {
        typealias V = SIMD8<Float>
        let ix0 = x * w.strideWidth - w.padLeft
        let iy0 = y * w.strideHeight - w.padTop
        var kxFirst = 0, kxEnd = w.kernelWidth
        while kxFirst < kxEnd, ix0 + kxFirst * w.dilationWidth < 0 { kxFirst += 1 }
        while kxEnd > kxFirst, ix0 + (kxEnd - 1) * w.dilationWidth >= w.inputWidth { kxEnd -= 1 }
        let kxs = kxFirst..<kxEnd
        let out = output + (y * w.outputWidth + x) * c * 4
        // Byte offsets of tap (ky, kx): input (iy0 + ky·dh, ix0 + kx·dw), weights (ky, kx), channel 0.
        let inTap0 = ((iy0 * w.inputWidth + ix0) * c) * 4
        let inRow = w.dilationHeight * w.inputWidth * c * 4, inCol = w.dilationWidth * c * 4
        let wRow = w.kernelWidth * c * 4, wCol = c * 4
        var cb = 0
        if wide {
            cb = c & ~15
            if cb > 0 {
                DepthwiseTile16.pixel(input: input, inputOffset: inTap0, weights: weights, bias: bias, output: out, lo: clamp.min, hi: clamp.max,
                                      channels: cb, kernelRows: kRows, kernelColumns: kxs,
                                      rowStep: inRow, tapStep: inCol, weightRow: wRow, weightTap: wCol)
            }
        }
        let lo = V(repeating: clamp.min), hi = V(repeating: clamp.max)
        @inline(__always) func load(_ p: UnsafeRawPointer, _ offset: Int) -> V { p.loadUnaligned(fromByteOffset: offset, as: V.self) }
        while cb + 32 <= c {
            let b = bias + cb * 4
            var a0 = load(b, 0), a1 = load(b, 32), a2 = load(b, 64), a3 = load(b, 96)
            for ky in kRows {
                for kx in kxs {
                    let ip = input + (inTap0 + ky * inRow + kx * inCol + cb * 4)
                    let wp = weights + (ky * wRow + kx * wCol + cb * 4)
                    a0 = mulAdd(a0, load(ip, 0), load(wp, 0))
                    a1 = mulAdd(a1, load(ip, 32), load(wp, 32))
                    a2 = mulAdd(a2, load(ip, 64), load(wp, 64))
                    a3 = mulAdd(a3, load(ip, 96), load(wp, 96))
                }
            }
            out.storeBytes(of: clampLanes(a0, lo, hi), toByteOffset: cb * 4, as: V.self)
            out.storeBytes(of: clampLanes(a1, lo, hi), toByteOffset: cb * 4 + 32, as: V.self)
            out.storeBytes(of: clampLanes(a2, lo, hi), toByteOffset: cb * 4 + 64, as: V.self)
            out.storeBytes(of: clampLanes(a3, lo, hi), toByteOffset: cb * 4 + 96, as: V.self)
            cb += 32
        }
        while cb + 8 <= c {
            var a0 = load(bias, cb * 4)
            for ky in kRows {
                for kx in kxs {
                    a0 = mulAdd(a0, load(input, inTap0 + ky * inRow + kx * inCol + cb * 4), load(weights, ky * wRow + kx * wCol + cb * 4))
                }
            }
            out.storeBytes(of: clampLanes(a0, lo, hi), toByteOffset: cb * 4, as: V.self)
            cb += 8
        }
        let inF = input.assumingMemoryBound(to: Float.self), wF = weights.assumingMemoryBound(to: Float.self)
        let bF = bias.assumingMemoryBound(to: Float.self)
        while cb < c {
            var acc = bF[cb]
            for ky in kRows {
                for kx in kxs {
                    acc = mulAdd(acc, inF[(inTap0 + ky * inRow + kx * inCol) / 4 + cb], wF[(ky * wRow + kx * wCol) / 4 + cb])
                }
            }
            out.storeBytes(of: clamp.apply(acc), toByteOffset: cb * 4, as: Float.self)
            cb += 1
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
