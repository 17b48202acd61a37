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

/// A convolution's weights packed for the pixel-major kernels (``NarrowConv2DKernel``,
/// ``SparseConv1x1Kernel``): output channels in groups of `groupWidth`, and for each group and
/// kernel row the list of live entries `(kx, c)` — those where a weight of the group is non-zero —
/// with their weights and where each entry's values lie in the planar (channel-major) input rows
/// the kernels build.
public final class PixelConvWeights: @unchecked Sendable {
    /// How the output channels are grouped.
    public enum Layout: Sendable {
        /// All outputs (1…8) in one group, padded to 1, 2, 4 or 8; every live tap of every output in
        /// one list. For convolutions with few outputs.
        case narrow
        /// One group per output channel, each with the list of its own non-zero weights (a CSR
        /// matrix). For 1×1 convolutions whose weights are mostly zeros.
        case sparse
    }

    /// Output channels `N`.
    public let outputs: Int
    /// Input channels `C`.
    public let inChannels: Int
    /// The convolution's geometry; the weights are packed for it and only run on it.
    public let window: SpatialWindow
    /// Sixteen pixels per vector (AVX-512, `PixelTile16`) instead of eight (`PixelTile8`).
    public let wide: Bool
    /// Outputs computed together from one entry list (1, 2, 4 or 8; 1 for `.sparse`).
    public let groupWidth: Int
    /// Groups of outputs, each with its own entry lists.
    public let groupCount: Int
    /// Vectors of pixels per tile call.
    public let vectors: Int
    /// Live entries over `groupCount · KH·KW·C`.
    public let liveFraction: Double
    /// Floats of scratch one task needs (see ``NarrowConv2DKernel/run(input:weights:output:rows:clamp:scratch:)``).
    public let scratchFloats: Int
    /// Pixels per vector.
    public var lanes: Int { wide ? 16 : 8 }
    /// Output pixels per tile call.
    public var blockPixels: Int { lanes * vectors }
    /// Whether the kernel walks flat pixel blocks (1×1, stride 1, unpadded) instead of output rows.
    public var isPointwise: Bool { window.isPointwise }

    /// Floats between successive (channel, phase) rows of a planar input row (pointwise: of a block).
    let rowStride: Int
    /// Phases of a planar row: the horizontal stride (pointwise: 1).
    let phases: Int
    /// Output width rounded up to whole blocks (pointwise: one block).
    let paddedWidth: Int
    /// Pair `(g·KH + ky)`: the entries of group `g`, kernel row `ky`.
    let segments: UnsafeMutablePointer<Int>
    let offsets: UnsafeMutablePointer<Int32>
    let values: UnsafeMutablePointer<Float>
    /// `groupCount · groupWidth` floats, zero for padding outputs.
    let bias: UnsafeMutablePointer<Float>

    /// Packs OHWI `weights` (`[outputs, KH, KW, inChannels]`) and `bias` for `window`.
    /// `wide` needs a CPU with AVX-512 (``CPUFeatures/hasAVX512``); `.narrow` needs at most 8 outputs.
    public init(weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, outputs: Int, window: SpatialWindow,
                inChannels: Int, layout: Layout, wide: Bool) {
        precondition(outputs >= 1 && inChannels >= 1, "PixelConvWeights: outputs \(outputs), inChannels \(inChannels)")
        precondition(layout == .sparse || outputs <= 8, "PixelConvWeights: .narrow expected at most 8 outputs, found \(outputs)")
        precondition(!wide || CPUFeatures.hasAVX512, "PixelConvWeights: wide needs AVX-512")
        self.outputs = outputs
        self.inChannels = inChannels
        self.window = window
        self.wide = wide
        let lanes = wide ? 16 : 8
        // Vectors per call: eight accumulators (`G·P` = 8), but no more vectors than the row
        // (pointwise: all pixels) needs.
        let span = window.isPointwise ? window.outputHeight * window.outputWidth : window.outputWidth
        var needed = 1
        while needed < 8, needed * lanes < span { needed *= 2 }
        switch layout {
        case .narrow:
            groupWidth = outputs == 1 ? 1 : outputs == 2 ? 2 : outputs <= 4 ? 4 : 8
            groupCount = 1
            vectors = min(8 / groupWidth, needed)
        case .sparse:
            groupWidth = 1
            groupCount = outputs
            vectors = needed
        }
        let block = lanes * vectors
        let kh = window.kernelHeight, kw = window.kernelWidth, c = inChannels
        if window.isPointwise {
            // Pixels are transposed in chunks of several tile calls' worth, to spread the cost of the
            // calls and loops around the transposes: up to 64 pixels while a chunk's planar copy
            // stays within 16 KiB (of L1).
            phases = 1
            paddedWidth = max(block, min(64, 4096 / c) / block * block)
            rowStride = paddedWidth
            scratchFloats = c * paddedWidth + groupCount * groupWidth * paddedWidth
        } else {
            phases = window.strideWidth
            paddedWidth = (window.outputWidth + block - 1) / block * block
            rowStride = paddedWidth + (kw - 1) * window.dilationWidth / window.strideWidth
            let ringRows = (kh - 1) * window.dilationHeight + 1
            scratchFloats = ringRows * c * phases * rowStride + groupCount * groupWidth * paddedWidth
        }
        precondition(c * phases * rowStride < Int(Int32.max), "PixelConvWeights: planar row too large")

        let depth = kh * kw * c
        var offs: [Int32] = [], vals: [Float] = []
        segments = .allocate(capacity: 2 * groupCount * kh)
        for g in 0..<groupCount {
            let outs = (g * groupWidth)..<min(outputs, (g + 1) * groupWidth)
            for ky in 0..<kh {
                segments[2 * (g * kh + ky)] = offs.count
                for kx in 0..<kw {
                    let phase = kx * window.dilationWidth % phases, shift = kx * window.dilationWidth / phases
                    for ch in 0..<c {
                        let k = (ky * kw + kx) * c + ch
                        guard outs.contains(where: { weights[$0 * depth + k] != 0 }) else { continue }
                        offs.append(Int32((ch * phases + phase) * rowStride + shift))
                        for j in 0..<groupWidth { vals.append(outs.contains(g * groupWidth + j) ? weights[(g * groupWidth + j) * depth + k] : 0) }
                    }
                }
                segments[2 * (g * kh + ky) + 1] = offs.count
            }
        }
        liveFraction = Double(offs.count) / Double(groupCount * depth)
        offsets = .allocate(capacity: max(offs.count, 1))
        offsets.initialize(repeating: 0, count: max(offs.count, 1))
        offsets.update(from: offs, count: offs.count)
        values = .allocate(capacity: max(vals.count, 1))
        values.initialize(repeating: 0, count: max(vals.count, 1))
        values.update(from: vals, count: vals.count)
        self.bias = .allocate(capacity: groupCount * groupWidth)
        self.bias.initialize(repeating: 0, count: groupCount * groupWidth)
        self.bias.update(from: bias, count: outputs)
    }

