import BlazeKernels
import BlazeKernelsAVX512
import Testing

/// One convolution geometry, deliberately awkward: odd channels, stride 2, asymmetric pads.
struct ConvCase: CustomStringConvertible, Sendable {
    var h: Int, w: Int, cin: Int, cout: Int, k: (Int, Int), stride: (Int, Int), pads: (Int, Int, Int, Int)
    var dilation = (1, 1)
    var window: SpatialWindow {
        SpatialWindow(inputHeight: h, inputWidth: w, kernelHeight: k.0, kernelWidth: k.1, strideHeight: stride.0,
                      strideWidth: stride.1, dilationHeight: dilation.0, dilationWidth: dilation.1,
                      padTop: pads.0, padLeft: pads.1, padBottom: pads.2, padRight: pads.3)
    }
    var description: String { "\(h)x\(w)x\(cin)->\(cout) k\(k) s\(stride) p\(pads) d\(dilation)" }

    /// Uniform random input, weights (OHWI) and bias of this geometry, drawn in that order from `seed`.
    func operands(seed: UInt64) -> (input: [Float], weights: [Float], bias: [Float]) {
        var rng = SeededRandom(seed: seed)
        let input = rng.array(h * w * cin)
        let weights = rng.array(cout * k.0 * k.1 * cin)
        return (input, weights, rng.array(cout))
    }

    static let all: [ConvCase] = [
        ConvCase(h: 7, w: 5, cin: 3, cout: 5, k: (1, 1), stride: (1, 1), pads: (0, 0, 0, 0)),
        ConvCase(h: 15, w: 7, cin: 17, cout: 16, k: (1, 1), stride: (1, 1), pads: (0, 0, 0, 0)),
        ConvCase(h: 18, w: 17, cin: 3, cout: 8, k: (3, 3), stride: (2, 2), pads: (0, 0, 1, 1)),
        ConvCase(h: 18, w: 17, cin: 5, cout: 15, k: (3, 3), stride: (1, 1), pads: (1, 1, 1, 1)),
        ConvCase(h: 9, w: 11, cin: 4, cout: 3, k: (5, 5), stride: (2, 2), pads: (1, 2, 2, 1)),
        ConvCase(h: 6, w: 6, cin: 8, cout: 4, k: (2, 2), stride: (2, 2), pads: (0, 0, 0, 0)),
        ConvCase(h: 8, w: 9, cin: 2, cout: 3, k: (3, 3), stride: (1, 1), pads: (2, 2, 2, 2), dilation: (2, 2)),
        ConvCase(h: 1, w: 1, cin: 16, cout: 7, k: (1, 1), stride: (1, 1), pads: (0, 0, 0, 0)),
        ConvCase(h: 13, w: 12, cin: 8, cout: 1, k: (3, 3), stride: (1, 1), pads: (1, 1, 1, 1)),
        ConvCase(h: 11, w: 9, cin: 11, cout: 2, k: (3, 3), stride: (2, 2), pads: (0, 1, 1, 0)),
        ConvCase(h: 40, w: 3, cin: 3, cout: 40, k: (1, 1), stride: (1, 1), pads: (0, 0, 0, 0)),
    ]
}

struct DepthwiseCase: CustomStringConvertible, Sendable {
    var h: Int, w: Int, c: Int, k: Int, stride: Int, pads: (Int, Int, Int, Int)
    var window: SpatialWindow {
        SpatialWindow(inputHeight: h, inputWidth: w, kernelHeight: k, kernelWidth: k, strideHeight: stride, strideWidth: stride,
                      padTop: pads.0, padLeft: pads.1, padBottom: pads.2, padRight: pads.3)
    }
    var description: String { "\(h)x\(w)x\(c) k\(k) s\(stride) p\(pads)" }

