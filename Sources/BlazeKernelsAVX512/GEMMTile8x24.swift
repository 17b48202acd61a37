/// Narrower cuts of the 8 × 32 tile for a layer's last panel: 8 × 24 (one zmm and one ymm accumulator per row)
/// for 17–24 live columns, and 8 × 8 (one ymm) for 1–8. Hand-written beside the generated tile.
///
/// Why: on Zen 4 a 512-bit fused multiply-add costs two 256-bit ones, so the eight zero columns of a
/// 24-wide panel cost a quarter of the full tile's time, and an 8-column panel run by the 16-wide half
/// wastes half of it. hand_landmark's 24- and 40-output 1×1 convolutions (56 × 56 × 144 → 24 and
/// 28 × 28 × 240 → 40, among others) ran at 80–91 GFLOP/s on one core against 105–110 for full panels.
/// Each element is the same chain as in
/// ``GEMMTile8x32/run(a:lda:rows:panel:indices:depth:bias:c:ldc:columns:bounds:)`` (the bias, then one
/// fused multiply-add per index, in order, then the clamp), so the bits are the tile's
/// (`Tests/BlazeKernelsTests` compares them).
public enum GEMMTile8x24 {
    /// The contract of ``GEMMTile8x32/run(a:lda:rows:panel:indices:depth:bias:c:ldc:columns:bounds:)`` for
    /// `columns` in 17...24: only the first 24 floats of each 32-wide panel row and of the bias are read.
    @inline(never)
    public static func run(a: UnsafePointer<Float>, lda: Int, rows: Int, panel: UnsafePointer<Float>,
                           indices: UnsafePointer<Int32>, depth: Int, bias: UnsafePointer<Float>,
                           c: UnsafeMutablePointer<Float>, ldc: Int, columns: Int, bounds: UnsafePointer<Float>) {
        typealias V = SIMD16<Float>
        typealias H = SIMD8<Float>
        precondition(columns > 16 && columns <= 24, "GEMMTile8x24.run: columns must be 17...24, got \(columns)")
        let last = rows &- 1
        let x0 = a, x1 = a + min(1, last) &* lda, x2 = a + min(2, last) &* lda
        let x3 = a + min(3, last) &* lda, x4 = a + min(4, last) &* lda, x5 = a + min(5, last) &* lda
        let x6 = a + min(6, last) &* lda, x7 = a + min(7, last) &* lda
        let braw = UnsafeRawPointer(bias)
        let b0 = braw.loadUnaligned(as: V.self), b1 = braw.loadUnaligned(fromByteOffset: 64, as: H.self)
        var acc00 = b0, acc01 = b1, acc10 = b0, acc11 = b1, acc20 = b0, acc21 = b1, acc30 = b0, acc31 = b1
        var acc40 = b0, acc41 = b1, acc50 = b0, acc51 = b1, acc60 = b0, acc61 = b1, acc70 = b0, acc71 = b1
        var p = UnsafeRawPointer(panel)
        for i in 0..<depth {
            let k = Int(indices[i])
            let w0 = p.loadUnaligned(as: V.self), w1 = p.loadUnaligned(fromByteOffset: 64, as: H.self)
            var s = x0[k]; acc00 = acc00.addingProduct(V(repeating: s), w0); acc01 = acc01.addingProduct(H(repeating: s), w1)
            s = x1[k]; acc10 = acc10.addingProduct(V(repeating: s), w0); acc11 = acc11.addingProduct(H(repeating: s), w1)
            s = x2[k]; acc20 = acc20.addingProduct(V(repeating: s), w0); acc21 = acc21.addingProduct(H(repeating: s), w1)
            s = x3[k]; acc30 = acc30.addingProduct(V(repeating: s), w0); acc31 = acc31.addingProduct(H(repeating: s), w1)
            s = x4[k]; acc40 = acc40.addingProduct(V(repeating: s), w0); acc41 = acc41.addingProduct(H(repeating: s), w1)
            s = x5[k]; acc50 = acc50.addingProduct(V(repeating: s), w0); acc51 = acc51.addingProduct(H(repeating: s), w1)
            s = x6[k]; acc60 = acc60.addingProduct(V(repeating: s), w0); acc61 = acc61.addingProduct(H(repeating: s), w1)
            s = x7[k]; acc70 = acc70.addingProduct(V(repeating: s), w0); acc71 = acc71.addingProduct(H(repeating: s), w1)
            p += 128
        }
        let clamp = GEMMTile8x32.Clamp(bounds)
        let lo = clamp.lo.lowHalf, hi = clamp.hi.lowHalf
        let out = UnsafeMutableRawPointer(c)
        for r in 0..<rows {
            let (l, h): (V, H)
            switch r {
            case 0: (l, h) = (acc00, acc01)
            case 1: (l, h) = (acc10, acc11)
            case 2: (l, h) = (acc20, acc21)
            case 3: (l, h) = (acc30, acc31)
            case 4: (l, h) = (acc40, acc41)
            case 5: (l, h) = (acc50, acc51)
            case 6: (l, h) = (acc60, acc61)
            default: (l, h) = (acc70, acc71)
            }
            let dst = out + r &* ldc &* 4
            dst.storeBytes(of: clamp(l), as: V.self)
            let v = clampLanes(h, lo, hi)
            if columns == 24 { dst.storeBytes(of: v, toByteOffset: 64, as: H.self); continue }
            var j = 16
            while j < columns { dst.storeBytes(of: v[j &- 16], toByteOffset: j &* 4, as: Float.self); j &+= 1 }
        }
    }

