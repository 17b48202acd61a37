import BlazeKernels
import Testing

/// The pixel widths this CPU runs: 8 (AVX2) always, 16 (AVX-512) where the CPU has it.
let pixelWidths: [Bool] = CPUFeatures.hasAVX512 ? [false, true] : [false]

/// Awkward narrow shapes: 1…8 outputs, channel counts 1, 3, 7, 9, 17, odd sizes, borders,
/// stride 2, dilation, asymmetric pads, rows narrower than one vector and wider than a block.
let narrowCases: [ConvCase] = [
    ConvCase(h: 13, w: 12, cin: 8, cout: 1, k: (3, 3), stride: (1, 1), pads: (1, 1, 1, 1)),
    ConvCase(h: 9, w: 70, cin: 8, cout: 1, k: (3, 3), stride: (1, 1), pads: (1, 1, 1, 1)),
    ConvCase(h: 11, w: 9, cin: 3, cout: 2, k: (3, 3), stride: (2, 2), pads: (0, 1, 1, 0)),
    ConvCase(h: 7, w: 19, cin: 7, cout: 3, k: (5, 5), stride: (1, 1), pads: (2, 2, 2, 2)),
    ConvCase(h: 10, w: 17, cin: 9, cout: 4, k: (3, 3), stride: (2, 2), pads: (1, 1, 1, 1)),
    ConvCase(h: 6, w: 33, cin: 17, cout: 5, k: (3, 3), stride: (1, 2), pads: (0, 2, 0, 1)),
    ConvCase(h: 8, w: 9, cin: 1, cout: 6, k: (3, 3), stride: (1, 1), pads: (2, 2, 2, 2), dilation: (2, 2)),
    ConvCase(h: 5, w: 5, cin: 16, cout: 7, k: (2, 2), stride: (2, 2), pads: (0, 0, 1, 1)),
    ConvCase(h: 6, w: 1, cin: 3, cout: 2, k: (3, 3), stride: (2, 2), pads: (1, 1, 1, 1)),
    ConvCase(h: 9, w: 40, cin: 3, cout: 8, k: (3, 3), stride: (2, 2), pads: (0, 1, 0, 1)),
    ConvCase(h: 7, w: 23, cin: 8, cout: 8, k: (2, 2), stride: (2, 2), pads: (0, 0, 0, 0)),
    ConvCase(h: 5, w: 14, cin: 2, cout: 3, k: (3, 3), stride: (3, 3), pads: (1, 1, 2, 1)),
    ConvCase(h: 12, w: 13, cin: 8, cout: 8, k: (3, 3), stride: (1, 1), pads: (1, 1, 1, 1)),
    ConvCase(h: 2, w: 2, cin: 9, cout: 1, k: (2, 2), stride: (1, 1), pads: (0, 0, 0, 0)),
    ConvCase(h: 3, w: 4, cin: 3, cout: 2, k: (7, 7), stride: (1, 1), pads: (3, 3, 3, 3)),
    // Pointwise: flat pixel blocks, tails shorter than a vector.
    ConvCase(h: 7, w: 5, cin: 3, cout: 1, k: (1, 1), stride: (1, 1), pads: (0, 0, 0, 0)),
    ConvCase(h: 9, w: 9, cin: 17, cout: 2, k: (1, 1), stride: (1, 1), pads: (0, 0, 0, 0)),
    ConvCase(h: 1, w: 1, cin: 7, cout: 3, k: (1, 1), stride: (1, 1), pads: (0, 0, 0, 0)),
    ConvCase(h: 13, w: 11, cin: 24, cout: 6, k: (1, 1), stride: (1, 1), pads: (0, 0, 0, 0)),
    ConvCase(h: 16, w: 16, cin: 8, cout: 8, k: (1, 1), stride: (1, 1), pads: (0, 0, 0, 0)),
    ConvCase(h: 3, w: 3, cin: 1, cout: 8, k: (1, 1), stride: (1, 1), pads: (0, 0, 0, 0)),
]

