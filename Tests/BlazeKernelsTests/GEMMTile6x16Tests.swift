@testable import BlazeKernels
import Testing

/// The AVX2 tile's left half (``GEMMTile6x16/runHalf``) writes the bits the whole 6 × 16 tile writes for a
/// panel with 1–8 live columns, at every row count, with and without a clamp (bounds of ±infinity skip the
/// clamp: the same bits, NaN included), and nothing past `columns` or `rows`.
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
}