    deinit {
        segments.deallocate()
        offsets.deallocate()
        values.deallocate()
        bias.deallocate()
    }

    /// One tile call: group `g`, kernel rows `rows` (bases at `bases[0..<rows.count]`), into `tile`.
    @inline(__always)
    func runTile(group g: Int, rows: Range<Int>, bases: UnsafePointer<UnsafeRawPointer>, tile: UnsafeMutablePointer<Float>,
                 ldt: Int, bounds: UnsafePointer<Float>) {
        let seg = UnsafePointer(segments + 2 * (g * window.kernelHeight + rows.lowerBound))
        let b = UnsafePointer(bias + g * groupWidth)
        if wide {
            PixelTile16.run(groupWidth: groupWidth, vectors: vectors, rowBases: bases, rowCount: rows.count, segments: seg,
                            offsets: offsets, weights: values, bias: b, tile: tile, ldt: ldt, bounds: bounds)
        } else {
            PixelTile8.run(groupWidth: groupWidth, vectors: vectors, rowBases: bases, rowCount: rows.count, segments: seg,
                           offsets: offsets, weights: values, bias: b, tile: tile, ldt: ldt, bounds: bounds)
        }
    }
}

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
        for ch in 0..<c {
            for ph in 0..<phases {
                let d = dst + (ch * phases + ph) * stride
                for j in 0..<used {
                    let ix = j * phases + ph - pad
                    d[j] = ix >= 0 && ix < w ? src[ix * c + ch] : 0
                }
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

/// Convolution with few output channels (1…8), vectorized over output pixels instead of channels:
/// eight (AVX2) or sixteen (AVX-512) neighbouring pixels of one output row per register, every tap
/// and input channel accumulated in registers by fused multiply-adds, so a 3×3, 8→1 head runs near
/// the vector peak where a GEMM would use one column of a 16- or 32-wide tile. The input rows are
/// transposed once each into planar form (see ``PixelConvWeights``); 1×1 convolutions go through
/// flat pixel blocks. Same arithmetic per element as the GEMM tiles (see the note atop this file),
/// so the results are bit-identical to theirs.
public enum NarrowConv2DKernel {
    /// Output rows `rows` (k×k) or pixels `rows` (pointwise; flattened `y·outW + x`).
    /// `scratch` holds `weights.scratchFloats` floats, private to the call.
    public static func run(input: UnsafePointer<Float>, weights: PixelConvWeights, output: UnsafeMutablePointer<Float>,
                           rows: Range<Int>, clamp: ClampBounds, scratch: UnsafeMutablePointer<Float>) {
        if weights.isPointwise {
            PixelMajorConv.pointwise(input: input, weights: weights, output: output, pixels: rows, clamp: clamp, scratch: scratch)
        } else {
            PixelMajorConv.spatial(input: input, weights: weights, output: output, rows: rows, clamp: clamp, scratch: scratch)
        }
    }

    /// The plain twin in the shared arithmetic: for each output element the bias, then one fused
    /// multiply-add per in-bounds tap in `(ky, kx, c)` order, then the clamp.
    public static func reference(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                 output: UnsafeMutablePointer<Float>, window: SpatialWindow,
                                 inChannels: Int, outChannels: Int, clamp: ClampBounds) {
        for y in 0..<window.outputHeight {
            for x in 0..<window.outputWidth {
                for o in 0..<outChannels {
                    var acc = bias[o]
                    for ky in 0..<window.kernelHeight {
                        let iy = y * window.strideHeight - window.padTop + ky * window.dilationHeight
                        guard iy >= 0, iy < window.inputHeight else { continue }
                        for kx in 0..<window.kernelWidth {
                            let ix = x * window.strideWidth - window.padLeft + kx * window.dilationWidth
                            guard ix >= 0, ix < window.inputWidth else { continue }
                            for i in 0..<inChannels {
                                let x: Float = input[(iy * window.inputWidth + ix) * inChannels + i]
                                let w: Float = weights[((o * window.kernelHeight + ky) * window.kernelWidth + kx) * inChannels + i]
                                acc = acc.addingProduct(x, w)
                            }
                        }
                    }
                    output[(y * window.outputWidth + x) * outChannels + o] = clamp.apply(acc)
                }
            }
        }
    }
}