/// Every dense path with the shared arithmetic (see `PixelMajorConv.swift`) on `c`: the packed GEMM
/// tiles this CPU supports, and the narrow kernel at each pixel width when `c.cout <= 8`; each
/// computed over two uneven ranges of rows or pixels, with NaN-filled scratch.
func sharedArithmeticPaths(_ c: ConvCase, input: [Float], weights: [Float], bias: [Float], clamp: ClampBounds) -> [(String, [Float])] {
    let win = c.window
    let pixels = win.outputHeight * win.outputWidth
    let n = pixels * c.cout
    var results: [(String, [Float])] = []
    for tile in GEMMTile.allCases where tile.isSupported {
        let packed = PackedGEMMWeights(weights: weights, bias: bias, outputs: c.cout, depth: c.k.0 * c.k.1 * c.cin, tile: tile,
                                       window: win, inChannels: c.cin)
        var out = [Float](repeating: .nan, count: n)
        let block = 5
        var ws = [Float](repeating: .nan, count: Conv2DKernel.im2colWorkspaceFloats(window: win, inChannels: c.cin, pixelBlock: block))
        for r in [0..<(pixels / 3), (pixels / 3)..<pixels] {
            if win.isPointwise {
                Conv2DKernel.packed1x1(input: input, weights: packed, output: &out, pixels: r, clamp: clamp)
            } else {
                Conv2DKernel.im2colPacked(input: input, weights: packed, output: &out, window: win, inChannels: c.cin, clamp: clamp,
                                          pixels: r, pixelBlock: block, workspace: &ws)
            }
        }
        results.append(("GEMM \(tile.rawValue)", out))
    }
    if c.cout <= 8 {
        for wide in pixelWidths {
            let packed = PixelConvWeights(weights: weights, bias: bias, outputs: c.cout, window: win, inChannels: c.cin,
                                          layout: .narrow, wide: wide)
            var out = [Float](repeating: .nan, count: n)
            var scratch = [Float](repeating: .nan, count: packed.scratchFloats)
            let units = win.isPointwise ? pixels : win.outputHeight
            for r in [0..<(units / 3), (units / 3)..<units] {
                NarrowConv2DKernel.run(input: input, weights: packed, output: &out, rows: r, clamp: clamp, scratch: &scratch)
            }
            results.append(("narrow \(wide ? 16 : 8)-pixel", out))
        }
    }
    return results
}

@Suite struct PixelMajorConvTests {
    static let clamps: [ClampBounds] = [.none, ClampBounds(min: 0, max: 6), ClampBounds(min: -0.5, max: 0.25)]

    /// The narrow kernel, at both pixel widths, gives exactly the bits of its twin (bias, one FMA per
    /// tap in order, clamp), is within float error of the double-precision convolution, and so do
    /// the GEMM tiles: every dense path agrees bit for bit. Also with zero weights (dead taps).
    @Test(arguments: narrowCases)
    func narrowConvMatchesReference(c: ConvCase) {
        var rng = SeededRandom(seed: 2024)
        let win = c.window
        let input = rng.array(c.h * c.w * c.cin)
        var weights = rng.array(c.cout * c.k.0 * c.k.1 * c.cin)
        let bias = rng.array(c.cout)
        let n = win.outputHeight * win.outputWidth * c.cout
        for zeros in [0.0, 0.5] {
            if zeros > 0 { for i in weights.indices where rng.uniform(0, 1) < Float(zeros) { weights[i] = 0 } }
            for clamp in Self.clamps {
                var twin = [Float](repeating: .nan, count: n), exact = [Float](repeating: .nan, count: n)
                NarrowConv2DKernel.reference(input: input, weights: weights, bias: bias, output: &twin, window: win,
                                             inChannels: c.cin, outChannels: c.cout, clamp: clamp)
                Conv2DKernel.reference(input: input, weights: weights, bias: bias, output: &exact, window: win,
                                       inChannels: c.cin, outChannels: c.cout, clamp: clamp)
                expectClose(twin, exact, rtol: 1e-5, atol: 1e-5, "twin \(c) \(clamp)")
                let paths = sharedArithmeticPaths(c, input: input, weights: weights, bias: bias, clamp: clamp)
                #expect(paths.contains { $0.0.hasPrefix("narrow") })
                for (name, out) in paths { expectBitIdentical(out, twin, "\(name) \(c) zeros \(zeros) \(clamp)") }
            }
        }
    }

