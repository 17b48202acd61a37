/// The AVX-512 register tile of the packed GEMM: 8 rows × 32 columns, sixteen `SIMD16<Float>`
/// accumulators in zmm registers, and its left half (8 × 16) for panels with at most 16 live columns.
///
/// This module is compiled for `skylake-avx512` (see Package.swift) and must only run on a CPU that
/// reports AVX-512 F/BW/DQ/VL; `BlazeKernels.PackedGEMM` checks that once and calls in here. It
/// holds no globals, so nothing in it runs before such a call.
///
/// The tile's size (8 × 32) is restated in `BlazeKernels.GEMMTile` rather than exported from here:
/// every symbol of this module, even a constant's accessor, is code built for AVX-512.
public enum GEMMTile8x32 {
    /// `c[r, j] = clamp(bias[j] + Σ_i a[r, idx[i]] · panel[i, j])` for `r < rows`, `j < columns`.
    ///
    /// - Parameters:
    ///   - a: row 0 of the left operand; row `r` starts at `a + r·lda`. Rows at or beyond `rows`
    ///     are not read.
    ///   - panel: `depth × 32` floats, the packed right operand for these 32 columns.
    ///   - indices: `depth` column indices into each row of `a`, ascending.
    ///   - bias: 32 floats.
    ///   - c: row 0 of the output; only `rows × columns` values are written.
    ///   - bounds: the clamp's lower and upper bound. Passed in memory, not as `Float` arguments,
    ///     which would hold two vector registers through the loop (the 6×16 tile then spills).
    @inline(never)
    public static func run(a: UnsafePointer<Float>, lda: Int, rows: Int, panel: UnsafePointer<Float>,
                           indices: UnsafePointer<Int32>, depth: Int, bias: UnsafePointer<Float>,
                           c: UnsafeMutablePointer<Float>, ldc: Int, columns: Int, bounds: UnsafePointer<Float>) {
        typealias V = SIMD16<Float>
        let (a0, a1, a2, a3, a4, a5, a6, a7) = rowPointers(a, lda: lda, rows: rows)
        let braw = UnsafeRawPointer(bias)
        let bl = braw.loadUnaligned(as: V.self), bh = braw.loadUnaligned(fromByteOffset: 64, as: V.self)
        var r0l = bl, r0h = bh, r1l = bl, r1h = bh, r2l = bl, r2h = bh, r3l = bl, r3h = bh
        var r4l = bl, r4h = bh, r5l = bl, r5h = bh, r6l = bl, r6h = bh, r7l = bl, r7h = bh
        var p = UnsafeRawPointer(panel)
        for i in 0..<depth {
            let k = Int(indices[i])
            let wl = p.loadUnaligned(as: V.self), wh = p.loadUnaligned(fromByteOffset: 64, as: V.self)
            var s = V(repeating: a0[k]); r0l = r0l.addingProduct(s, wl); r0h = r0h.addingProduct(s, wh)
            s = V(repeating: a1[k]); r1l = r1l.addingProduct(s, wl); r1h = r1h.addingProduct(s, wh)
            s = V(repeating: a2[k]); r2l = r2l.addingProduct(s, wl); r2h = r2h.addingProduct(s, wh)
            s = V(repeating: a3[k]); r3l = r3l.addingProduct(s, wl); r3h = r3h.addingProduct(s, wh)
            s = V(repeating: a4[k]); r4l = r4l.addingProduct(s, wl); r4h = r4h.addingProduct(s, wh)
            s = V(repeating: a5[k]); r5l = r5l.addingProduct(s, wl); r5h = r5h.addingProduct(s, wh)
            s = V(repeating: a6[k]); r6l = r6l.addingProduct(s, wl); r6h = r6h.addingProduct(s, wh)
            s = V(repeating: a7[k]); r7l = r7l.addingProduct(s, wl); r7h = r7h.addingProduct(s, wh)
            p += 128
        }
        let clamp = Clamp(bounds)
        let out = UnsafeMutableRawPointer(c)
        if rows == 8, columns == 32 {
            let rowBytes = ldc &* 4
            out.storeBytes(of: clamp(r0l), as: V.self); out.storeBytes(of: clamp(r0h), toByteOffset: 64, as: V.self)
            var o = out + rowBytes
            o.storeBytes(of: clamp(r1l), as: V.self); o.storeBytes(of: clamp(r1h), toByteOffset: 64, as: V.self); o += rowBytes
            o.storeBytes(of: clamp(r2l), as: V.self); o.storeBytes(of: clamp(r2h), toByteOffset: 64, as: V.self); o += rowBytes
            o.storeBytes(of: clamp(r3l), as: V.self); o.storeBytes(of: clamp(r3h), toByteOffset: 64, as: V.self); o += rowBytes
            o.storeBytes(of: clamp(r4l), as: V.self); o.storeBytes(of: clamp(r4h), toByteOffset: 64, as: V.self); o += rowBytes
            o.storeBytes(of: clamp(r5l), as: V.self); o.storeBytes(of: clamp(r5h), toByteOffset: 64, as: V.self); o += rowBytes
            o.storeBytes(of: clamp(r6l), as: V.self); o.storeBytes(of: clamp(r6h), toByteOffset: 64, as: V.self); o += rowBytes
            o.storeBytes(of: clamp(r7l), as: V.self); o.storeBytes(of: clamp(r7h), toByteOffset: 64, as: V.self)
            return
        }
        // Partial tile: whole vectors while 16 columns remain, then 8, then lane by lane.
        for r in 0..<rows {
            let (l, h): (V, V)
            switch r {
            case 0: (l, h) = (r0l, r0h)
            case 1: (l, h) = (r1l, r1h)
            case 2: (l, h) = (r2l, r2h)
            case 3: (l, h) = (r3l, r3h)
            case 4: (l, h) = (r4l, r4h)
            case 5: (l, h) = (r5l, r5h)
            case 6: (l, h) = (r6l, r6h)
            default: (l, h) = (r7l, r7h)
            }
            let dst = out + r &* ldc &* 4
            let offset = columns >= 16 ? 16 : 0       // the column of lane 0 of `v`
            if offset == 16 { dst.storeBytes(of: clamp(l), as: V.self) }
            let v = offset == 16 ? clamp(h) : clamp(l)
            var j = offset
            if columns &- j >= 8 { dst.storeBytes(of: v.lowHalf, toByteOffset: j &* 4, as: SIMD8<Float>.self); j &+= 8 }
            while j < columns { dst.storeBytes(of: v[j &- offset], toByteOffset: j &* 4, as: Float.self); j &+= 1 }
        }
    }