    static let all: [DepthwiseCase] = [
        DepthwiseCase(h: 7, w: 5, c: 1, k: 3, stride: 1, pads: (1, 1, 1, 1)),
        DepthwiseCase(h: 15, w: 7, c: 5, k: 3, stride: 2, pads: (0, 0, 1, 1)),
        DepthwiseCase(h: 18, w: 17, c: 8, k: 5, stride: 1, pads: (2, 2, 2, 2)),
        DepthwiseCase(h: 18, w: 17, c: 15, k: 5, stride: 2, pads: (1, 1, 2, 2)),
        DepthwiseCase(h: 16, w: 16, c: 16, k: 3, stride: 2, pads: (0, 0, 1, 1)),
        DepthwiseCase(h: 9, w: 10, c: 17, k: 3, stride: 1, pads: (1, 0, 1, 2)),
        DepthwiseCase(h: 12, w: 13, c: 24, k: 5, stride: 2, pads: (0, 0, 0, 0)),
        DepthwiseCase(h: 5, w: 6, c: 4, k: 7, stride: 1, pads: (3, 3, 3, 3)),
        DepthwiseCase(h: 2, w: 2, c: 9, k: 5, stride: 1, pads: (2, 2, 2, 2)),
        DepthwiseCase(h: 11, w: 14, c: 40, k: 5, stride: 1, pads: (2, 2, 2, 2)),
        DepthwiseCase(h: 10, w: 9, c: 33, k: 3, stride: 2, pads: (0, 0, 1, 1)),
    ]
}

@Suite struct ConvolutionKernelTests {
    static let clamps: [ClampBounds] = [.none, ClampBounds(min: 0, max: 6)]

    @Test(arguments: ConvCase.all)
    func convVariantsMatchReference(c: ConvCase) {
        let win = c.window
        let (input, weights, bias) = c.operands(seed: 7767517)
        let n = win.outputHeight * win.outputWidth * c.cout
        for clamp in Self.clamps {
            var expected = [Float](repeating: .nan, count: n)
            Conv2DKernel.reference(input: input, weights: weights, bias: bias, output: &expected, window: win,
                                   inChannels: c.cin, outChannels: c.cout, clamp: clamp)
            // im2col over two uneven pixel ranges with a tiny block, to cross block edges.
            var got = [Float](repeating: .nan, count: n)
            let pixels = win.outputHeight * win.outputWidth
            let block = 3
            var ws = [Float](repeating: 0, count: Conv2DKernel.im2colWorkspaceFloats(window: win, inChannels: c.cin, pixelBlock: block))
            for r in [0..<(pixels / 3), (pixels / 3)..<pixels] {
                Conv2DKernel.im2colGEMM(input: input, weights: weights, bias: bias, output: &got, window: win,
                                        inChannels: c.cin, outChannels: c.cout, clamp: clamp, pixels: r,
                                        pixelBlock: block, workspace: &ws)
            }
            expectClose(got, expected, rtol: 1e-5, atol: 1e-5, "im2col \(c) \(clamp)")
            var direct = [Float](repeating: .nan, count: n)
            for r in [0..<(pixels / 3), (pixels / 3)..<pixels] {
                Conv2DKernel.directFewOutputs(input: input, weights: weights, bias: bias, output: &direct, window: win,
                                              inChannels: c.cin, outChannels: c.cout, clamp: clamp, pixels: r)
            }
            expectClose(direct, expected, rtol: 1e-5, atol: 1e-5, "directFewOutputs \(c) \(clamp)")
            for tile in GEMMTile.allCases where tile.isSupported {
                let packed = PackedGEMMWeights(weights: weights, bias: bias, outputs: c.cout,
                                               depth: c.k.0 * c.k.1 * c.cin, tile: tile, window: win, inChannels: c.cin)
                var viaTile = [Float](repeating: .nan, count: n)
                if win.isPointwise {
                    for r in [0..<(pixels / 3), (pixels / 3)..<pixels] {
                        Conv2DKernel.packed1x1(input: input, weights: packed, output: &viaTile, pixels: r, clamp: clamp)
                    }
                } else {
                    for r in [0..<(pixels / 3), (pixels / 3)..<pixels] {
                        Conv2DKernel.im2colPacked(input: input, weights: packed, output: &viaTile, window: win,
                                                  inChannels: c.cin, clamp: clamp, pixels: r, pixelBlock: block, workspace: &ws)
                    }
                }
                expectClose(viaTile, expected, rtol: 1e-5, atol: 1e-5, "packed \(tile) \(c) \(clamp)")
            }
            if win.isPointwise {
                var got1 = [Float](repeating: .nan, count: n)
                for r in [0..<(pixels / 2), (pixels / 2)..<pixels] {
                    Conv2DKernel.gemm1x1(input: input, weights: weights, bias: bias, output: &got1, pixels: r,
                                         inChannels: c.cin, outChannels: c.cout, clamp: clamp)
                }
                expectClose(got1, expected, rtol: 1e-5, atol: 1e-5, "gemm1x1 \(c) \(clamp)")
            }
        }
    }