    /// The GEMM tiles on the general convolution shapes also follow the shared sequence exactly.
    @Test(arguments: ConvCase.all)
    func gemmTilesFollowTheSharedArithmetic(c: ConvCase) {
        var rng = SeededRandom(seed: 11)
        let win = c.window
        let input = rng.array(c.h * c.w * c.cin)
        let weights = rng.array(c.cout * c.k.0 * c.k.1 * c.cin)
        let bias = rng.array(c.cout)
        var twin = [Float](repeating: .nan, count: win.outputHeight * win.outputWidth * c.cout)
        NarrowConv2DKernel.reference(input: input, weights: weights, bias: bias, output: &twin, window: win,
                                     inChannels: c.cin, outChannels: c.cout, clamp: .none)
        for (name, out) in sharedArithmeticPaths(c, input: input, weights: weights, bias: bias, clamp: .none) {
            expectBitIdentical(out, twin, "\(name) \(c)")
        }
    }

    static let sparseShapes: [(pixels: Int, cin: Int, cout: Int)] = [
        (1, 1, 1), (7, 3, 3), (33, 7, 8), (100, 9, 17), (65, 17, 40), (130, 48, 24), (31, 64, 9),
    ]

    /// The sparse kernel against its twin (bias, one FMA per non-zero weight in channel order,
    /// clamp) bit for bit, against the double-precision convolution within float error, and
    /// against every dense path bit for bit: 0 %, 50 % and 100 % zeros, all-zero output rows
    /// (dead outputs) and all-zero input columns (dead channels).
    @Test func sparseConvMatchesReference() {
        var rng = SeededRandom(seed: 74)
        for s in Self.sparseShapes {
            let input = rng.array(s.pixels * s.cin)
            let bias = rng.array(s.cout)
            let dense = rng.array(s.cout * s.cin)
            for pattern in ["0%", "50%", "100%", "dead rows and columns"] {
                var w = dense
                switch pattern {
                case "50%": for i in w.indices where rng.uniform(0, 1) < 0.5 { w[i] = 0 }
                case "100%": w = [Float](repeating: 0, count: w.count)
                case "dead rows and columns":
                    for i in w.indices where rng.uniform(0, 1) < 0.7 { w[i] = 0 }
                    for o in 0..<s.cout where o % 3 == 1 { for c in 0..<s.cin { w[o * s.cin + c] = 0 } }
                    for c in 0..<s.cin where c % 4 == 2 { for o in 0..<s.cout { w[o * s.cin + c] = 0 } }
                default: break
                }
                let c = ConvCase(h: 1, w: s.pixels, cin: s.cin, cout: s.cout, k: (1, 1), stride: (1, 1), pads: (0, 0, 0, 0))
                for clamp in Self.clamps {
                    let what = "sparse \(s) \(pattern) \(clamp)"
                    var twin = [Float](repeating: .nan, count: s.pixels * s.cout), exact = twin
                    SparseConv1x1Kernel.reference(input: input, weights: w, bias: bias, output: &twin, pixels: s.pixels,
                                                  inChannels: s.cin, outChannels: s.cout, clamp: clamp)
                    Conv2DKernel.reference(input: input, weights: w, bias: bias, output: &exact, window: c.window,
                                           inChannels: s.cin, outChannels: s.cout, clamp: clamp)
                    expectClose(twin, exact, rtol: 1e-5, atol: 1e-5, what)
                    if pattern == "100%" { #expect(twin == (0..<s.pixels).flatMap { _ in bias.map(clamp.apply) }, "\(what)") }
                    for wide in pixelWidths {
                        let packed = PixelConvWeights(weights: w, bias: bias, outputs: s.cout, window: c.window, inChannels: s.cin,
                                                      layout: .sparse, wide: wide)
                        let nonZero = w.filter { $0 != 0 }.count
                        #expect(packed.liveFraction == Double(nonZero) / Double(w.count), "\(what)")
                        var out = [Float](repeating: .nan, count: s.pixels * s.cout)
                        var scratch = [Float](repeating: .nan, count: packed.scratchFloats)
                        for r in [0..<(s.pixels / 2), (s.pixels / 2)..<s.pixels] {
                            SparseConv1x1Kernel.run(input: input, weights: packed, output: &out, pixels: r, clamp: clamp, scratch: &scratch)
                        }
                        expectBitIdentical(out, twin, "\(what) \(wide ? 16 : 8)-pixel")
                        // Shared by output channel (small maps on several threads): every pixel, a third of
                        // the outputs a call, in awkward thirds.
                        var byOutput = [Float](repeating: .nan, count: s.pixels * s.cout)
                        for part in 0..<3 {
                            SparseConv1x1Kernel.run(input: input, weights: packed, output: &byOutput, pixels: 0..<s.pixels,
                                                    outputs: (s.cout * part / 3)..<(s.cout * (part + 1) / 3), clamp: clamp,
                                                    scratch: &scratch)
                        }
                        expectBitIdentical(byOutput, twin, "\(what) \(wide ? 16 : 8)-pixel, split by output")
                    }
                    for (name, out) in sharedArithmeticPaths(c, input: input, weights: w, bias: bias, clamp: clamp) {
                        expectBitIdentical(out, twin, "\(what) vs \(name)")
                    }
                }
            }
        }
    }

    /// Where skipping a zero term can show: a −0 bias with zero inputs. The sparse kernel (which
    /// never adds `x·0`) and the dense twin (which does) may then differ in the sign of a zero
    /// output, and in nothing else: every element compares equal.
    @Test func skippingZerosChangesAtMostTheSignOfZero() {
        let pixels = 19, cin = 5, cout = 3
        var rng = SeededRandom(seed: 5)
        var input = rng.array(pixels * cin)
        for p in 0..<pixels where p % 2 == 0 { for c in 0..<cin { input[p * cin + c] = p % 4 == 0 ? 0 : -0.0 } }
        var w = rng.array(cout * cin)
        for i in w.indices where i % 3 == 0 { w[i] = 0 }
        let bias: [Float] = [-0.0, 0, -0.0]
        var dense = [Float](repeating: .nan, count: pixels * cout)
        let win = SpatialWindow(inputHeight: 1, inputWidth: pixels, kernelHeight: 1, kernelWidth: 1)
        NarrowConv2DKernel.reference(input: input, weights: w, bias: bias, output: &dense, window: win,
                                     inChannels: cin, outChannels: cout, clamp: .none)
        for wide in pixelWidths {
            let packed = PixelConvWeights(weights: w, bias: bias, outputs: cout, window: win, inChannels: cin, layout: .sparse, wide: wide)
            var out = [Float](repeating: .nan, count: pixels * cout)
            var scratch = [Float](repeating: .nan, count: packed.scratchFloats)
            SparseConv1x1Kernel.run(input: input, weights: packed, output: &out, pixels: 0..<pixels, clamp: .none, scratch: &scratch)
            #expect(out == dense, "\(wide ? 16 : 8)-pixel: values differ beyond the sign of zero")
            for i in out.indices where out[i].bitPattern != dense[i].bitPattern { #expect(out[i] == 0, "element \(i): \(out[i]) vs \(dense[i])") }
        }
    }
}