    /// The left half of ``run(a:lda:rows:panel:indices:depth:bias:c:ldc:columns:bounds:)`` for a panel with
    /// at most 16 live columns (a layer's last panel when its output count is 1…16 past a multiple of 32,
    /// e.g. 16, 48 or 144 outputs): eight accumulators, and only the low 16 floats of each 32-wide panel
    /// row and of the bias are read. Each output is the same chain of fused multiply-adds in the same
    /// order as in the full tile, so results are bit-identical; the full tile would spend half its
    /// multiply-adds on the panel's zero padding.
    @inline(never)
    public static func runHalf(a: UnsafePointer<Float>, lda: Int, rows: Int, panel: UnsafePointer<Float>,
                               indices: UnsafePointer<Int32>, depth: Int, bias: UnsafePointer<Float>,
                               c: UnsafeMutablePointer<Float>, ldc: Int, columns: Int, bounds: UnsafePointer<Float>) {
        typealias V = SIMD16<Float>
        let (a0, a1, a2, a3, a4, a5, a6, a7) = rowPointers(a, lda: lda, rows: rows)
        let bl = UnsafeRawPointer(bias).loadUnaligned(as: V.self)
        var r0 = bl, r1 = bl, r2 = bl, r3 = bl, r4 = bl, r5 = bl, r6 = bl, r7 = bl
        var p = UnsafeRawPointer(panel)
        for i in 0..<depth {
            let k = Int(indices[i])
            let w = p.loadUnaligned(as: V.self)
            r0 = r0.addingProduct(V(repeating: a0[k]), w)
            r1 = r1.addingProduct(V(repeating: a1[k]), w)
            r2 = r2.addingProduct(V(repeating: a2[k]), w)
            r3 = r3.addingProduct(V(repeating: a3[k]), w)
            r4 = r4.addingProduct(V(repeating: a4[k]), w)
            r5 = r5.addingProduct(V(repeating: a5[k]), w)
            r6 = r6.addingProduct(V(repeating: a6[k]), w)
            r7 = r7.addingProduct(V(repeating: a7[k]), w)
            p += 128
        }
        let clamp = Clamp(bounds)
        let out = UnsafeMutableRawPointer(c)
        let rowBytes = ldc &* 4
        if rows == 8, columns == 16 {
            out.storeBytes(of: clamp(r0), as: V.self)
            var o = out + rowBytes
            o.storeBytes(of: clamp(r1), as: V.self); o += rowBytes
            o.storeBytes(of: clamp(r2), as: V.self); o += rowBytes
            o.storeBytes(of: clamp(r3), as: V.self); o += rowBytes
            o.storeBytes(of: clamp(r4), as: V.self); o += rowBytes
            o.storeBytes(of: clamp(r5), as: V.self); o += rowBytes
            o.storeBytes(of: clamp(r6), as: V.self); o += rowBytes
            o.storeBytes(of: clamp(r7), as: V.self)
            return
        }
        // Partial tile: a whole vector for 16 columns, else 8 and then lane by lane.
        for r in 0..<rows {
            let v: V
            switch r {
            case 0: v = clamp(r0)
            case 1: v = clamp(r1)
            case 2: v = clamp(r2)
            case 3: v = clamp(r3)
            case 4: v = clamp(r4)
            case 5: v = clamp(r5)
            case 6: v = clamp(r6)
            default: v = clamp(r7)
            }
            let dst = out + r &* rowBytes
            if columns == 16 { dst.storeBytes(of: v, as: V.self); continue }
            var j = 0
            if columns >= 8 { dst.storeBytes(of: v.lowHalf, as: SIMD8<Float>.self); j = 8 }
            while j < columns { dst.storeBytes(of: v[j], toByteOffset: j &* 4, as: Float.self); j &+= 1 }
        }
    }

    /// Rows 0…7 of `a`, `lda` floats apart; rows at or past `rows` re-read the last row (their results are
    /// not stored).
    @inline(__always)
    static func rowPointers(_ a: UnsafePointer<Float>, lda: Int, rows: Int)
        -> (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>,
            UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>) {
        let last = rows &- 1
        return (a, a + min(1, last) &* lda, a + min(2, last) &* lda, a + min(3, last) &* lda,
                a + min(4, last) &* lda, a + min(5, last) &* lda, a + min(6, last) &* lda, a + min(7, last) &* lda)
    }

    /// The activation clamp of the results, from the bounds the tile is passed in memory.
    struct Clamp {
        let lo: SIMD16<Float>, hi: SIMD16<Float>
        @inline(__always) init(_ bounds: UnsafePointer<Float>) {
            lo = SIMD16(repeating: bounds[0])
            hi = SIMD16(repeating: bounds[1])
        }
        @inline(__always) func callAsFunction(_ v: SIMD16<Float>) -> SIMD16<Float> {
            let x = v.replacing(with: lo, where: v .< lo)
            return x.replacing(with: hi, where: x .> hi)
        }
    }
}
