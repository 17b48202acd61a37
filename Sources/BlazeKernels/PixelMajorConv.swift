import BlazeKernelsAVX512

// MARK: - One arithmetic for every convolution path
//
// Every fast convolution path in this module — the packed GEMM tiles (`GEMMTile6x16`, `GEMMTile8x32`)
// and the pixel-major kernels below (`PixelTile8`, `PixelTile16`) — computes an output element as
//
//     acc = bias[o]
//     for k in ascending (ky, kx, c) order:  acc = fma(x[k], w[o, k], acc)     // one rounding each
//     out = clamp(acc)
//
// They differ only in which terms they leave out: the GEMM drops depth entries that are zero for a
// whole panel, the pixel-major kernels drop entries zero for their output group (for the sparse
// kernel, every zero weight), and taps in the padding are either read as +0 (im2col, planar rows)
// or skipped (kernel rows outside the image). Leaving out a term whose product is an exact zero
// does not change the result, so all paths agree bit for bit, for these reasons:
//
// - With finite `x` and `w = ±0` (or `x = +0` from padding and finite `w`), the product is an
//   exact ±0 and `fma(x, w, acc)` is `acc + (±0)` rounded once, which is `acc` itself for every
//   non-zero `acc`.
// - `acc = +0`: `+0 + (±0)` is `+0`. Only `acc = −0` can change: `−0 + (+0) = +0`. The accumulator
//   is −0 only when the bias is −0 and every term so far was a zero product or skipped, or when a
//   sum underflowed to −0 (a negative result below 2⁻¹⁵⁰ in magnitude). So skipping may turn an
//   output of −0 into +0 or back, and nothing else; every op after a convolution maps ±0 to equal
//   values (products, sums, clamps, logistic), so such a difference stays a sign of zero and
//   compares equal (`==`). No bias in the seven Blaze models is −0.
// - Non-finite inputs are outside the contract: `inf · 0` is NaN in a path that multiplies and
//   absent in one that skips (XNNPACK's sparse kernels behave the same way).
//
// The GEMM's panel width (16 or 32) therefore does not matter, nor whether an entry is dropped,
// nor how pixels are split across threads: each element's sequence is fixed by its weights.

