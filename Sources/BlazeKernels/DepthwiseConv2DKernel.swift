/// Depthwise 2-D convolution (depth multiplier 1) on NHWC activations with `[KH, KW, C]` weights:
/// `out[y,x,c] = clamp(bias[c] + Σ_{ky,kx} in[y·sh−pt+ky·dh, x·sw−pl+kx·dw, c] · w[ky,kx,c])`,
/// taps outside the input reading zero. Never goes through GEMM.
///
/// ### See Also
/// - ``DepthwiseConv2DKernel/reference(input:weights:bias:output:window:channels:clamp:)``
public enum DepthwiseConv2DKernel {
    /// Direct SIMD kernel over output rows `rows`. Channels are processed eight at a time with the
    /// kernel rows clipped once per output row; interior columns run without bounds checks, with
    /// the 3- and 5-wide kernel rows unrolled; border columns and the channel tail take a checked path.
    /// - Complexity: `2·outH·outW·C·KH·KW` flops.
    public static func direct(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                              output: UnsafeMutablePointer<Float>, window w: SpatialWindow, channels c: Int,
                              clamp: ClampBounds, rows: Range<Int>) {
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
            var cb = 0
            while cb < c8 {
                let b = bRaw.loadUnaligned(fromByteOffset: cb * 4, as: SIMD8<Float>.self)
                var x = interior.lowerBound
                var inBase = (iy0 * w.inputWidth + x * w.strideWidth - w.padLeft) * c + cb
                var outIndex = outRow + x * c + cb
                switch kw {
                case 3:
                    while x < interior.upperBound {
                        var acc = b
                        var ky = kRows.lowerBound
                        while ky < kRows.upperBound {
                            let ip = inBase + ky * dy, wp = (ky * 3) * c + cb
                            acc += inRaw.loadUnaligned(fromByteOffset: ip * 4, as: SIMD8<Float>.self)
                                * wRaw.loadUnaligned(fromByteOffset: wp * 4, as: SIMD8<Float>.self)
                            acc += inRaw.loadUnaligned(fromByteOffset: (ip + dx) * 4, as: SIMD8<Float>.self)
                                * wRaw.loadUnaligned(fromByteOffset: (wp + c) * 4, as: SIMD8<Float>.self)
                            acc += inRaw.loadUnaligned(fromByteOffset: (ip + 2 * dx) * 4, as: SIMD8<Float>.self)
                                * wRaw.loadUnaligned(fromByteOffset: (wp + 2 * c) * 4, as: SIMD8<Float>.self)
                            ky += 1
                        }
                        outRaw.storeBytes(of: acc.clamped(lowerBound: lo, upperBound: hi), toByteOffset: outIndex * 4, as: SIMD8<Float>.self)
                        x += 1
                        inBase += xStep
                        outIndex += c
                    }
                case 5:
                    while x < interior.upperBound {
                        var acc = b
                        var ky = kRows.lowerBound
                        while ky < kRows.upperBound {
                            let ip = inBase + ky * dy, wp = (ky * 5) * c + cb
                            acc += inRaw.loadUnaligned(fromByteOffset: ip * 4, as: SIMD8<Float>.self)
                                * wRaw.loadUnaligned(fromByteOffset: wp * 4, as: SIMD8<Float>.self)
                            acc += inRaw.loadUnaligned(fromByteOffset: (ip + dx) * 4, as: SIMD8<Float>.self)
                                * wRaw.loadUnaligned(fromByteOffset: (wp + c) * 4, as: SIMD8<Float>.self)
                            acc += inRaw.loadUnaligned(fromByteOffset: (ip + 2 * dx) * 4, as: SIMD8<Float>.self)
                                * wRaw.loadUnaligned(fromByteOffset: (wp + 2 * c) * 4, as: SIMD8<Float>.self)
                            acc += inRaw.loadUnaligned(fromByteOffset: (ip + 3 * dx) * 4, as: SIMD8<Float>.self)
                                * wRaw.loadUnaligned(fromByteOffset: (wp + 3 * c) * 4, as: SIMD8<Float>.self)
                            acc += inRaw.loadUnaligned(fromByteOffset: (ip + 4 * dx) * 4, as: SIMD8<Float>.self)
                                * wRaw.loadUnaligned(fromByteOffset: (wp + 4 * c) * 4, as: SIMD8<Float>.self)
                            ky += 1
                        }
                        outRaw.storeBytes(of: acc.clamped(lowerBound: lo, upperBound: hi), toByteOffset: outIndex * 4, as: SIMD8<Float>.self)
                        x += 1
                        inBase += xStep
                        outIndex += c
                    }
                default:
                    while x < interior.upperBound {
                        var acc = b
                        for ky in kRows {
                            for kx in 0..<kw {
                                acc += inRaw.loadUnaligned(fromByteOffset: (inBase + ky * dy + kx * dx) * 4, as: SIMD8<Float>.self)
                                    * wRaw.loadUnaligned(fromByteOffset: ((ky * kw + kx) * c + cb) * 4, as: SIMD8<Float>.self)
                            }
                        }
                        outRaw.storeBytes(of: acc.clamped(lowerBound: lo, upperBound: hi), toByteOffset: outIndex * 4, as: SIMD8<Float>.self)
                        x += 1
                        inBase += xStep
                        outIndex += c
                    }
                }
                cb += 8
            }
            // Channel tail of interior columns, scalar.
            if c8 < c {
                for x in interior {
                    let ix0 = x * w.strideWidth - w.padLeft
                    for ch in c8..<c {
                        var acc = bias[ch]
                        for ky in kRows {
                            let base = ((iy0 + ky * w.dilationHeight) * w.inputWidth + ix0) * c + ch
                            for kx in 0..<kw { acc += input[base + kx * dx] * weights[(ky * kw + kx) * c + ch] }
                        }
                        output[outRow + x * c + ch] = clamp.apply(acc)
                    }
                }
            }
        }
    }

    @inline(__always)
    private static func checkedPixel(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                     output: UnsafeMutablePointer<Float>, window w: SpatialWindow, channels c: Int,
                                     clamp: ClampBounds, y: Int, x: Int, kRows: Range<Int>) {
        let out = output + (y * w.outputWidth + x) * c
        out.update(from: bias, count: c)
        for ky in kRows {
            let iy = y * w.strideHeight - w.padTop + ky * w.dilationHeight
            for kx in 0..<w.kernelWidth {
                let ix = x * w.strideWidth - w.padLeft + kx * w.dilationWidth
                guard ix >= 0, ix < w.inputWidth else { continue }
                let ip = input + (iy * w.inputWidth + ix) * c
                let wp = weights + (ky * w.kernelWidth + kx) * c
                for ch in 0..<c { out[ch] += ip[ch] * wp[ch] }
            }
        }
        for ch in 0..<c { out[ch] = clamp.apply(out[ch]) }
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
