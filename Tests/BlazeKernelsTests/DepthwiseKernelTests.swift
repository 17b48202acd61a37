import BlazeKernels
import Testing

/// The depthwise kernel's exact arithmetic, written as plainly as possible: per output element the
/// bias, then one multiply-add per in-bounds tap in kernel order (row by row, left to right) — fused
/// when the kernels are (`DepthwiseConv2DKernel.fusesMultiplyAdd`) — then the clamp. Every SIMD path
/// of `DepthwiseConv2DKernel.direct` must reproduce these bits exactly.
func depthwiseInOrderReference(input: [Float], weights: [Float], bias: [Float], window w: SpatialWindow,
                               channels c: Int, clamp: ClampBounds) -> [Float] {
    let fused = DepthwiseConv2DKernel.fusesMultiplyAdd
    var out = [Float](repeating: .nan, count: w.outputHeight * w.outputWidth * c)
    for y in 0..<w.outputHeight {
        for x in 0..<w.outputWidth {
            for ch in 0..<c {
                var acc = bias[ch]
                for ky in 0..<w.kernelHeight {
                    let iy = y * w.strideHeight - w.padTop + ky * w.dilationHeight
                    guard iy >= 0, iy < w.inputHeight else { continue }
                    for kx in 0..<w.kernelWidth {
                        let ix = x * w.strideWidth - w.padLeft + kx * w.dilationWidth
                        guard ix >= 0, ix < w.inputWidth else { continue }
                        let a = input[(iy * w.inputWidth + ix) * c + ch], b = weights[(ky * w.kernelWidth + kx) * c + ch]
                        acc = fused ? acc.addingProduct(a, b) : acc + a * b
                    }
                }
                out[(y * w.outputWidth + x) * c + ch] = clamp.apply(acc)
            }
        }
    }
    return out
}

/// A depthwise geometry for the exactness tests.
struct ExactDepthwiseCase: CustomStringConvertible, Sendable {
    var h: Int, w: Int, c: Int, kh: Int, kw: Int, sh: Int, sw: Int
    var pads: (top: Int, left: Int, bottom: Int, right: Int)
    var dilation = 1
    var window: SpatialWindow {
        SpatialWindow(inputHeight: h, inputWidth: w, kernelHeight: kh, kernelWidth: kw, strideHeight: sh, strideWidth: sw,
                      dilationHeight: dilation, dilationWidth: dilation,
                      padTop: pads.top, padLeft: pads.left, padBottom: pads.bottom, padRight: pads.right)
    }
    var description: String { "\(h)x\(w)x\(c) k\(kh)x\(kw) s\(sh)x\(sw) d\(dilation) p\(pads)" }

    /// TensorFlow's SAME padding for a square kernel and stride.
    static func same(_ h: Int, _ w: Int, _ c: Int, k: Int, s: Int) -> ExactDepthwiseCase {
        let ph = max(((h + s - 1) / s - 1) * s + k - h, 0), pw = max(((w + s - 1) / s - 1) * s + k - w, 0)
        return ExactDepthwiseCase(h: h, w: w, c: c, kh: k, kw: k, sh: s, sw: s, pads: (ph / 2, pw / 2, ph - ph / 2, pw - pw / 2))
    }

    static func valid(_ h: Int, _ w: Int, _ c: Int, k: Int, s: Int) -> ExactDepthwiseCase {
        ExactDepthwiseCase(h: h, w: w, c: c, kh: k, kw: k, sh: s, sw: s, pads: (0, 0, 0, 0))
    }

