@testable import BlazeKernels
import Testing

/// The AVX2 tile's left half (``GEMMTile6x16/runHalf``) writes the bits the whole 6 × 16 tile writes for a
/// panel with 1–8 live columns, at every row count, with and without a clamp (bounds of ±infinity skip the
/// clamp: the same bits, NaN included), and nothing past `columns` or `rows`; so does its one-row kernel over
/// four panels (``GEMMTile6x16/runRow``), which ``PackedGEMM`` runs only on panels with the same live entries, and its
/// twelve-row half (``GEMMTile6x16/runHalfPair``).
@Suite struct GEMMTile6x16Tests {
    @Test func halfTileGivesTheWholeTilesBits() {
        guard GEMMTile.fma6x16.isSupported else { return }
        var rng = SeededRandom(seed: 616)
        let depth = 29, lda = 37, ldc = 19
        var a = rng.array(6 * lda)
        a[3] = .nan   // row 0, depth index 3: a NaN must come through the unclamped store as it does the clamp
        let panel = rng.array(depth * 16), bias = rng.array(16)
        let indices = (0..<depth).map { Int32($0 + $0 / 10) }   // ascending, with gaps, below lda
        for columns in 1...8 {
            for rows in 1...6 {
                for bounds: [Float] in [[-.infinity, .infinity], [-0.5, 0.25], [0, .infinity]] {
                    var whole = [Float](repeating: -7, count: 6 * ldc), half = whole
                    GEMMTile6x16.run(a: a, lda: lda, rows: rows, panel: panel, indices: indices, depth: depth, bias: bias,
                                     c: &whole, ldc: ldc, columns: columns, bounds: bounds)
                    GEMMTile6x16.runHalf(a: a, lda: lda, rows: rows, panel: panel, indices: indices, depth: depth, bias: bias,
                                         c: &half, ldc: ldc, columns: columns, bounds: bounds)
                    expectBitIdentical(half, whole, "rows \(rows) columns \(columns) bounds \(bounds)")
                    // The chain each element is: the bias, one fused multiply-add per live entry in order, the clamp.
                    var chain = [Float](repeating: -7, count: 6 * ldc)
                    for r in 0..<rows {
                        for j in 0..<columns {
                            var acc = bias[j]
                            for i in 0..<depth { acc = acc.addingProduct(a[r * lda + Int(indices[i])], panel[i * 16 + j]) }
                            chain[r * ldc + j] = clampLane(acc, bounds[0], bounds[1])
                        }
                    }
                    expectBitIdentical(whole, chain, "the chain: rows \(rows) columns \(columns) bounds \(bounds)", nanMatchesAnyNaN: true)
                    #expect(half.enumerated().allSatisfy { i, v in i % ldc < columns && i / ldc < rows || v == -7 },
                            "rows \(rows) columns \(columns): wrote outside the block")
                    #expect(whole[0].isNaN, "the NaN input did not reach row 0")
                }
            }
        }
    }

    /// Whole tiles, one below the other in one call (``GEMMTile6x16/runTiles(a:lda:tiles:panel:indices:depth:bias:c:ldc:bounds:)``,
    /// 6 × 16, and ``GEMMTile6x16/runHalfTiles(a:lda:tiles:panel:indices:depth:bias:c:ldc:bounds:)``, 12 × 8), are clamped
    /// and stored from registers. Each element gets its chain's bits: NaN comes through a clamp, and a −0 stays −0 at a
    /// lower bound of 0, as ``clampLane(_:_:_:)`` leaves them; nothing is written past the tiles' rows and columns.
    @Test func wholeTilesGiveTheChainsBits() {
        guard GEMMTile.fma6x16.isSupported else { return }
        var rng = SeededRandom(seed: 620)
        let lda = 27, ldc = 21
        var a = rng.array(36 * lda)
        a[2] = .nan              // row 0, depth index 2
        a[17 * lda + 9] = .nan   // row 17 (the third 6-row tile, the second 12-row tile), depth index 9
        for depth in [0, 1, 16, 24] {
            let panel = rng.array(max(depth, 1) * 16)
            var bias = rng.array(16)
            bias[3] = -0.0       // with no depth entry the output is the bias: a −0 that a lower bound of 0 keeps
            let indices = (0..<max(depth, 1)).map { Int32($0) }
            for (half, tileRows, columns) in [(false, 6, 16), (true, 12, 8)] {
                for tiles in 1...(36 / tileRows) {
                    for bounds: [Float] in [[-.infinity, .infinity], [-0.5, 0.25], [0, .infinity]] {
                        var out = [Float](repeating: -7, count: 36 * ldc)
                        if half {
                            GEMMTile6x16.runHalfTiles(a: a, lda: lda, tiles: tiles, panel: panel, indices: indices, depth: depth,
                                                      bias: bias, c: &out, ldc: ldc, bounds: bounds)
                        } else {
                            GEMMTile6x16.runTiles(a: a, lda: lda, tiles: tiles, panel: panel, indices: indices, depth: depth,
                                                  bias: bias, c: &out, ldc: ldc, bounds: bounds)
                        }
                        var chain = [Float](repeating: -7, count: 36 * ldc)
                        for r in 0..<(tiles * tileRows) {
                            for j in 0..<columns {
                                var acc = bias[j]
                                for i in 0..<depth { acc = acc.addingProduct(a[r * lda + Int(indices[i])], panel[i * 16 + j]) }
                                chain[r * ldc + j] = clampLane(acc, bounds[0], bounds[1])
                            }
                        }
                        let what = "\(half ? "runHalfTiles" : "runTiles") depth \(depth) tiles \(tiles) bounds \(bounds)"
                        expectBitIdentical(out, chain, what, nanMatchesAnyNaN: true)
                        if depth == 0 { #expect(out[3].bitPattern == (-0.0 as Float).bitPattern, "\(what): −0 lost") }
                        if depth > 9 && tiles * tileRows > 17 { #expect(out[17 * ldc].isNaN, "\(what): the NaN did not reach row 17") }
                    }
                }
            }
        }
    }

    /// ``GEMMTile6x16/runHalfPair`` on twelve rows writes what two calls of ``GEMMTile6x16/runHalf`` on six write,
    /// with a NaN in the second six rows, and nothing past `columns`.
    @Test func halfPairGivesTheHalfTilesBits() {
        guard GEMMTile.fma6x16.isSupported else { return }
        var rng = SeededRandom(seed: 619)
        let depth = 21, lda = 31, ldc = 11
        var a = rng.array(12 * lda)
        a[7 * lda + 4] = .nan   // row 7, depth index 4: the second group of six rows reads through its own index
        let panel = rng.array(depth * 16), bias = rng.array(16)
        let indices = (0..<depth).map { Int32($0 + $0 / 8) }   // ascending, with gaps, below lda
        for columns in 1...8 {
            for bounds: [Float] in [[-.infinity, .infinity], [-0.5, 0.25], [0, .infinity]] {
                var pair = [Float](repeating: -7, count: 12 * ldc), halves = pair
                GEMMTile6x16.runHalfPair(a: a, lda: lda, panel: panel, indices: indices, depth: depth, bias: bias,
                                         c: &pair, ldc: ldc, columns: columns, bounds: bounds)
                a.withUnsafeBufferPointer { x in
                    halves.withUnsafeMutableBufferPointer { out in
                        for g in 0..<2 {
                            GEMMTile6x16.runHalf(a: x.baseAddress! + 6 * g * lda, lda: lda, rows: 6, panel: panel, indices: indices,
                                                 depth: depth, bias: bias, c: out.baseAddress! + 6 * g * ldc, ldc: ldc,
                                                 columns: columns, bounds: bounds)
                        }
                    }
                }
                expectBitIdentical(pair, halves, "columns \(columns) bounds \(bounds)")
                #expect(pair[7 * ldc].isNaN, "the NaN input did not reach row 7")
                #expect(pair.enumerated().allSatisfy { i, v in i % ldc < columns || v == -7 }, "columns \(columns): wrote past them")
            }
        }
    }

    @Test func rowKernelGivesTheTilesBits() {
        guard GEMMTile.fma6x16.isSupported else { return }
        var rng = SeededRandom(seed: 617)
        let depth = 23, stride = depth * 16
        var a = rng.array(40)
        a[5] = .nan   // depth index 5: a NaN reaches every output, clamped or not
        let panels = rng.array(4 * stride), bias = rng.array(4 * 16)
        let indices = (0..<depth).map { Int32($0 + $0 / 7) }   // ascending, with gaps, below a.count
        for count in 1...4 {
            for lastColumns in [1, 7, 8, 9, 15, 16] {
                let columns = (count - 1) * 16 + lastColumns
                for bounds: [Float] in [[-.infinity, .infinity], [-0.5, 0.25], [0, .infinity]] {
                    var tile = [Float](repeating: -7, count: 70), row = tile
                    panels.withUnsafeBufferPointer { w in
                        bias.withUnsafeBufferPointer { b in
                            tile.withUnsafeMutableBufferPointer { t in
                                for q in 0..<count {
                                    GEMMTile6x16.run(a: a, lda: 0, rows: 1, panel: w.baseAddress! + q * stride, indices: indices,
                                                     depth: depth, bias: b.baseAddress! + q * 16, c: t.baseAddress! + q * 16, ldc: 0,
                                                     columns: min(16, columns - q * 16), bounds: bounds)
                                }
                            }
                        }
                    }
                    GEMMTile6x16.runRow(a: a, panel: panels, panelStride: stride, panels: count, indices: indices, depth: depth,
                                        bias: bias, c: &row, columns: columns, bounds: bounds)
                    expectBitIdentical(row, tile, "panels \(count) columns \(columns) bounds \(bounds)")
                    #expect(row.enumerated().allSatisfy { i, v in i < columns || v == -7 }, "panels \(count) columns \(columns): wrote past them")
                }
            }
        }
    }

    /// ``PackedGEMM`` runs a block's single leftover row through ``GEMMTile6x16/runRow`` against runs of panels with
    /// the same live entries; panels whose entries differ (a pruned layer) are never grouped. Either way every row
    /// gets the bits the tile gives it.
    @Test func leftoverRowGetsTheTilesBits() {
        guard GEMMTile.fma6x16.isSupported else { return }
        var rng = SeededRandom(seed: 618)
        // (61, 8, 8) and (100, 24, 9): half panels, twelve rows at a time and the rest six or one at a time.
        for (m, n, k) in [(1, 1404, 19), (7, 72, 11), (13, 40, 16), (49, 100, 24), (61, 8, 8), (100, 24, 9)] {
            for pruned in [false, true] {
                let a = rng.array(m * k), bias = rng.array(n)
                var w = rng.array(n * k)
                // Pruned: panel 1 loses input channel 2 and panel 3 channels 0–1, so their live entries differ.
                if pruned {
                    for o in 16..<max(16, min(n, 32)) { w[o * k + 2] = 0 }
                    for o in 48..<max(48, min(n, 64)) { w[o * k] = 0; w[o * k + 1] = 0 }
                }
                let packed = PackedGEMMWeights(weights: w, bias: bias, outputs: n, depth: k, tile: .fma6x16)
                if pruned, n > 16 { #expect(packed.sameLiveRun[0] == 1, "m\(m) n\(n): panel 0 grouped with a pruned panel") }
                if !pruned { #expect(packed.sameLiveRun[0] == packed.panelCount, "m\(m) n\(n): a dense layer's panels not all alike") }
                var got = [Float](repeating: .nan, count: m * n)
                PackedGEMM.run(a: a, lda: k, rows: 0..<m, weights: packed, c: &got, ldc: n, clamp: ClampBounds(min: -0.5, max: 0.25))
                // Each row alone through the whole tile, panel by panel.
                var want = [Float](repeating: .nan, count: m * n)
                let bounds: [Float] = [-0.5, 0.25]
                a.withUnsafeBufferPointer { x in
                    want.withUnsafeMutableBufferPointer { out in
                        for r in 0..<m {
                            for p in 0..<packed.panelCount {
                                let first = packed.panelStart[p], live = packed.panelStart[p + 1] - first
                                GEMMTile6x16.run(a: x.baseAddress! + r * k, lda: k, rows: 1, panel: packed.values + first * 16,
                                                 indices: packed.indices + first, depth: live, bias: packed.bias + p * 16,
                                                 c: out.baseAddress! + r * n + p * 16, ldc: n, columns: min(16, n - p * 16),
                                                 bounds: bounds)
                            }
                        }
                    }
                }
                expectBitIdentical(got, want, "m\(m) n\(n) k\(k) pruned \(pruned)")
            }
        }
    }
}