/// The drivers shared by the pixel-major kernels: planar input, tile calls, output back to NHWC.
enum PixelMajorConv {
    /// 1×1 over flat chunks of pixels: each chunk's input `[B, C]` transposed to `[C, B]`, one tile
    /// call per group and block of it, the `[N, B]` results transposed back into the NHWC output.
    static func pointwise(input: UnsafePointer<Float>, weights w: PixelConvWeights, output: UnsafeMutablePointer<Float>,
                          pixels: Range<Int>, groups: Range<Int>? = nil, clamp: ClampBounds, scratch: UnsafeMutablePointer<Float>) {
        let c = w.inChannels, n = w.outputs, block = w.blockPixels, chunk = w.paddedWidth
        let groups = groups ?? 0..<w.groupCount
        let firstOutput = groups.lowerBound * w.groupWidth, endOutput = min(n, groups.upperBound * w.groupWidth)
        guard firstOutput < endOutput else { return }
        let planar = scratch, tile = scratch + c * chunk
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 2) { bounds in
            bounds[0] = clamp.min
            bounds[1] = clamp.max
            withUnsafeTemporaryAllocation(of: UnsafeRawPointer.self, capacity: 1) { bases in
                var p0 = pixels.lowerBound
                while p0 < pixels.upperBound {
                    let count = min(chunk, pixels.upperBound - p0)
                    transpose(input + p0 * c, lds: c, rows: count, columns: c, into: planar, ldd: chunk)
                    let blocks = (count + block - 1) / block
                    if count < blocks * block {
                        for ch in 0..<c { (planar + ch * chunk + count).update(repeating: 0, count: blocks * block - count) }
                    }
                    for k in 0..<blocks {
                        bases[0] = UnsafeRawPointer(planar + k * block)
                        for g in groups {
                            w.runTile(group: g, rows: 0..<1, bases: UnsafePointer(bases.baseAddress!),
                                      tile: tile + g * w.groupWidth * chunk + k * block, ldt: chunk,
                                      bounds: UnsafePointer(bounds.baseAddress!))
                        }
                    }
                    transpose(tile + firstOutput * chunk, lds: chunk, rows: endOutput - firstOutput, columns: count,
                              into: output + p0 * n + firstOutput, ldd: n)
                    p0 += count
                }
            }
        }
    }

    /// k×k (or strided, padded) over output rows: the input rows a window needs are transposed once
    /// each into a ring of planar rows `[C, stride, W']` (columns de-interleaved by phase, padding as
    /// zeros), then each block of `B` pixels of an output row is one tile call per group.
    static func spatial(input: UnsafePointer<Float>, weights w: PixelConvWeights, output: UnsafeMutablePointer<Float>,
                        rows: Range<Int>, clamp: ClampBounds, scratch: UnsafeMutablePointer<Float>) {
        let win = w.window, c = w.inChannels, n = w.outputs, block = w.blockPixels
        let kh = win.kernelHeight, ow = win.outputWidth, wp = w.rowStride
        let ringRows = (kh - 1) * win.dilationHeight + 1
        let rowFloats = c * w.phases * wp
        let ring = scratch, tile = scratch + ringRows * rowFloats
        // Planar columns that lanes of real output pixels read: up to the last pixel's last tap.
        let used = min(wp, ow + (win.kernelWidth - 1) * win.dilationWidth / w.phases)
        withUnsafeTemporaryAllocation(of: Int.self, capacity: ringRows + 2 * kh) { ints in
            let slotRow = ints.baseAddress!
            slotRow.initialize(repeating: -1, count: ringRows)
            withUnsafeTemporaryAllocation(of: UnsafeRawPointer.self, capacity: 2 * kh) { ptrs in
                let rowBase = ptrs.baseAddress!, bases = ptrs.baseAddress! + kh
                withUnsafeTemporaryAllocation(of: Float.self, capacity: 2) { bounds in
                    bounds[0] = clamp.min
                    bounds[1] = clamp.max
                    for y in rows {
                        let kRows = win.kernelRows(forOutputRow: y)
                        for ky in kRows {
                            let iy = y * win.strideHeight - win.padTop + ky * win.dilationHeight
                            let slot = iy % ringRows
                            if slotRow[slot] != iy {
                                planarRow(input + iy * win.inputWidth * c, window: win, channels: c, into: ring + slot * rowFloats,
                                          phases: w.phases, stride: wp, used: used)
                                slotRow[slot] = iy
                            }
                            rowBase[ky] = UnsafeRawPointer(ring + slot * rowFloats)
                        }
                        var x0 = 0
                        while x0 < ow {
                            for (i, ky) in kRows.enumerated() { bases[i] = rowBase[ky] + x0 * 4 }
                            for g in 0..<w.groupCount {
                                w.runTile(group: g, rows: kRows, bases: UnsafePointer(bases),
                                          tile: tile + g * w.groupWidth * w.paddedWidth + x0, ldt: w.paddedWidth,
                                          bounds: UnsafePointer(bounds.baseAddress!))
                            }
                            x0 += block
                        }
                        transpose(tile, lds: w.paddedWidth, rows: n, columns: ow, into: output + y * ow * n, ldd: n)
                    }
                }
            }
        }
    }

    /// Input row `src` (`[W, C]`) as planar rows: `dst[(c·phases + ph)·stride + j] = src[(j·phases + ph − padLeft)·C + c]`,
    /// zero where that column is outside the row, for `j < used`. Columns from `used` on are read
    /// only by the lanes past the row's last output pixel, whose results are dropped; they keep
    /// whatever they held (writing them cost more than the whole convolution of a 1-pixel head).
    static func planarRow(_ src: UnsafePointer<Float>, window win: SpatialWindow, channels c: Int,
                          into dst: UnsafeMutablePointer<Float>, phases: Int, stride: Int, used: Int) {
        let w = win.inputWidth, pad = win.padLeft
        if phases == 1 {
            let first = min(pad, used), last = min(pad + w, used)
            if first > 0 || last < used {
                for ch in 0..<c {
                    let d = dst + ch * stride
                    d.update(repeating: 0, count: first)
                    (d + last).update(repeating: 0, count: used - last)
                }
            }
            if last > first { transpose(src, lds: c, rows: last - first, columns: c, into: dst + first, ldd: stride) }
            return
        }
        // Phase `ph` of channel `ch` is column `ch` of the `[W/phases, phases·C]` view of the row from pixel
        // `ph − padLeft` on: one transpose per phase, whose row stride `phases·stride` puts channel `ch` at
        // planar row `ch·phases + ph`. Columns `j` whose pixel `j·phases + ph − padLeft` is outside the row are zeros.
        for ph in 0..<phases {
            let first = min(used, max(0, (pad - ph + phases - 1) / phases))
            let beyond = w - 1 + pad - ph
            let last = max(first, min(used, beyond < 0 ? 0 : beyond / phases + 1))
            if first > 0 || last < used {
                for ch in 0..<c {
                    let d = dst + (ch * phases + ph) * stride
                    d.update(repeating: 0, count: first)
                    (d + last).update(repeating: 0, count: used - last)
                }
            }
            if last > first {
                transpose(src + (first * phases + ph - pad) * c, lds: phases * c, rows: last - first, columns: c,
                          into: dst + ph * stride + first, ldd: phases * stride)
            }
        }
    }

    /// `dst[j·ldd + i] = src[i·lds + j]` for `i < rows`, `j < columns`, in 8 × 8 register blocks.
    static func transpose(_ src: UnsafePointer<Float>, lds: Int, rows: Int, columns: Int,
                          into dst: UnsafeMutablePointer<Float>, ldd: Int) {
        if rows == 1, ldd == 1 { dst.update(from: src, count: columns); return }
        var i0 = 0
        while i0 &+ 8 <= rows {
            var j0 = 0
            while j0 &+ 8 <= columns {
                transpose8x8(src + (i0 &* lds &+ j0), lds: lds, into: dst + (j0 &* ldd &+ i0), ldd: ldd)
                j0 &+= 8
            }
            for j in j0..<columns { for i in i0..<(i0 &+ 8) { dst[j &* ldd &+ i] = src[i &* lds &+ j] } }
            i0 &+= 8
        }
        for i in i0..<rows { for j in 0..<columns { dst[j &* ldd &+ i] = src[i &* lds &+ j] } }
    }

    /// One 8 × 8 block: two rounds of unzipping row pairs within each 128-bit half (one `vshufps`
    /// each) transpose the 4 × 4 quarters; recombining halves (`vperm2f128`) swaps the off-diagonal
    /// quarters. 28 shuffles where unzipping whole vectors takes 48.
    @inline(__always)
    static func transpose8x8(_ src: UnsafePointer<Float>, lds: Int, into dst: UnsafeMutablePointer<Float>, ldd: Int) {
        typealias V = SIMD8<Float>
        @inline(__always) func laneUnzip(_ a: V, _ b: V) -> (V, V) {
            let lo = V(lowHalf: a.lowHalf, highHalf: b.lowHalf), hi = V(lowHalf: a.highHalf, highHalf: b.highHalf)
            return (V(lowHalf: lo.evenHalf, highHalf: hi.evenHalf), V(lowHalf: lo.oddHalf, highHalf: hi.oddHalf))
        }
        let s = UnsafeRawPointer(src), step = lds &* 4
        var v0 = s.loadUnaligned(as: V.self), v1 = s.loadUnaligned(fromByteOffset: step, as: V.self)
        var v2 = s.loadUnaligned(fromByteOffset: 2 &* step, as: V.self), v3 = s.loadUnaligned(fromByteOffset: 3 &* step, as: V.self)
        var v4 = s.loadUnaligned(fromByteOffset: 4 &* step, as: V.self), v5 = s.loadUnaligned(fromByteOffset: 5 &* step, as: V.self)
        var v6 = s.loadUnaligned(fromByteOffset: 6 &* step, as: V.self), v7 = s.loadUnaligned(fromByteOffset: 7 &* step, as: V.self)
        for _ in 0..<2 {
            let (a0, b0) = laneUnzip(v0, v1), (a1, b1) = laneUnzip(v2, v3), (a2, b2) = laneUnzip(v4, v5), (a3, b3) = laneUnzip(v6, v7)
            v0 = a0; v1 = a1; v2 = b0; v3 = b1; v4 = a2; v5 = a3; v6 = b2; v7 = b3
        }
        let d = UnsafeMutableRawPointer(dst), t = ldd &* 4
        d.storeBytes(of: V(lowHalf: v0.lowHalf, highHalf: v4.lowHalf), as: V.self)
        d.storeBytes(of: V(lowHalf: v1.lowHalf, highHalf: v5.lowHalf), toByteOffset: t, as: V.self)
        d.storeBytes(of: V(lowHalf: v2.lowHalf, highHalf: v6.lowHalf), toByteOffset: 2 &* t, as: V.self)
        d.storeBytes(of: V(lowHalf: v3.lowHalf, highHalf: v7.lowHalf), toByteOffset: 3 &* t, as: V.self)
        d.storeBytes(of: V(lowHalf: v0.highHalf, highHalf: v4.highHalf), toByteOffset: 4 &* t, as: V.self)
        d.storeBytes(of: V(lowHalf: v1.highHalf, highHalf: v5.highHalf), toByteOffset: 5 &* t, as: V.self)
        d.storeBytes(of: V(lowHalf: v2.highHalf, highHalf: v6.highHalf), toByteOffset: 6 &* t, as: V.self)
        d.storeBytes(of: V(lowHalf: v3.highHalf, highHalf: v7.highHalf), toByteOffset: 7 &* t, as: V.self)
    }
}
