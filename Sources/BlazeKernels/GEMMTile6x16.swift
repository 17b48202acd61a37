/// The AVX2 register tile of the packed GEMM: 6 rows × 16 columns, twelve `SIMD8<Float>`
/// accumulators (with the 2 panel vectors and a broadcast, 15 of the 16 ymm registers).
/// Built with FMA codegen (`-target-cpu haswell`, Package.swift), `addingProduct` is one `vfmadd`.
enum GEMMTile6x16 {
    static let rows = 6
    static let columns = 16

    /// `c[r, j] = clamp(bias[j] + Σ_i a[r, idx[i]] · panel[i, j])` for `r < rows`, `j < columns`;
    /// the same contract as `GEMMTile8x32.run` with a 16-wide panel.
    static func run(a: UnsafePointer<Float>, lda: Int, rows: Int, panel: UnsafePointer<Float>,
                    indices: UnsafePointer<Int32>, depth: Int, bias: UnsafePointer<Float>,
                    c: UnsafeMutablePointer<Float>, ldc: Int, columns: Int, bounds: UnsafePointer<Float>) {
        typealias V = SIMD8<Float>
        let last = rows &- 1
        let x0 = a, x1 = a + min(1, last) &* lda, x2 = a + min(2, last) &* lda
        let x3 = a + min(3, last) &* lda, x4 = a + min(4, last) &* lda, x5 = a + min(5, last) &* lda
        let braw = UnsafeRawPointer(bias)
        let b0 = braw.loadUnaligned(as: V.self), b1 = braw.loadUnaligned(fromByteOffset: 32, as: V.self)
        var acc00 = b0, acc01 = b1, acc10 = b0, acc11 = b1, acc20 = b0, acc21 = b1
        var acc30 = b0, acc31 = b1, acc40 = b0, acc41 = b1, acc50 = b0, acc51 = b1
        var w = UnsafeRawPointer(panel)
        for i in 0..<depth {
            let k = Int(indices[i])
            let w0 = w.loadUnaligned(as: V.self), w1 = w.loadUnaligned(fromByteOffset: 32, as: V.self)
            var v = V(repeating: x0[k]); acc00 = acc00.addingProduct(v, w0); acc01 = acc01.addingProduct(v, w1)
            v = V(repeating: x1[k]); acc10 = acc10.addingProduct(v, w0); acc11 = acc11.addingProduct(v, w1)
            v = V(repeating: x2[k]); acc20 = acc20.addingProduct(v, w0); acc21 = acc21.addingProduct(v, w1)
            v = V(repeating: x3[k]); acc30 = acc30.addingProduct(v, w0); acc31 = acc31.addingProduct(v, w1)
            v = V(repeating: x4[k]); acc40 = acc40.addingProduct(v, w0); acc41 = acc41.addingProduct(v, w1)
            v = V(repeating: x5[k]); acc50 = acc50.addingProduct(v, w0); acc51 = acc51.addingProduct(v, w1)
            w += 64
        }
        // The accumulators go to a stack tile first: keeping them in registers through a per-row
        // switch made LLVM spill three of them inside the loop above.
        withUnsafeTemporaryAllocation(of: V.self, capacity: 12) { tile in
            let t = tile.baseAddress!
            t[0] = acc00; t[1] = acc01; t[2] = acc10; t[3] = acc11; t[4] = acc20; t[5] = acc21
            t[6] = acc30; t[7] = acc31; t[8] = acc40; t[9] = acc41; t[10] = acc50; t[11] = acc51
            let lower = V(repeating: bounds[0]), upper = V(repeating: bounds[1])
            for r in 0..<rows {
                let y0 = clampLanes(t[2 &* r], lower, upper), y1 = clampLanes(t[2 &* r &+ 1], lower, upper)
                let dst = UnsafeMutableRawPointer(c + r &* ldc)
                if columns == 16 {
                    dst.storeBytes(of: y0, as: V.self)
                    dst.storeBytes(of: y1, toByteOffset: 32, as: V.self)
                } else {
                    // Partial panel: a whole vector where 8 columns remain, then lane by lane.
                    var j = 0, v = y0
                    if columns >= 8 { dst.storeBytes(of: y0, as: V.self); j = 8; v = y1 }
                    while j < columns { dst.storeBytes(of: v[j & 7], toByteOffset: j &* 4, as: Float.self); j &+= 1 }
                }
            }
        }
    }
}