    @Test(arguments: DepthwiseCase.all)
    func depthwiseDirectMatchesReference(c: DepthwiseCase) {
        var rng = SeededRandom(seed: 42)
        let win = c.window
        let input = rng.array(c.h * c.w * c.c)
        let weights = rng.array(c.k * c.k * c.c)
        let bias = rng.array(c.c)
        let n = win.outputHeight * win.outputWidth * c.c
        for clamp in Self.clamps {
            var expected = [Float](repeating: .nan, count: n)
            DepthwiseConv2DKernel.reference(input: input, weights: weights, bias: bias, output: &expected, window: win,
                                            channels: c.c, clamp: clamp)
            // The 8-channel path, and the AVX-512 16-channel blocks where the CPU has them: same bits.
            var narrow = [Float]()
            for wide in CPUFeatures.hasAVX512 ? [false, true] : [false] {
                var got = [Float](repeating: .nan, count: n)
                let split = win.outputHeight / 2
                for rows in [0..<split, split..<win.outputHeight] {
                    DepthwiseConv2DKernel.direct(input: input, weights: weights, bias: bias, output: &got, window: win,
                                                 channels: c.c, clamp: clamp, rows: rows, wide: wide)
                }
                expectClose(got, expected, rtol: 1e-5, atol: 1e-5, "depthwise \(c) \(clamp) wide \(wide)")
                if wide { #expect(got == narrow, "depthwise \(c): AVX-512 blocks differ from the 8-channel path") }
                narrow = got
            }
        }
    }

    @Test(arguments: DepthwiseCase.all)
    func maxPoolMatchesReference(c: DepthwiseCase) {
        var rng = SeededRandom(seed: 3)
        let win = c.window
        let input = rng.array(c.h * c.w * c.c)
        let n = win.outputHeight * win.outputWidth * c.c
        var expected = [Float](repeating: .nan, count: n), got = [Float](repeating: .nan, count: n)
        MaxPoolKernel.reference(input: input, output: &expected, window: win, channels: c.c, clamp: .none)
        MaxPoolKernel.direct(input: input, output: &got, window: win, channels: c.c, clamp: .none, rows: 0..<win.outputHeight)
        #expect(got == expected, "max pool \(c)")
    }

    /// The unpadded 2×2 stride-2 path gives the bits of the any-window path, with zeros of both signs, odd input
    /// sizes (the last row and column unread), clamps and row pieces.
    @Test(arguments: [(112, 112, 16), (7, 9, 8), (5, 4, 24), (2, 2, 8), (64, 64, 28), (9, 7, 42), (4, 6, 3), (3, 3, 1)])
    func maxPoolTwoByTwoKeepsTheBits(h: Int, w: Int, c: Int) {
        var rng = SeededRandom(seed: 9)
        var input = rng.array(h * w * c, -2, 2)
        for i in Swift.stride(from: 0, to: input.count, by: 5) { input[i] = i % 2 == 0 ? 0 : -0.0 }
        let win = SpatialWindow(inputHeight: h, inputWidth: w, kernelHeight: 2, kernelWidth: 2, strideHeight: 2, strideWidth: 2)
        let n = win.outputHeight * win.outputWidth * c
        for clamp in [ClampBounds.none, ClampBounds(min: 0, max: 6)] {
            var want = [Float](repeating: .nan, count: n), got = [Float](repeating: .nan, count: n)
            MaxPoolKernel.anyWindow(input: input, output: &want, window: win, channels: c, clamp: clamp, rows: 0..<win.outputHeight)
            let cut = win.outputHeight / 2
            MaxPoolKernel.direct(input: input, output: &got, window: win, channels: c, clamp: clamp, rows: 0..<cut)
            MaxPoolKernel.direct(input: input, output: &got, window: win, channels: c, clamp: clamp, rows: cut..<win.outputHeight)
            #expect(got.map(\.bitPattern) == want.map(\.bitPattern), "\(h)×\(w)×\(c) \(clamp)")
        }
    }

    @Test func rightPaddingUsedCanBeLessThanGiven() {
        // 6 columns, 3 wide, stride 2, padded 2 on the right: 3 outputs, the last reading columns 4, 5 and one past.
        let w = SpatialWindow(inputHeight: 6, inputWidth: 6, kernelHeight: 3, kernelWidth: 3, strideHeight: 2, strideWidth: 2,
                              padBottom: 2, padRight: 2)
        #expect(w.outputWidth == 3)
        #expect(w.rightPaddingUsed == 1)
    }

    @Test func windowInteriorAndKernelRowsAreExact() {
        for c in DepthwiseCase.all {
            let w = c.window
            for x in 0..<w.outputWidth {
                let allInside = (0..<w.kernelWidth).allSatisfy { kx in
                    let ix = x * w.strideWidth - w.padLeft + kx * w.dilationWidth
                    return ix >= 0 && ix < w.inputWidth
                }
                #expect(w.interiorColumns.contains(x) == allInside, "\(c) column \(x)")
            }
            let past = (0..<w.outputWidth).flatMap { x in
                (0..<w.kernelWidth).map { kx in x * w.strideWidth - w.padLeft + kx * w.dilationWidth - (w.inputWidth - 1) }
            }
            #expect(w.rightPaddingUsed == max(0, past.max() ?? 0), "\(c) right padding used")
            for y in 0..<w.outputHeight {
                let valid = (0..<w.kernelHeight).filter { ky in
                    let iy = y * w.strideHeight - w.padTop + ky * w.dilationHeight
                    return iy >= 0 && iy < w.inputHeight
                }
                #expect(Array(w.kernelRows(forOutputRow: y)) == valid, "\(c) row \(y)")
            }
        }
    }
}

/// The packed GEMM against the plain convolution on shapes that cross every tile edge: rows not a
/// multiple of the tile's, outputs not a multiple of its width, depth 1, and weights with dead
/// input channels (whole zero columns) and dead outputs (zero rows), which the packing skips.
@Suite struct PackedGEMMTests {
    static let shapes: [(m: Int, n: Int, k: Int)] = [
        (1, 1, 1), (5, 7, 3), (6, 16, 8), (8, 32, 8), (13, 33, 17), (9, 48, 1), (17, 15, 40), (50, 70, 24), (3, 100, 64),
        (49, 24, 16), (11, 56, 9), (19, 40, 12),
        // Several blocks of rows at a small depth (PackedGEMM.blockRows: 240 rows at depth 16), ending in whole
        // tiles, twelve-row halves, a single row (runRow) and a few rows.
        (500, 40, 16), (241, 24, 16), (487, 8, 16),
    ]