    static let all: [ExactDepthwiseCase] = {
        var cases: [ExactDepthwiseCase] = []
        // 3×3 and 5×5 at strides 1 and 2 (the unrolled layouts), SAME and VALID, channel counts that
        // are and are not multiples of 8 and 16, widths giving 4–7 interior pixels, 8+rest, several chunks.
        for c in [1, 3, 7, 8, 9, 16, 17, 24, 28, 33, 36, 42, 144] {
            for (h, w) in [(5, 7), (9, 13), (6, 21)] {
                for k in [3, 5] {
                    for s in [1, 2] {
                        cases.append(.same(h, w, c, k: k, s: s))
                        if h >= k, w >= k { cases.append(.valid(h, w, c, k: k, s: s)) }
                    }
                }
            }
        }
        // Rows wider than a chunk (chunks of 8 pixels at 144+ channels), both remainders.
        cases += [.same(3, 37, 144, k: 3, s: 1), .same(4, 43, 160, k: 5, s: 1), .same(5, 75, 152, k: 3, s: 2),
                  .same(3, 70, 40, k: 5, s: 2), .same(2, 300, 8, k: 3, s: 1), .same(3, 259, 9, k: 5, s: 1)]
        // Asymmetric and oversized padding, rows with no interior at all, 1×1 and 2×2 inputs.
        cases += [ExactDepthwiseCase(h: 9, w: 11, c: 17, kh: 3, kw: 3, sh: 1, sw: 1, pads: (0, 2, 2, 0)),
                  ExactDepthwiseCase(h: 8, w: 12, c: 24, kh: 5, kw: 5, sh: 2, sw: 2, pads: (2, 1, 2, 1)),
                  ExactDepthwiseCase(h: 4, w: 6, c: 33, kh: 3, kw: 3, sh: 1, sw: 1, pads: (3, 3, 3, 3)),
                  .same(1, 1, 48, k: 3, s: 1), .same(2, 2, 144, k: 3, s: 1), .same(2, 2, 40, k: 5, s: 2),
                  .same(7, 7, 96, k: 5, s: 1), .same(8, 8, 80, k: 5, s: 1), .same(6, 6, 48, k: 5, s: 1)]
        // The generic layout: other kernel sizes, non-square kernels and strides, dilation, stride 3.
        cases += [ExactDepthwiseCase(h: 10, w: 19, c: 20, kh: 3, kw: 3, sh: 1, sw: 1, pads: (2, 2, 2, 2), dilation: 2),
                  ExactDepthwiseCase(h: 12, w: 23, c: 9, kh: 5, kw: 5, sh: 2, sw: 2, pads: (2, 3, 2, 3), dilation: 2),
                  ExactDepthwiseCase(h: 9, w: 17, c: 24, kh: 7, kw: 7, sh: 1, sw: 1, pads: (3, 3, 3, 3)),
                  ExactDepthwiseCase(h: 9, w: 17, c: 19, kh: 1, kw: 1, sh: 1, sw: 1, pads: (0, 0, 0, 0)),
                  ExactDepthwiseCase(h: 8, w: 25, c: 16, kh: 1, kw: 3, sh: 1, sw: 1, pads: (0, 1, 0, 1)),
                  ExactDepthwiseCase(h: 11, w: 20, c: 32, kh: 3, kw: 5, sh: 2, sw: 1, pads: (1, 2, 1, 2)),
                  ExactDepthwiseCase(h: 11, w: 29, c: 25, kh: 3, kw: 3, sh: 1, sw: 2, pads: (1, 0, 1, 1)),
                  ExactDepthwiseCase(h: 13, w: 31, c: 18, kh: 3, kw: 3, sh: 3, sw: 3, pads: (1, 1, 1, 1))]
        return cases
    }()
}

@Suite struct DepthwiseKernelTests {
    static let clamps: [ClampBounds] = [.none, ClampBounds(min: 0, max: 6), ClampBounds(min: -0.25, max: 0.5)]

    /// Runs `direct` over the output rows split into `parts` contiguous ranges, as `parts` threads would.
    func direct(_ input: [Float], _ weights: [Float], _ bias: [Float], _ win: SpatialWindow, _ c: Int, _ clamp: ClampBounds,
                wide: Bool, parts: Int) -> [Float] {
        var out = [Float](repeating: .nan, count: win.outputHeight * win.outputWidth * c)
        let rows = win.outputHeight
        for t in 0..<parts {
            DepthwiseConv2DKernel.direct(input: input, weights: weights, bias: bias, output: &out, window: win, channels: c,
                                         clamp: clamp, rows: (rows * t / parts)..<(rows * (t + 1) / parts), wide: wide)
        }
        return out
    }

    /// Runs `direct` over the output pixels split into `parts` contiguous ranges that start and end inside
    /// rows (each boundary moved `shift` pixels past the row split, wrapping), as a region's tasks would.
    func directPixels(_ input: [Float], _ weights: [Float], _ bias: [Float], _ win: SpatialWindow, _ c: Int,
                      _ clamp: ClampBounds, wide: Bool, parts: Int, shift: Int) -> [Float] {
        var out = [Float](repeating: .nan, count: win.outputHeight * win.outputWidth * c)
        let pixels = win.outputHeight * win.outputWidth
        func boundary(_ t: Int) -> Int { t == 0 ? 0 : t == parts ? pixels : min(pixels, pixels * t / parts + shift) }
        for t in 0..<parts {
            DepthwiseConv2DKernel.direct(input: input, weights: weights, bias: bias, output: &out, window: win, channels: c,
                                         clamp: clamp, pixels: boundary(t)..<max(boundary(t), boundary(t + 1)), wide: wide)
        }
        return out
    }

