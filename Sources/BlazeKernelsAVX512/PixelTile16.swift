// Generated from one template with BlazeKernels/PixelTile8.swift (same shapes, same statement order); edit both alike.

/// The AVX-512 register tile of the pixel-major convolutions (`BlazeKernels.NarrowConv2DKernel`,
/// `BlazeKernels.SparseConv1x1Kernel`): `G` outputs × `P` vectors of 16 pixels, `G·P ≤ 8`
/// `SIMD16<Float>` accumulators, each lane one output pixel. The same contract and the same
/// arithmetic per lane as `BlazeKernels.PixelTile8` (bias, then one fused multiply-add per entry in
/// list order, then the clamp), so both give identical bits for a pixel.
public enum PixelTile16 {
    typealias V = SIMD16<Float>

    /// `tile[g·ldt + 16p + l] = clamp(bias[g] + Σ_r Σ_{e ∈ segment r} w[e·G + g] · row_r[offset[e] + 16p + l])`
    /// for `(G, P)` in (1, 8), (1, 4), (1, 2), (1, 1), (2, 4), (2, 2), (2, 1), (4, 2), (4, 1), (8, 1).
    ///
    /// - Parameters:
    ///   - rowBases: `rowCount` pointers, each at the first pixel of this block in one planar input row.
    ///   - segments: `rowCount` pairs `(start, end)`: the entries read from each row.
    ///   - offsets: per entry, where its values start (in floats) relative to its row's base.
    ///   - weights: `G` floats per entry.
    ///   - bias: `G` floats.
    ///   - tile: output `g` of the block at `tile + g·ldt`, `16·P` floats each.
    ///   - bounds: clamp lower and upper bound.
    @inline(never)
    public static func run(groupWidth: Int, vectors: Int, rowBases: UnsafePointer<UnsafeRawPointer>, rowCount: Int,
                           segments: UnsafePointer<Int>, offsets: UnsafePointer<Int32>, weights: UnsafePointer<Float>,
                           bias: UnsafePointer<Float>, tile: UnsafeMutablePointer<Float>, ldt: Int, bounds: UnsafePointer<Float>) {
        switch (groupWidth, vectors) {
        case (1, 8): g1p8(rowBases, rowCount, segments, offsets, weights, bias, tile, ldt, bounds)
        case (1, 4): g1p4(rowBases, rowCount, segments, offsets, weights, bias, tile, ldt, bounds)
        case (1, 2): g1p2(rowBases, rowCount, segments, offsets, weights, bias, tile, ldt, bounds)
        case (1, 1): g1p1(rowBases, rowCount, segments, offsets, weights, bias, tile, ldt, bounds)
        case (2, 4): g2p4(rowBases, rowCount, segments, offsets, weights, bias, tile, ldt, bounds)
        case (2, 2): g2p2(rowBases, rowCount, segments, offsets, weights, bias, tile, ldt, bounds)
        case (2, 1): g2p1(rowBases, rowCount, segments, offsets, weights, bias, tile, ldt, bounds)
        case (4, 2): g4p2(rowBases, rowCount, segments, offsets, weights, bias, tile, ldt, bounds)
        case (4, 1): g4p1(rowBases, rowCount, segments, offsets, weights, bias, tile, ldt, bounds)
        case (8, 1): g8p1(rowBases, rowCount, segments, offsets, weights, bias, tile, ldt, bounds)
        default: preconditionFailure("PixelTile16: no code for \(groupWidth) outputs × \(vectors) vectors")
        }
    }

    @inline(__always)
    static func clamp(_ v: V, _ lo: V, _ hi: V) -> V {
        let x = v.replacing(with: lo, where: v .< lo)
        return x.replacing(with: hi, where: x .> hi)
    }