    @Test(arguments: GEMMTile.allCases)
    func packedMatchesReference(tile: GEMMTile) {
        guard tile.isSupported else { return }
        var rng = SeededRandom(seed: 99)
        for s in Self.shapes {
            for sparsity in [0.0, 0.6] {
                let a = rng.array(s.m * s.k)
                var w = rng.array(s.n * s.k)
                let bias = rng.array(s.n)
                if sparsity > 0 {
                    for kk in 0..<s.k where kk % 3 == 1 { for o in 0..<s.n { w[o * s.k + kk] = 0 } }   // dead input channels
                    for o in 0..<s.n where o % 4 == 2 { for kk in 0..<s.k { w[o * s.k + kk] = 0 } }   // dead outputs
                    for i in w.indices where rng.uniform(0, 1) < Float(sparsity) { w[i] = 0 }        // scattered zeros
                }
                let win = SpatialWindow(inputHeight: 1, inputWidth: s.m, kernelHeight: 1, kernelWidth: 1, strideHeight: 1,
                                        strideWidth: 1, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0)
                for clamp in [ClampBounds.none, ClampBounds(min: 0, max: 6), ClampBounds(min: -0.5, max: 0.25)] {
                    var want = [Float](repeating: .nan, count: s.m * s.n)
                    Conv2DKernel.reference(input: a, weights: w, bias: bias, output: &want, window: win,
                                           inChannels: s.k, outChannels: s.n, clamp: clamp)
                    let packed = PackedGEMMWeights(weights: w, bias: bias, outputs: s.n, depth: s.k, tile: tile)
                    // The output is wider than the GEMM to catch writes past the last column.
                    let ldc = s.n + 3
                    var got = [Float](repeating: -7, count: s.m * ldc)
                    for r in [0..<(s.m / 2), (s.m / 2)..<s.m] {
                        PackedGEMM.run(a: a, lda: s.k, rows: r, weights: packed, c: &got, ldc: ldc, clamp: clamp)
                    }
                    let body = (0..<s.m).flatMap { r in got[(r * ldc)..<(r * ldc + s.n)] }
                    let guardCells = (0..<s.m).flatMap { r in got[(r * ldc + s.n)..<(r * ldc + ldc)] }
                    expectClose(body, want, rtol: 1e-5, atol: 1e-5, "\(tile) m\(s.m) n\(s.n) k\(s.k) sparsity \(sparsity) \(clamp)")
                    #expect(guardCells.allSatisfy { $0 == -7 }, "\(tile) m\(s.m) n\(s.n) k\(s.k): wrote past column \(s.n)")
                    if sparsity > 0, s.k > 2 { #expect(packed.liveFraction < 0.9, "\(tile): dead channels kept") }
                    // Split by weight panels (the small-map 1×1 split): the same bits as the split by rows.
                    var byPanels = [Float](repeating: -7, count: s.m * ldc)
                    let cut = packed.panelCount / 2
                    for panels in [cut..<packed.panelCount, 0..<cut] {
                        PackedGEMM.run(a: a, lda: s.k, rows: 0..<s.m, weights: packed, c: &byPanels, ldc: ldc, clamp: clamp,
                                       panels: panels)
                    }
                    expectBitIdentical(byPanels, got, "\(tile) m\(s.m) n\(s.n) k\(s.k) split by panels at \(cut)")
                }
            }
        }
    }

    /// Every tile the CPU runs gives the same bits, on the shapes above: among them widths whose last panel
    /// has 1–8 live columns (1, 7, 33, 40, 70, 100), which the AVX-512 tile runs 8 wide
    /// (``GEMMTile8x32/runQuarter``), 9–16 (16, 15, 48) at half width (``GEMMTile8x32/runHalf``), 17–24
    /// (24, 56) three quarters wide (``GEMMTile8x32/runThreeQuarters``), and 32, which it runs whole; and rows
    /// left over from a block of eight (1–6: ``GEMMTile8x32/runPair``).
    @Test func tilesGiveIdenticalBits() {
        let tiles = GEMMTile.allCases.filter(\.isSupported)
        guard tiles.count > 1 else { return }
        var rng = SeededRandom(seed: 4242)
        for s in Self.shapes {
            let a = rng.array(s.m * s.k), bias = rng.array(s.n)
            var w = rng.array(s.n * s.k)
            for i in w.indices where rng.uniform(0, 1) < 0.3 { w[i] = 0 }
            for clamp in [ClampBounds.none, ClampBounds(min: -0.5, max: 0.25)] {
                let results = tiles.map { tile -> [Float] in
                    let packed = PackedGEMMWeights(weights: w, bias: bias, outputs: s.n, depth: s.k, tile: tile)
                    var c = [Float](repeating: .nan, count: s.m * s.n)
                    PackedGEMM.run(a: a, lda: s.k, rows: 0..<s.m, weights: packed, c: &c, ldc: s.n, clamp: clamp)
                    return c
                }
                for (tile, result) in zip(tiles.dropFirst(), results.dropFirst()) {
                    expectBitIdentical(result, results[0], "\(tile) against \(tiles[0]): m\(s.m) n\(s.n) k\(s.k) \(clamp)")
                }
            }
        }
    }

    /// The row pairs of the AVX-512 tile (``GEMMTile8x32/runPair``, ``GEMMTile8x32/runPairHalf``: a block's
    /// last one to six rows) and its narrower cuts (``GEMMTile8x32/runThreeQuarters``,
    /// ``GEMMTile8x32/runQuarter``) write the bits the 8 × 32 tile (or its left half) writes, at every width
    /// of the last panel, and nothing past `columns`.
    @Test func rowPairAndNarrowCutsGiveTheTilesBits() {
        guard CPUFeatures.hasAVX512 else { return }
        var rng = SeededRandom(seed: 77)
        let depth = 37, lda = 41
        let a = rng.array(2 * lda), panel = rng.array(depth * 32), bias = rng.array(32)
        let indices = (0..<depth).map { Int32($0 + $0 / 9) }   // ascending, with gaps, below lda
        for columns in [1, 7, 8, 15, 16, 17, 24, 31, 32] {
            for rows in [1, 2] {
                for bounds: [Float] in [[-.infinity, .infinity], [-0.5, 0.25]] {
                    let ldc = 35
                    var tile = [Float](repeating: -7, count: 2 * ldc), pair = tile
                    if columns <= 16 {
                        GEMMTile8x32.runHalf(a: a, lda: lda, rows: rows, panel: panel, indices: indices, depth: depth, bias: bias,
                                             c: &tile, ldc: ldc, columns: columns, bounds: bounds)
                    } else {
                        GEMMTile8x32.run(a: a, lda: lda, rows: rows, panel: panel, indices: indices, depth: depth, bias: bias,
                                         c: &tile, ldc: ldc, columns: columns, bounds: bounds)
                    }
                    if columns <= 16 {
                        GEMMTile8x32.runPairHalf(a: a, lda: lda, rows: rows, panel: panel, indices: indices, depth: depth, bias: bias,
                                                 c: &pair, ldc: ldc, columns: columns, bounds: bounds)
                    } else {
                        GEMMTile8x32.runPair(a: a, lda: lda, rows: rows, panel: panel, indices: indices, depth: depth, bias: bias,
                                             c: &pair, ldc: ldc, columns: columns, bounds: bounds)
                    }
                    expectBitIdentical(pair, tile, "rows \(rows) columns \(columns) bounds \(bounds)")
                    // The narrower cuts of the tile, where they apply.
                    if columns <= 8 || (columns > 16 && columns <= 24) {
                        var cut = [Float](repeating: -7, count: 2 * ldc)
                        if columns <= 8 {
                            GEMMTile8x32.runQuarter(a: a, lda: lda, rows: rows, panel: panel, indices: indices, depth: depth,
                                                    bias: bias, c: &cut, ldc: ldc, columns: columns, bounds: bounds)
                        } else {
                            GEMMTile8x32.runThreeQuarters(a: a, lda: lda, rows: rows, panel: panel, indices: indices, depth: depth,
                                                          bias: bias, c: &cut, ldc: ldc, columns: columns, bounds: bounds)
                        }
                        expectBitIdentical(cut, tile, "three quarters / quarter: rows \(rows) columns \(columns) bounds \(bounds)")
                    }
                    #expect(pair.enumerated().allSatisfy { i, v in i % ldc < columns && i / ldc < rows || v == -7 },
                            "rows \(rows) columns \(columns): wrote outside the block")
                }
            }
        }
    }