    @Test(arguments: ExactDepthwiseCase.all)
    func depthwiseInOrderMatchesReference(c: ExactDepthwiseCase) {
        var rng = SeededRandom(seed: 20_251_122)
        let win = c.window
        let input = rng.array(c.h * c.w * c.c, -2, 2)
        let weights = rng.array(c.kh * c.kw * c.c)
        let bias = rng.array(c.c)
        for clamp in Self.clamps {
            let expected = depthwiseInOrderReference(input: input, weights: weights, bias: bias, window: win, channels: c.c, clamp: clamp)
            for wide in CPUFeatures.hasAVX512 ? [false, true] : [false] {
                for parts in [1, 2, 3, win.outputHeight] {
                    let got = direct(input, weights, bias, win, c.c, clamp, wide: wide, parts: parts)
                    expectBitIdentical(got, expected, "\(c) \(clamp) wide \(wide) rows in \(parts) parts", nanMatchesAnyNaN: true)
                }
                // Pixel ranges that cut rows: 1–3 pixels of a row (pixel by pixel), 4–7 (one short run), longer.
                for (parts, shift) in [(2, 1), (2, 3), (3, 5), (3, 2), (5, 7), (7, 11)] {
                    let got = directPixels(input, weights, bias, win, c.c, clamp, wide: wide, parts: parts, shift: shift)
                    expectBitIdentical(got, expected, "\(c) \(clamp) wide \(wide) pixels in \(parts) parts, shifted \(shift)",
                                       nanMatchesAnyNaN: true)
                }
            }
        }
    }

    /// Signed zeros, infinities and NaN go through every path exactly as through the plain loops:
    /// a −0 bias stays −0 where no tap adds to it, NaN survives the clamp, ∞·0 gives NaN.
    @Test(arguments: [ExactDepthwiseCase.same(6, 13, 24, k: 3, s: 1), .same(7, 19, 40, k: 5, s: 2),
                      .same(5, 12, 17, k: 5, s: 1), .valid(9, 21, 48, k: 3, s: 2)])
    func depthwiseSpecialValuesMatchReference(c: ExactDepthwiseCase) {
        var rng = SeededRandom(seed: 99)
        let win = c.window
        var input = rng.array(c.h * c.w * c.c)
        var weights = rng.array(c.kh * c.kw * c.c)
        var bias = rng.array(c.c)
        for i in stride(from: 0, to: input.count, by: 7) { input[i] = -0.0 }
        for i in stride(from: 3, to: input.count, by: 97) { input[i] = .infinity }
        for i in stride(from: 5, to: input.count, by: 131) { input[i] = .nan }
        for i in stride(from: 0, to: weights.count, by: 5) { weights[i] = 0 }
        for i in stride(from: 1, to: weights.count, by: 11) { weights[i] = -0.0 }
        for i in stride(from: 0, to: bias.count, by: 2) { bias[i] = -0.0 }
        // A channel whose weights are all zero and whose bias is −0: its outputs must keep −0 or +0
        // exactly as the in-order sums do.
        for t in 0..<(c.kh * c.kw) { weights[t * c.c + 1] = 0 }
        for clamp in Self.clamps {
            let expected = depthwiseInOrderReference(input: input, weights: weights, bias: bias, window: win, channels: c.c, clamp: clamp)
            for wide in CPUFeatures.hasAVX512 ? [false, true] : [false] {
                for parts in [1, 3] {
                    let got = direct(input, weights, bias, win, c.c, clamp, wide: wide, parts: parts)
                    expectBitIdentical(got, expected, "special values \(c) \(clamp) wide \(wide) parts \(parts)", nanMatchesAnyNaN: true)
                }
            }
        }
    }

    /// The in-order twin itself against the double-precision twin, so an error common to the kernel
    /// and its in-order twin would still show.
    @Test(arguments: Array(ExactDepthwiseCase.all.prefix(40)))
    func depthwiseInOrderReferenceMatchesReference(c: ExactDepthwiseCase) {
        var rng = SeededRandom(seed: 5)
        let win = c.window
        let input = rng.array(c.h * c.w * c.c)
        let weights = rng.array(c.kh * c.kw * c.c)
        let bias = rng.array(c.c)
        let clamp = ClampBounds(min: 0, max: 6)
        var expected = [Float](repeating: .nan, count: win.outputHeight * win.outputWidth * c.c)
        DepthwiseConv2DKernel.reference(input: input, weights: weights, bias: bias, output: &expected, window: win,
                                        channels: c.c, clamp: clamp)
        let got = depthwiseInOrderReference(input: input, weights: weights, bias: bias, window: win, channels: c.c, clamp: clamp)
        expectClose(got, expected, rtol: 1e-5, atol: 1e-5, "in-order twin \(c)")
    }
}
