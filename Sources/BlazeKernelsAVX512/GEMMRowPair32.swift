/// The last one or two rows of a packed GEMM block whose row count is not a multiple of eight: the 8 × 32
/// tile's arithmetic for at most two rows, so a leftover row costs two rows' multiply-adds instead of eight.
///
/// `GEMMTile8x32` computes all eight rows whatever `rows` says (it repeats the last one), so a 7 × 7 map
/// (49 pixels: six tiles and one row) paid 56 rows for 49. Two rows are the fewest that keep the fused
/// multiply-adds busy: each element is one dependent chain (bias, then one multiply-add per index in
/// order), and two rows give four independent chains per step. Each element is the same chain as in
/// ``GEMMTile8x32/run(a:lda:rows:panel:indices:depth:bias:c:ldc:columns:bounds:)`` and
/// ``GEMMTile8x32/runHalf(a:lda:rows:panel:indices:depth:bias:c:ldc:columns:bounds:)``, so the results
/// are bit-identical to theirs (`Tests/BlazeKernelsTests` compares them). Hand-written, not generated:
/// the AVX2 tile (6 × 16) has no such remainder path.
public enum GEMMRowPair32 {
    /// `c[r, j] = clamp(bias[j] + Σ_i a[r, idx[i]] · panel[i, j])` for `r < rows` (1 or 2), `j < columns`
    /// (at most 32; at most 16 reads only the left half of each panel row), with the contract of
    /// ``GEMMTile8x32/run(a:lda:rows:panel:indices:depth:bias:c:ldc:columns:bounds:)``.
    @inline(never)
    public static func run(a: UnsafePointer<Float>, lda: Int, rows: Int, panel: UnsafePointer<Float>,
                           indices: UnsafePointer<Int32>, depth: Int, bias: UnsafePointer<Float>,
                           c: UnsafeMutablePointer<Float>, ldc: Int, columns: Int, bounds: UnsafePointer<Float>) {
        typealias V = SIMD16<Float>
        precondition(rows == 1 || rows == 2, "GEMMRowPair32: rows must be 1 or 2, got \(rows)")
        let x0 = a, x1 = a + (rows &- 1) &* lda
        let braw = UnsafeRawPointer(bias)
        let b0 = braw.loadUnaligned(as: V.self)
        var acc00 = b0, acc10 = b0
        var p = UnsafeRawPointer(panel)
        let clamp = GEMMTile8x32.Clamp(bounds)
        let out = UnsafeMutableRawPointer(c)
        if columns <= 16 {
            for i in 0..<depth {
                let k = Int(indices[i])
                let w0 = p.loadUnaligned(as: V.self)
                acc00 = acc00.addingProduct(V(repeating: x0[k]), w0)
                acc10 = acc10.addingProduct(V(repeating: x1[k]), w0)
                p += 128
            }
            for r in 0..<rows {
                let v = clamp(r == 0 ? acc00 : acc10)
                let dst = out + r &* ldc &* 4
                if columns == 16 { dst.storeBytes(of: v, as: V.self); continue }
                var j = 0
                if columns >= 8 { dst.storeBytes(of: v.lowHalf, as: SIMD8<Float>.self); j = 8 }
                while j < columns { dst.storeBytes(of: v[j], toByteOffset: j &* 4, as: Float.self); j &+= 1 }
            }
            return
        }
        let b1 = braw.loadUnaligned(fromByteOffset: 64, as: V.self)
        var acc01 = b1, acc11 = b1
        for i in 0..<depth {
            let k = Int(indices[i])
            let w0 = p.loadUnaligned(as: V.self), w1 = p.loadUnaligned(fromByteOffset: 64, as: V.self)
            var v = V(repeating: x0[k]); acc00 = acc00.addingProduct(v, w0); acc01 = acc01.addingProduct(v, w1)
            v = V(repeating: x1[k]); acc10 = acc10.addingProduct(v, w0); acc11 = acc11.addingProduct(v, w1)
            p += 128
        }
        for r in 0..<rows {
            let (l, h) = r == 0 ? (acc00, acc01) : (acc10, acc11)
            let dst = out + r &* ldc &* 4
            dst.storeBytes(of: clamp(l), as: V.self)
            let v = clamp(h)
            if columns == 32 { dst.storeBytes(of: v, toByteOffset: 64, as: V.self); continue }
            var j = 16
            if columns &- j >= 8 { dst.storeBytes(of: v.lowHalf, toByteOffset: j &* 4, as: SIMD8<Float>.self); j &+= 8 }
            while j < columns { dst.storeBytes(of: v[j &- 16], toByteOffset: j &* 4, as: Float.self); j &+= 1 }
        }
    }
}