    @Test func bestTileIsSupported() {
        if let best = GEMMTile.best { #expect(best.isSupported) }
        #expect(GEMMTile.allCases.filter(\.isSupported).first == GEMMTile.best)
    }
}

/// The packed k×k convolution reading whole tiles of interior pixels in place and copying the rest (borders, the pixels
/// past the last whole tile, rows whose window leaves the image, merged across rows) gives the bits of copying every pixel.
@Suite struct InPlaceConvolutionTests {
    static let cases: [ConvCase] = [
        ConvCase(h: 20, w: 41, cin: 3, cout: 24, k: (5, 5), stride: (2, 2), pads: (1, 1, 2, 2)),
        ConvCase(h: 18, w: 17, cin: 5, cout: 15, k: (3, 3), stride: (1, 1), pads: (1, 1, 1, 1)),
        ConvCase(h: 9, w: 30, cin: 4, cout: 40, k: (3, 3), stride: (1, 1), pads: (0, 1, 0, 1)),
        ConvCase(h: 12, w: 9, cin: 3, cout: 16, k: (3, 3), stride: (2, 2), pads: (0, 0, 1, 1)),
    ]

    @Test(arguments: cases)
    func inPlaceTilesGiveTheCopiedBits(c: ConvCase) {
        let win = c.window
        let (input, weights, bias) = c.operands(seed: 2718)
        let pixels = win.outputHeight * win.outputWidth
        let depth = c.k.0 * c.k.1 * c.cin
        for tile in GEMMTile.allCases where tile.isSupported {
            let inPlace = PackedGEMMWeights(weights: weights, bias: bias, outputs: c.cout, depth: depth, tile: tile,
                                            window: win, inChannels: c.cin)
            let copying = PackedGEMMWeights(weights: weights, bias: bias, outputs: c.cout, depth: depth, tile: tile)
            for block in [1, 4, 64] {
                // Ranges that start and end inside rows, and the whole map.
                for ranges in [[0..<pixels], [0..<(pixels / 3), (pixels / 3)..<(pixels - 5), (pixels - 5)..<pixels]] {
                    var ws = [Float](repeating: .nan, count: Conv2DKernel.im2colWorkspaceFloats(window: win, inChannels: c.cin,
                                                                                               pixelBlock: block))
                    var got = [Float](repeating: .nan, count: pixels * c.cout)
                    var expected = got
                    for r in ranges {
                        Conv2DKernel.im2colPacked(input: input, weights: inPlace, output: &got, window: win, inChannels: c.cin,
                                                  clamp: ClampBounds(min: -0.5, max: 0.5), pixels: r, pixelBlock: block, workspace: &ws)
                        Conv2DKernel.im2colPacked(input: input, weights: copying, output: &expected, window: win, inChannels: c.cin,
                                                  clamp: ClampBounds(min: -0.5, max: 0.5), pixels: r, pixelBlock: block, workspace: &ws)
                    }
                    let differing = zip(got, expected).filter { $0.bitPattern != $1.bitPattern }.count
                    #expect(differing == 0, "\(c) \(tile.rawValue) block \(block) \(ranges): \(differing) outputs differ")
                }
            }
        }
    }
}
