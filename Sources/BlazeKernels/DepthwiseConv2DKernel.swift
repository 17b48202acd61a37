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
    /// Output pixels run in blocks of eight (`DepthwiseRun8`) per block of eight channels, in
    /// chunks of pixels so a chunk's input stays in L1 while its channel blocks pass over it. With
    /// `wide` (only where `CPUFeatures.hasAVX512`) the channel blocks are sixteen wide
    /// (`DepthwiseTile16`), the last eight channels taking the 8-wide path. 3×3 and 5×5 kernels at
    /// strides 1 and 2 (no dilation, padding under the kernel width) have unrolled layouts that also
    /// cover the border columns, checking a block's first and last KW − 1 input columns once per kernel
    /// row; other kernels block only the interior columns (every
    /// tap in bounds) and go pixel by pixel over the in-bounds taps at the borders, several channel
    /// blocks at a time. Rows narrower than four pixels go pixel by pixel. Channels beyond the last
    /// block of eight go as one more block of the last eight channels, which overlaps the block before
    /// it and writes the same bits there again; with fewer than eight channels in all they go one at a time.
    /// - Complexity: `2·outH·outW·C·KH·KW` flops.
    public static func direct(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                              output: UnsafeMutablePointer<Float>, window w: SpatialWindow, channels c: Int,
                              clamp: ClampBounds, rows: Range<Int>, wide: Bool = false) {
        direct(input: input, weights: weights, bias: bias, output: output, window: w, channels: c, clamp: clamp,
               pixels: (rows.lowerBound * w.outputWidth)..<(rows.upperBound * w.outputWidth), wide: wide)
    }

    /// ``direct(input:weights:bias:output:window:channels:clamp:rows:wide:)`` over output pixels `pixels`
    /// (row-major, `y · outputWidth + x`), which may start and end inside a row: a map of few rows splits
    /// evenly between threads by pixels (hand_landmark's 7×7 maps split by rows 3 : 4). The same bits.
    public static func direct(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                              output: UnsafeMutablePointer<Float>, window w: SpatialWindow, channels c: Int,
                              clamp: ClampBounds, pixels: Range<Int>, wide: Bool = false) {
        guard c > 0, w.outputWidth > 0, !pixels.isEmpty else { return }
        let inRaw = UnsafeRawPointer(input), wRaw = UnsafeRawPointer(weights), bRaw = UnsafeRawPointer(bias)
        let outRaw = UnsafeMutableRawPointer(output)
        let kw = w.kernelWidth
        let padRight = w.rightPaddingUsed
        let layout = DepthwiseRun8.layout(kernelWidth: kw, strideWidth: w.strideWidth, dilationWidth: w.dilationWidth,
                                          padLeft: w.padLeft, padRight: padRight)
        let interior = w.interiorColumns.clamped(to: 0..<w.outputWidth)
        // The pixels the blocks compute: the whole row for the unrolled layouts, else the interior.
        let span = layout == .generic ? interior : 0..<w.outputWidth
        let blocked = span.count >= 4
        let c8 = c & ~7
        let c16 = wide ? c & ~15 : 0
        let lo = SIMD8<Float>(repeating: clamp.min), hi = SIMD8<Float>(repeating: clamp.max)
        let xStep = w.strideWidth * c * 4            // bytes between successive output columns' inputs
        let tapStep = w.dilationWidth * c * 4        // bytes between taps in a kernel row
        let rowStep = w.dilationHeight * w.inputWidth * c * 4   // bytes between kernel rows
        // Pixels per chunk: a multiple of the 8-pixel block, about 8 KB of input per kernel row.
        let chunk = max(8, (2048 / c) & ~7)

        var pixel = pixels.lowerBound
        while pixel < pixels.upperBound {
            let y = pixel / w.outputWidth
            let columns = (pixel - y * w.outputWidth)..<min(w.outputWidth, pixel - y * w.outputWidth + pixels.upperBound - pixel)
            pixel += columns.count
            // The blocks' part of this row's columns; a part of under four pixels goes pixel by pixel.
            let part = blocked ? span.clamped(to: columns) : 0..<0
            let runs = part.count >= 4 ? part : 0..<0
            let kRows = w.kernelRows(forOutputRow: y)
            let iy0 = y * w.strideHeight - w.padTop
            let outRow = y * w.outputWidth * c
            // Pixels the blocks do not cover, checked, every channel.
            for x in columns where !runs.contains(x) {
                borderPixel(input: inRaw, weights: wRaw, bias: bRaw, output: outRaw, window: w, channels: c, from: 0,
                            clamp: clamp, wide: wide, y: y, x: x, kRows: kRows)
            }
            guard !runs.isEmpty else { continue }
            // Byte offsets of output pixel 0's first tap (input column −padLeft) and of output pixel 0.
            let rowInput = (iy0 &* w.inputWidth &- w.padLeft) &* c &* 4
            let rowOutput = outRow &* 4
            // The span in chunks of pixels, every channel block of a chunk before the next chunk.
            // A remainder shorter than a block joins the last chunk.
            var a = runs.lowerBound
            while a < runs.upperBound {
                var b = min(a + chunk, runs.upperBound)
                if runs.upperBound - b < 8 { b = runs.upperBound }
                // AVX-512: 16-channel blocks first (BlazeKernelsAVX512), the rest eight at a time.
                if c16 > 0 {
                    DepthwiseTile16.run(input: inRaw + rowInput, weights: wRaw, bias: bRaw, output: outRaw + rowOutput,
                                        lo: clamp.min, hi: clamp.max, channelBlocks: c16 / 16, from: a, to: b,
                                        interior: interior, firstColumn: -w.padLeft, padRight: padRight, inputWidth: w.inputWidth,
                                        kernelRows: kRows, kernelWidth: kw, strideWidth: w.strideWidth,
                                        dilationWidth: w.dilationWidth, xStep: xStep, tapStep: tapStep, rowStep: rowStep,
                                        weightTap: c &* 4, weightRow: kw &* c &* 4, outStep: c &* 4)
                }
                if c16 < c8 {
                    DepthwiseRun8(input: inRaw + (rowInput &+ c16 &* 4), weights: wRaw + c16 &* 4, bias: bRaw + c16 &* 4,
                                  output: outRaw + (rowOutput &+ c16 &* 4), channelBlocks: (c8 - c16) / 8, lo: lo, hi: hi,
                                  kernelRows: kRows, kernelWidth: kw, pixelStep: xStep, tapStep: tapStep, rowStep: rowStep,
                                  weightTap: c &* 4, weightRow: kw &* c &* 4, outStep: c &* 4,
                                  firstColumn: -w.padLeft, inputWidth: w.inputWidth, strideWidth: w.strideWidth,
                                  interior: interior, layout: layout)
                        .run(from: a, to: b)
                }
                // Channels past the last block of eight (face detection's 28, 36, 42): the last eight channels
                // as one more block, overlapping the block before it, whose channels it computes again with the
                // same operations, so it writes the same bits over them.
                if c8 < c, c >= 8 {
                    DepthwiseRun8(input: inRaw + (rowInput &+ (c &- 8) &* 4), weights: wRaw + (c &- 8) &* 4,
                                  bias: bRaw + (c &- 8) &* 4, output: outRaw + (rowOutput &+ (c &- 8) &* 4),
                                  channelBlocks: 1, lo: lo, hi: hi,
                                  kernelRows: kRows, kernelWidth: kw, pixelStep: xStep, tapStep: tapStep, rowStep: rowStep,
                                  weightTap: c &* 4, weightRow: kw &* c &* 4, outStep: c &* 4,
                                  firstColumn: -w.padLeft, inputWidth: w.inputWidth, strideWidth: w.strideWidth,
                                  interior: interior, layout: layout)
                        .run(from: a, to: b)
                }
                a = b
            }
            // Fewer than eight channels in all: one at a time.
            if c < 8 {
                for x in runs {
                    borderPixel(input: inRaw, weights: wRaw, bias: bRaw, output: outRaw, window: w, channels: c, from: c8,
                                clamp: clamp, wide: false, y: y, x: x, kRows: kRows)
                }
            }
        }
    }

    /// Channels `from..<c` of one output pixel whose window may cross the padding: only its in-bounds
    /// taps, in kernel order. With `wide` (and `from` 0), channels below the last multiple of 16 go
    /// through `DepthwiseTile16.pixel`; the rest run four blocks of eight at a time (four independent
    /// accumulators), then one block at a time, the last block overlapping the one before where the count is
    /// not a multiple of eight; fewer than eight channels from `from` go one at a time.
    @inline(never)
    private static func borderPixel(input: UnsafeRawPointer, weights: UnsafeRawPointer, bias: UnsafeRawPointer,
                                    output: UnsafeMutableRawPointer, window w: SpatialWindow, channels c: Int, from: Int,
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
        var cb = from
        if wide && from == 0 {
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
        while cb < c, c - from >= 8 {
            // Past the last whole block: the last eight channels, overlapping channels already written, with the same bits.
            cb = min(cb, c - 8)
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