    /// The contract of ``GEMMTile8x32/run(a:lda:rows:panel:indices:depth:bias:c:ldc:columns:bounds:)`` for
    /// `columns` in 1...8: only the first 8 floats of each 32-wide panel row and of the bias are read.
    @inline(never)
    public static func runQuarter(a: UnsafePointer<Float>, lda: Int, rows: Int, panel: UnsafePointer<Float>,
                                  indices: UnsafePointer<Int32>, depth: Int, bias: UnsafePointer<Float>,
                                  c: UnsafeMutablePointer<Float>, ldc: Int, columns: Int, bounds: UnsafePointer<Float>) {
        typealias H = SIMD8<Float>
        precondition(columns >= 1 && columns <= 8, "GEMMTile8x24.runQuarter: columns must be 1...8, got \(columns)")
        let last = rows &- 1
        let x0 = a, x1 = a + min(1, last) &* lda, x2 = a + min(2, last) &* lda
        let x3 = a + min(3, last) &* lda, x4 = a + min(4, last) &* lda, x5 = a + min(5, last) &* lda
        let x6 = a + min(6, last) &* lda, x7 = a + min(7, last) &* lda
        let b0 = UnsafeRawPointer(bias).loadUnaligned(as: H.self)
        var acc0 = b0, acc1 = b0, acc2 = b0, acc3 = b0, acc4 = b0, acc5 = b0, acc6 = b0, acc7 = b0
        var p = UnsafeRawPointer(panel)
        for i in 0..<depth {
            let k = Int(indices[i])
            let w = p.loadUnaligned(as: H.self)
            acc0 = acc0.addingProduct(H(repeating: x0[k]), w)
            acc1 = acc1.addingProduct(H(repeating: x1[k]), w)
            acc2 = acc2.addingProduct(H(repeating: x2[k]), w)
            acc3 = acc3.addingProduct(H(repeating: x3[k]), w)
            acc4 = acc4.addingProduct(H(repeating: x4[k]), w)
            acc5 = acc5.addingProduct(H(repeating: x5[k]), w)
            acc6 = acc6.addingProduct(H(repeating: x6[k]), w)
            acc7 = acc7.addingProduct(H(repeating: x7[k]), w)
            p += 128
        }
        let clamp = GEMMTile8x32.Clamp(bounds)
        let lo = clamp.lo.lowHalf, hi = clamp.hi.lowHalf
        let out = UnsafeMutableRawPointer(c)
        for r in 0..<rows {
            let acc: H
            switch r {
            case 0: acc = acc0
            case 1: acc = acc1
            case 2: acc = acc2
            case 3: acc = acc3
            case 4: acc = acc4
            case 5: acc = acc5
            case 6: acc = acc6
            default: acc = acc7
            }
            let v = clampLanes(acc, lo, hi)
            let dst = out + r &* ldc &* 4
            if columns == 8 { dst.storeBytes(of: v, as: H.self); continue }
            for j in 0..<columns { dst.storeBytes(of: v[j], toByteOffset: j &* 4, as: Float.self) }
        }
    }

    /// The tile's clamp on 8 lanes: below `lo` becomes `lo`, then above `hi` becomes `hi` (as `Clamp`).
    @inline(__always)
    static func clampLanes(_ v: SIMD8<Float>, _ lo: SIMD8<Float>, _ hi: SIMD8<Float>) -> SIMD8<Float> {
        let x = v.replacing(with: lo, where: v .< lo)
        return x.replacing(with: hi, where: x .> hi)
    }
}
