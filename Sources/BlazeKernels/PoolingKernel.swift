/// Max pooling on NHWC: `out[y,x,c] = clamp(max over taps inside the input of in[…, c])`;
/// padded taps are ignored (TFLite semantics).
///
/// ### See Also
/// - ``MaxPoolKernel/reference(input:output:window:channels:clamp:)``
/// - ``MaxPoolKernel/anyWindow(input:output:window:channels:clamp:rows:)``
public enum MaxPoolKernel {
    /// SIMD over channels, eight at a time, for output rows `rows`. Every output is the running
    /// ``maxLanes(_:_:)`` from −∞ over its taps in row-major order, then the clamp, on every path.
    public static func direct(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, window w: SpatialWindow,
                              channels c: Int, clamp: ClampBounds, rows: Range<Int>) {
        if w.kernelHeight == 2, w.kernelWidth == 2, w.strideHeight == 2, w.strideWidth == 2,
           w.dilationHeight == 1, w.dilationWidth == 1, w.padTop == 0, w.padLeft == 0,
           2 * w.outputHeight <= w.inputHeight, 2 * w.outputWidth <= w.inputWidth {
            return twoByTwo(input: input, output: output, window: w, channels: c, clamp: clamp, rows: rows)
        }
        anyWindow(input: input, output: output, window: w, channels: c, clamp: clamp, rows: rows)
    }

    /// ``direct(input:output:window:channels:clamp:rows:)`` for any window and channel count: taps clipped to the
    /// input, eight channels a vector, then one at a time.
    public static func anyWindow(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, window w: SpatialWindow,
                                 channels c: Int, clamp: ClampBounds, rows: Range<Int>) {
        let ir = UnsafeRawPointer(input), or = UnsafeMutableRawPointer(output)
        let c8 = c & ~7
        let lo = SIMD8<Float>(repeating: clamp.min), hi = SIMD8<Float>(repeating: clamp.max)
        for y in rows {
            let kRows = w.kernelRows(forOutputRow: y)
            for x in 0..<w.outputWidth {
                var kx0 = 0, kx1 = w.kernelWidth
                let ix0 = x * w.strideWidth - w.padLeft
                while kx0 < kx1, ix0 + kx0 * w.dilationWidth < 0 { kx0 += 1 }
                while kx1 > kx0, ix0 + (kx1 - 1) * w.dilationWidth >= w.inputWidth { kx1 -= 1 }
                let outBase = (y * w.outputWidth + x) * c
                var cb = 0
                while cb < c8 {
                    var m = SIMD8<Float>(repeating: -.infinity)
                    for ky in kRows {
                        let iy = y * w.strideHeight - w.padTop + ky * w.dilationHeight
                        for kx in kx0..<kx1 {
                            let ix = ix0 + kx * w.dilationWidth
                            m = maxLanes(m, ir.loadUnaligned(fromByteOffset: ((iy * w.inputWidth + ix) * c + cb) * 4, as: SIMD8<Float>.self))
                        }
                    }
                    or.storeBytes(of: clampLanes(m, lo, hi), toByteOffset: (outBase + cb) * 4, as: SIMD8<Float>.self)
                    cb += 8
                }
                for ch in c8..<c {
                    var m = -Float.infinity
                    for ky in kRows {
                        let iy = y * w.strideHeight - w.padTop + ky * w.dilationHeight
                        for kx in kx0..<kx1 {
                            m = max(m, input[(iy * w.inputWidth + ix0 + kx * w.dilationWidth) * c + ch])
                        }
                    }
                    output[outBase + ch] = clamp.apply(m)
                }
            }
        }
    }

    /// The unpadded 2×2 stride-2 window (hand_landmark_lite's and face detection's pooling): every tap inside the
    /// input, four loads an output vector (`blaze-bench kernels --only pool`, 112 × 112 × 16 on an Intel AVX-512
    /// core: 0.135 ms through ``anyWindow(input:output:window:channels:clamp:rows:)``, 0.03–0.06 ms here).
    /// Channels past the last vector (face detection's 28 and 42) take `anyWindow`'s scalar steps: `max` from −∞
    /// in tap order, then the clamp, so both give the same bits.
    static func twoByTwo(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, window w: SpatialWindow,
                         channels c: Int, clamp: ClampBounds, rows: Range<Int>) {
        let lo = SIMD8<Float>(repeating: clamp.min), hi = SIMD8<Float>(repeating: clamp.max)
        let floor = SIMD8<Float>(repeating: -.infinity)
        let rowBytes = w.inputWidth * c * 4, pixelBytes = c * 4, vectorBytes = (c & ~7) * 4
        for y in rows {
            let top = UnsafeRawPointer(input) + 2 * y * rowBytes, bottom = top + rowBytes
            var out = UnsafeMutableRawPointer(output + y * w.outputWidth * c)
            for x in 0..<w.outputWidth {
                let left = 2 * x * pixelBytes, right = left + pixelBytes
                var offset = 0
                while offset < vectorBytes {
                    var m = maxLanes(floor, top.loadUnaligned(fromByteOffset: left + offset, as: SIMD8<Float>.self))
                    m = maxLanes(m, top.loadUnaligned(fromByteOffset: right + offset, as: SIMD8<Float>.self))
                    m = maxLanes(m, bottom.loadUnaligned(fromByteOffset: left + offset, as: SIMD8<Float>.self))
                    m = maxLanes(m, bottom.loadUnaligned(fromByteOffset: right + offset, as: SIMD8<Float>.self))
                    out.storeBytes(of: clampLanes(m, lo, hi), toByteOffset: offset, as: SIMD8<Float>.self)
                    offset += 32
                }
                while offset < pixelBytes {
                    var m = max(-Float.infinity, top.load(fromByteOffset: left + offset, as: Float.self))
                    m = max(m, top.load(fromByteOffset: right + offset, as: Float.self))
                    m = max(m, bottom.load(fromByteOffset: left + offset, as: Float.self))
                    m = max(m, bottom.load(fromByteOffset: right + offset, as: Float.self))
                    out.storeBytes(of: clamp.apply(m), toByteOffset: offset, as: Float.self)
                    offset += 4
                }
                out += pixelBytes
            }
        }
    }

    /// The plain twin of ``direct(input:output:window:channels:clamp:rows:)`` over every output row, the test oracle.
    public static func reference(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, window w: SpatialWindow,
                                 channels c: Int, clamp: ClampBounds) {
        for y in 0..<w.outputHeight {
            for x in 0..<w.outputWidth {
                for ch in 0..<c {
                    var m = -Float.infinity
                    for ky in 0..<w.kernelHeight {
                        for kx in 0..<w.kernelWidth {
                            let iy = y * w.strideHeight - w.padTop + ky * w.dilationHeight
                            let ix = x * w.strideWidth - w.padLeft + kx * w.dilationWidth
                            if iy >= 0, iy < w.inputHeight, ix >= 0, ix < w.inputWidth {
                                m = max(m, input[(iy * w.inputWidth + ix) * c + ch])
                            }
                        }
                    }
                    output[(y * w.outputWidth + x) * c + ch] = clamp.apply(m)
                }
            }
        }
    }
}