    @inline(never)
    static func g1p8(_ rowBases: UnsafePointer<UnsafeRawPointer>, _ rowCount: Int, _ segments: UnsafePointer<Int>,
                     _ offsets: UnsafePointer<Int32>, _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                     _ tile: UnsafeMutablePointer<Float>, _ ldt: Int, _ bounds: UnsafePointer<Float>) {
        let b0 = V(repeating: bias[0])
        var a00 = b0, a01 = b0, a02 = b0, a03 = b0, a04 = b0, a05 = b0, a06 = b0, a07 = b0
        for r in 0..<rowCount {
            let base = rowBases[r]
            var e = segments[2 &* r]
            let end = segments[2 &* r &+ 1]
            while e < end {
                let x = base + Int(offsets[e]) &* 4
                let x0 = x.loadUnaligned(as: V.self)
                let x1 = x.loadUnaligned(fromByteOffset: 64, as: V.self)
                let x2 = x.loadUnaligned(fromByteOffset: 128, as: V.self)
                let x3 = x.loadUnaligned(fromByteOffset: 192, as: V.self)
                let x4 = x.loadUnaligned(fromByteOffset: 256, as: V.self)
                let x5 = x.loadUnaligned(fromByteOffset: 320, as: V.self)
                let x6 = x.loadUnaligned(fromByteOffset: 384, as: V.self)
                let x7 = x.loadUnaligned(fromByteOffset: 448, as: V.self)
                let w = weights + e
                let w0 = V(repeating: w[0])
                a00 = a00.addingProduct(x0, w0); a01 = a01.addingProduct(x1, w0); a02 = a02.addingProduct(x2, w0); a03 = a03.addingProduct(x3, w0); a04 = a04.addingProduct(x4, w0); a05 = a05.addingProduct(x5, w0); a06 = a06.addingProduct(x6, w0); a07 = a07.addingProduct(x7, w0)
                e &+= 1
            }
        }
        let lo = V(repeating: bounds[0]), hi = V(repeating: bounds[1])
        let u = UnsafeMutableRawPointer(tile)
        u.storeBytes(of: clamp(a00, lo, hi), as: V.self)
        u.storeBytes(of: clamp(a01, lo, hi), toByteOffset: 64, as: V.self)
        u.storeBytes(of: clamp(a02, lo, hi), toByteOffset: 128, as: V.self)
        u.storeBytes(of: clamp(a03, lo, hi), toByteOffset: 192, as: V.self)
        u.storeBytes(of: clamp(a04, lo, hi), toByteOffset: 256, as: V.self)
        u.storeBytes(of: clamp(a05, lo, hi), toByteOffset: 320, as: V.self)
        u.storeBytes(of: clamp(a06, lo, hi), toByteOffset: 384, as: V.self)
        u.storeBytes(of: clamp(a07, lo, hi), toByteOffset: 448, as: V.self)
    }

    @inline(never)
    static func g1p4(_ rowBases: UnsafePointer<UnsafeRawPointer>, _ rowCount: Int, _ segments: UnsafePointer<Int>,
                     _ offsets: UnsafePointer<Int32>, _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                     _ tile: UnsafeMutablePointer<Float>, _ ldt: Int, _ bounds: UnsafePointer<Float>) {
        let b0 = V(repeating: bias[0])
        var a00 = b0, a01 = b0, a02 = b0, a03 = b0
        for r in 0..<rowCount {
            let base = rowBases[r]
            var e = segments[2 &* r]
            let end = segments[2 &* r &+ 1]
            while e < end {
                let x = base + Int(offsets[e]) &* 4
                let x0 = x.loadUnaligned(as: V.self)
                let x1 = x.loadUnaligned(fromByteOffset: 64, as: V.self)
                let x2 = x.loadUnaligned(fromByteOffset: 128, as: V.self)
                let x3 = x.loadUnaligned(fromByteOffset: 192, as: V.self)
                let w = weights + e
                let w0 = V(repeating: w[0])
                a00 = a00.addingProduct(x0, w0); a01 = a01.addingProduct(x1, w0); a02 = a02.addingProduct(x2, w0); a03 = a03.addingProduct(x3, w0)
                e &+= 1
            }
        }
        let lo = V(repeating: bounds[0]), hi = V(repeating: bounds[1])
        let u = UnsafeMutableRawPointer(tile)
        u.storeBytes(of: clamp(a00, lo, hi), as: V.self)
        u.storeBytes(of: clamp(a01, lo, hi), toByteOffset: 64, as: V.self)
        u.storeBytes(of: clamp(a02, lo, hi), toByteOffset: 128, as: V.self)
        u.storeBytes(of: clamp(a03, lo, hi), toByteOffset: 192, as: V.self)
    }

    @inline(never)
    static func g1p2(_ rowBases: UnsafePointer<UnsafeRawPointer>, _ rowCount: Int, _ segments: UnsafePointer<Int>,
                     _ offsets: UnsafePointer<Int32>, _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                     _ tile: UnsafeMutablePointer<Float>, _ ldt: Int, _ bounds: UnsafePointer<Float>) {
        let b0 = V(repeating: bias[0])
        var a00 = b0, a01 = b0
        for r in 0..<rowCount {
            let base = rowBases[r]
            var e = segments[2 &* r]
            let end = segments[2 &* r &+ 1]
            while e < end {
                let x = base + Int(offsets[e]) &* 4
                let x0 = x.loadUnaligned(as: V.self)
                let x1 = x.loadUnaligned(fromByteOffset: 64, as: V.self)
                let w = weights + e
                let w0 = V(repeating: w[0])
                a00 = a00.addingProduct(x0, w0); a01 = a01.addingProduct(x1, w0)
                e &+= 1
            }
        }
        let lo = V(repeating: bounds[0]), hi = V(repeating: bounds[1])
        let u = UnsafeMutableRawPointer(tile)
        u.storeBytes(of: clamp(a00, lo, hi), as: V.self)
        u.storeBytes(of: clamp(a01, lo, hi), toByteOffset: 64, as: V.self)
    }

    @inline(never)
    static func g1p1(_ rowBases: UnsafePointer<UnsafeRawPointer>, _ rowCount: Int, _ segments: UnsafePointer<Int>,
                     _ offsets: UnsafePointer<Int32>, _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                     _ tile: UnsafeMutablePointer<Float>, _ ldt: Int, _ bounds: UnsafePointer<Float>) {
        let b0 = V(repeating: bias[0])
        var a00 = b0
        for r in 0..<rowCount {
            let base = rowBases[r]
            var e = segments[2 &* r]
            let end = segments[2 &* r &+ 1]
            while e < end {
                let x = base + Int(offsets[e]) &* 4
                let x0 = x.loadUnaligned(as: V.self)
                let w = weights + e
                let w0 = V(repeating: w[0])
                a00 = a00.addingProduct(x0, w0)
                e &+= 1
            }
        }
        let lo = V(repeating: bounds[0]), hi = V(repeating: bounds[1])
        let u = UnsafeMutableRawPointer(tile)
        u.storeBytes(of: clamp(a00, lo, hi), as: V.self)
    }

    @inline(never)
    static func g2p4(_ rowBases: UnsafePointer<UnsafeRawPointer>, _ rowCount: Int, _ segments: UnsafePointer<Int>,
                     _ offsets: UnsafePointer<Int32>, _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                     _ tile: UnsafeMutablePointer<Float>, _ ldt: Int, _ bounds: UnsafePointer<Float>) {
        let b0 = V(repeating: bias[0])
        let b1 = V(repeating: bias[1])
        var a00 = b0, a01 = b0, a02 = b0, a03 = b0, a10 = b1, a11 = b1, a12 = b1, a13 = b1
        for r in 0..<rowCount {
            let base = rowBases[r]
            var e = segments[2 &* r]
            let end = segments[2 &* r &+ 1]
            while e < end {
                let x = base + Int(offsets[e]) &* 4
                let x0 = x.loadUnaligned(as: V.self)
                let x1 = x.loadUnaligned(fromByteOffset: 64, as: V.self)
                let x2 = x.loadUnaligned(fromByteOffset: 128, as: V.self)
                let x3 = x.loadUnaligned(fromByteOffset: 192, as: V.self)
                let w = weights + 2 &* e
                let w0 = V(repeating: w[0])
                a00 = a00.addingProduct(x0, w0); a01 = a01.addingProduct(x1, w0); a02 = a02.addingProduct(x2, w0); a03 = a03.addingProduct(x3, w0)
                let w1 = V(repeating: w[1])
                a10 = a10.addingProduct(x0, w1); a11 = a11.addingProduct(x1, w1); a12 = a12.addingProduct(x2, w1); a13 = a13.addingProduct(x3, w1)
                e &+= 1
            }
        }
        let lo = V(repeating: bounds[0]), hi = V(repeating: bounds[1])
        var u = UnsafeMutableRawPointer(tile)
        u.storeBytes(of: clamp(a00, lo, hi), as: V.self)
        u.storeBytes(of: clamp(a01, lo, hi), toByteOffset: 64, as: V.self)
        u.storeBytes(of: clamp(a02, lo, hi), toByteOffset: 128, as: V.self)
        u.storeBytes(of: clamp(a03, lo, hi), toByteOffset: 192, as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a10, lo, hi), as: V.self)
        u.storeBytes(of: clamp(a11, lo, hi), toByteOffset: 64, as: V.self)
        u.storeBytes(of: clamp(a12, lo, hi), toByteOffset: 128, as: V.self)
        u.storeBytes(of: clamp(a13, lo, hi), toByteOffset: 192, as: V.self)
    }

    @inline(never)
    static func g2p2(_ rowBases: UnsafePointer<UnsafeRawPointer>, _ rowCount: Int, _ segments: UnsafePointer<Int>,
                     _ offsets: UnsafePointer<Int32>, _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                     _ tile: UnsafeMutablePointer<Float>, _ ldt: Int, _ bounds: UnsafePointer<Float>) {
        let b0 = V(repeating: bias[0])
        let b1 = V(repeating: bias[1])
        var a00 = b0, a01 = b0, a10 = b1, a11 = b1
        for r in 0..<rowCount {
            let base = rowBases[r]
            var e = segments[2 &* r]
            let end = segments[2 &* r &+ 1]
            while e < end {
                let x = base + Int(offsets[e]) &* 4
                let x0 = x.loadUnaligned(as: V.self)
                let x1 = x.loadUnaligned(fromByteOffset: 64, as: V.self)
                let w = weights + 2 &* e
                let w0 = V(repeating: w[0])
                a00 = a00.addingProduct(x0, w0); a01 = a01.addingProduct(x1, w0)
                let w1 = V(repeating: w[1])
                a10 = a10.addingProduct(x0, w1); a11 = a11.addingProduct(x1, w1)
                e &+= 1
            }
        }
        let lo = V(repeating: bounds[0]), hi = V(repeating: bounds[1])
        var u = UnsafeMutableRawPointer(tile)
        u.storeBytes(of: clamp(a00, lo, hi), as: V.self)
        u.storeBytes(of: clamp(a01, lo, hi), toByteOffset: 64, as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a10, lo, hi), as: V.self)
        u.storeBytes(of: clamp(a11, lo, hi), toByteOffset: 64, as: V.self)
    }

    @inline(never)
    static func g2p1(_ rowBases: UnsafePointer<UnsafeRawPointer>, _ rowCount: Int, _ segments: UnsafePointer<Int>,
                     _ offsets: UnsafePointer<Int32>, _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                     _ tile: UnsafeMutablePointer<Float>, _ ldt: Int, _ bounds: UnsafePointer<Float>) {
        let b0 = V(repeating: bias[0])
        let b1 = V(repeating: bias[1])
        var a00 = b0, a10 = b1
        for r in 0..<rowCount {
            let base = rowBases[r]
            var e = segments[2 &* r]
            let end = segments[2 &* r &+ 1]
            while e < end {
                let x = base + Int(offsets[e]) &* 4
                let x0 = x.loadUnaligned(as: V.self)
                let w = weights + 2 &* e
                let w0 = V(repeating: w[0])
                a00 = a00.addingProduct(x0, w0)
                let w1 = V(repeating: w[1])
                a10 = a10.addingProduct(x0, w1)
                e &+= 1
            }
        }
        let lo = V(repeating: bounds[0]), hi = V(repeating: bounds[1])
        var u = UnsafeMutableRawPointer(tile)
        u.storeBytes(of: clamp(a00, lo, hi), as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a10, lo, hi), as: V.self)
    }

    @inline(never)
    static func g4p2(_ rowBases: UnsafePointer<UnsafeRawPointer>, _ rowCount: Int, _ segments: UnsafePointer<Int>,
                     _ offsets: UnsafePointer<Int32>, _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                     _ tile: UnsafeMutablePointer<Float>, _ ldt: Int, _ bounds: UnsafePointer<Float>) {
        let b0 = V(repeating: bias[0])
        let b1 = V(repeating: bias[1])
        let b2 = V(repeating: bias[2])
        let b3 = V(repeating: bias[3])
        var a00 = b0, a01 = b0, a10 = b1, a11 = b1, a20 = b2, a21 = b2, a30 = b3, a31 = b3
        for r in 0..<rowCount {
            let base = rowBases[r]
            var e = segments[2 &* r]
            let end = segments[2 &* r &+ 1]
            while e < end {
                let x = base + Int(offsets[e]) &* 4
                let x0 = x.loadUnaligned(as: V.self)
                let x1 = x.loadUnaligned(fromByteOffset: 64, as: V.self)
                let w = weights + 4 &* e
                let w0 = V(repeating: w[0])
                a00 = a00.addingProduct(x0, w0); a01 = a01.addingProduct(x1, w0)
                let w1 = V(repeating: w[1])
                a10 = a10.addingProduct(x0, w1); a11 = a11.addingProduct(x1, w1)
                let w2 = V(repeating: w[2])
                a20 = a20.addingProduct(x0, w2); a21 = a21.addingProduct(x1, w2)
                let w3 = V(repeating: w[3])
                a30 = a30.addingProduct(x0, w3); a31 = a31.addingProduct(x1, w3)
                e &+= 1
            }
        }
        let lo = V(repeating: bounds[0]), hi = V(repeating: bounds[1])
        var u = UnsafeMutableRawPointer(tile)
        u.storeBytes(of: clamp(a00, lo, hi), as: V.self)
        u.storeBytes(of: clamp(a01, lo, hi), toByteOffset: 64, as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a10, lo, hi), as: V.self)
        u.storeBytes(of: clamp(a11, lo, hi), toByteOffset: 64, as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a20, lo, hi), as: V.self)
        u.storeBytes(of: clamp(a21, lo, hi), toByteOffset: 64, as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a30, lo, hi), as: V.self)
        u.storeBytes(of: clamp(a31, lo, hi), toByteOffset: 64, as: V.self)
    }

    @inline(never)
    static func g4p1(_ rowBases: UnsafePointer<UnsafeRawPointer>, _ rowCount: Int, _ segments: UnsafePointer<Int>,
                     _ offsets: UnsafePointer<Int32>, _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                     _ tile: UnsafeMutablePointer<Float>, _ ldt: Int, _ bounds: UnsafePointer<Float>) {
        let b0 = V(repeating: bias[0])
        let b1 = V(repeating: bias[1])
        let b2 = V(repeating: bias[2])
        let b3 = V(repeating: bias[3])
        var a00 = b0, a10 = b1, a20 = b2, a30 = b3
        for r in 0..<rowCount {
            let base = rowBases[r]
            var e = segments[2 &* r]
            let end = segments[2 &* r &+ 1]
            while e < end {
                let x = base + Int(offsets[e]) &* 4
                let x0 = x.loadUnaligned(as: V.self)
                let w = weights + 4 &* e
                let w0 = V(repeating: w[0])
                a00 = a00.addingProduct(x0, w0)
                let w1 = V(repeating: w[1])
                a10 = a10.addingProduct(x0, w1)
                let w2 = V(repeating: w[2])
                a20 = a20.addingProduct(x0, w2)
                let w3 = V(repeating: w[3])
                a30 = a30.addingProduct(x0, w3)
                e &+= 1
            }
        }
        let lo = V(repeating: bounds[0]), hi = V(repeating: bounds[1])
        var u = UnsafeMutableRawPointer(tile)
        u.storeBytes(of: clamp(a00, lo, hi), as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a10, lo, hi), as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a20, lo, hi), as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a30, lo, hi), as: V.self)
    }

    @inline(never)
    static func g8p1(_ rowBases: UnsafePointer<UnsafeRawPointer>, _ rowCount: Int, _ segments: UnsafePointer<Int>,
                     _ offsets: UnsafePointer<Int32>, _ weights: UnsafePointer<Float>, _ bias: UnsafePointer<Float>,
                     _ tile: UnsafeMutablePointer<Float>, _ ldt: Int, _ bounds: UnsafePointer<Float>) {
        let b0 = V(repeating: bias[0])
        let b1 = V(repeating: bias[1])
        let b2 = V(repeating: bias[2])
        let b3 = V(repeating: bias[3])
        let b4 = V(repeating: bias[4])
        let b5 = V(repeating: bias[5])
        let b6 = V(repeating: bias[6])
        let b7 = V(repeating: bias[7])
        var a00 = b0, a10 = b1, a20 = b2, a30 = b3, a40 = b4, a50 = b5, a60 = b6, a70 = b7
        for r in 0..<rowCount {
            let base = rowBases[r]
            var e = segments[2 &* r]
            let end = segments[2 &* r &+ 1]
            while e < end {
                let x = base + Int(offsets[e]) &* 4
                let x0 = x.loadUnaligned(as: V.self)
                let w = weights + 8 &* e
                let w0 = V(repeating: w[0])
                a00 = a00.addingProduct(x0, w0)
                let w1 = V(repeating: w[1])
                a10 = a10.addingProduct(x0, w1)
                let w2 = V(repeating: w[2])
                a20 = a20.addingProduct(x0, w2)
                let w3 = V(repeating: w[3])
                a30 = a30.addingProduct(x0, w3)
                let w4 = V(repeating: w[4])
                a40 = a40.addingProduct(x0, w4)
                let w5 = V(repeating: w[5])
                a50 = a50.addingProduct(x0, w5)
                let w6 = V(repeating: w[6])
                a60 = a60.addingProduct(x0, w6)
                let w7 = V(repeating: w[7])
                a70 = a70.addingProduct(x0, w7)
                e &+= 1
            }
        }
        let lo = V(repeating: bounds[0]), hi = V(repeating: bounds[1])
        var u = UnsafeMutableRawPointer(tile)
        u.storeBytes(of: clamp(a00, lo, hi), as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a10, lo, hi), as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a20, lo, hi), as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a30, lo, hi), as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a40, lo, hi), as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a50, lo, hi), as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a60, lo, hi), as: V.self)
        u += ldt &* 4
        u.storeBytes(of: clamp(a70, lo, hi), as: V.self)
    }
}
