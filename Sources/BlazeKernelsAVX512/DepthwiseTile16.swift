/// The AVX-512 paths of the depthwise convolution, sixteen channels per vector: the interior run of
/// one output row (every tap in bounds, output pixels eight at a time) and the border pixel (only
/// the in-bounds taps, four blocks of sixteen channels at a time). The same arithmetic as the
/// 8-channel paths in `BlazeKernels.DepthwiseConv2DKernel`/`DepthwiseRun8` — bias, then one fused
/// multiply-add per tap in kernel order (row by row, left to right), then the clamp — so both give
/// identical bits per lane. The interior run is `DepthwiseRun8`'s code on 16-channel vectors (3- and
/// 5-wide kernels at strides 1 and 2 walk input columns, each loaded once for every pixel and tap
/// that reads it; everything else walks taps); keep the two in step.
public enum DepthwiseTile16 {
    typealias V = SIMD16<Float>

    /// Geometry in bytes: `xStep` between successive output pixels' first taps, `tapStep` between
    /// taps of a kernel row, `rowStep` between kernel rows; `weightTap`/`weightRow` likewise in the
    /// `[KH, KW, C]` weights; `outStep` between output pixels. `input` points at the first tap of
    /// kernel row 0 for the first pixel, `weights` at kernel row 0, tap 0, both at channel 0;
    /// `channelBlocks` blocks of 16 channels are computed. `pixels` is at least 4.
    public static func run(input: UnsafeRawPointer, weights: UnsafeRawPointer, bias: UnsafeRawPointer,
                           output: UnsafeMutableRawPointer, lo: Float, hi: Float, channelBlocks: Int, pixels: Int,
                           kernelRows: Range<Int>, kernelWidth: Int, strideWidth: Int, dilationWidth: Int,
                           xStep: Int, tapStep: Int, rowStep: Int, weightTap: Int, weightRow: Int, outStep: Int) {
        let r = Run(input: input, weights: weights, bias: bias, output: output, channelBlocks: channelBlocks,
                    lo: V(repeating: lo), hi: V(repeating: hi), kernelRows: kernelRows, kernelWidth: kernelWidth,
                    pixelStep: xStep, tapStep: tapStep, rowStep: rowStep, weightTap: weightTap, weightRow: weightRow,
                    outStep: outStep)
        switch (dilationWidth == 1 ? kernelWidth : 0, strideWidth) {
        case (3, 1): r.schedule(pixels, r.k3s1w8, r.k3s1w4)
        case (5, 1): r.schedule(pixels, r.k5s1w8, r.k5s1w4)
        case (3, 2): r.schedule(pixels, r.k3s2w8, r.k3s2w4)
        case (5, 2): r.schedule(pixels, r.k5s2w8, r.k5s2w4)
        default: r.schedule(pixels, r.genericw8, r.genericw4)
        }
    }

    /// One output pixel over channels `0..<channels` (a multiple of 16) and the in-bounds taps
    /// `kernelRows × kernelColumns`. Tap (ky, kx) of channel 0 is at byte `inputOffset + ky·rowStep +
    /// kx·tapStep` of `input` and `ky·weightRow + kx·weightTap` of `weights`.
    public static func pixel(input: UnsafeRawPointer, inputOffset: Int, weights: UnsafeRawPointer, bias: UnsafeRawPointer,
                             output: UnsafeMutableRawPointer, lo: Float, hi: Float, channels: Int,
                             kernelRows: Range<Int>, kernelColumns: Range<Int>,
                             rowStep: Int, tapStep: Int, weightRow: Int, weightTap: Int) {
        let lo = V(repeating: lo), hi = V(repeating: hi)
        @inline(__always) func load(_ p: UnsafeRawPointer, _ offset: Int) -> V { p.loadUnaligned(fromByteOffset: offset, as: V.self) }
        var cb = 0
        while cb + 64 <= channels {
            let b = bias + cb * 4
            var a0 = load(b, 0), a1 = load(b, 64), a2 = load(b, 128), a3 = load(b, 192)
            for ky in kernelRows {
                for kx in kernelColumns {
                    let ip = input + (inputOffset + ky * rowStep + kx * tapStep + cb * 4)
                    let wp = weights + (ky * weightRow + kx * weightTap + cb * 4)
                    a0 = a0.addingProduct(load(ip, 0), load(wp, 0))
                    a1 = a1.addingProduct(load(ip, 64), load(wp, 64))
                    a2 = a2.addingProduct(load(ip, 128), load(wp, 128))
                    a3 = a3.addingProduct(load(ip, 192), load(wp, 192))
                }
            }
            output.storeBytes(of: clamp(a0, lo, hi), toByteOffset: cb * 4, as: V.self)
            output.storeBytes(of: clamp(a1, lo, hi), toByteOffset: cb * 4 + 64, as: V.self)
            output.storeBytes(of: clamp(a2, lo, hi), toByteOffset: cb * 4 + 128, as: V.self)
            output.storeBytes(of: clamp(a3, lo, hi), toByteOffset: cb * 4 + 192, as: V.self)
            cb += 64
        }
        while cb + 16 <= channels {
            var a0 = load(bias, cb * 4)
            for ky in kernelRows {
                for kx in kernelColumns {
                    a0 = a0.addingProduct(load(input, inputOffset + ky * rowStep + kx * tapStep + cb * 4),
                                          load(weights, ky * weightRow + kx * weightTap + cb * 4))
                }
            }
            output.storeBytes(of: clamp(a0, lo, hi), toByteOffset: cb * 4, as: V.self)
            cb += 16
        }
    }

    /// `v` clamped to `lo…hi` lane by lane; NaN stays NaN (compare-and-replace, as the 8-channel path).
    @inline(__always)
    static func clamp(_ v: V, _ lo: V, _ hi: V) -> V {
        let x = v.replacing(with: lo, where: v .< lo)
        return x.replacing(with: hi, where: x .> hi)
    }

    /// The interior run; see `BlazeKernels.DepthwiseRun8`, whose structure this mirrors lane for lane.
    struct Run {
        let input: UnsafeRawPointer, weights: UnsafeRawPointer, bias: UnsafeRawPointer, output: UnsafeMutableRawPointer
        let channelBlocks: Int
        let lo: V, hi: V
        let kernelRows: Range<Int>
        let kernelWidth: Int
        let pixelStep: Int, tapStep: Int, rowStep: Int, weightTap: Int, weightRow: Int, outStep: Int

        /// Blocks of eight pixels, then one block of eight or four ending at the last pixel.
        @inline(__always)
        func schedule(_ n: Int, _ eight: (_ first: Int, _ count: Int) -> Void, _ four: (_ first: Int, _ count: Int) -> Void) {
            if n >= 8 {
                eight(0, n / 8)
                let rest = n % 8
                if rest > 4 { eight(n - 8, 1) } else if rest > 0 { four(n - 4, 1) }
            } else if n >= 4 {
                four(0, 1)
                if n > 4 { four(n - 4, 1) }
            } else {
                preconditionFailure("DepthwiseTile16.run: expected at least 4 pixels, found \(n)")
            }
        }

        @inline(never) func k3s1w8(_ first: Int, _ count: Int) { blocks(8, first, count, kw: 3, s: 1) }
        @inline(never) func k3s1w4(_ first: Int, _ count: Int) { blocks(4, first, count, kw: 3, s: 1) }
        @inline(never) func k5s1w8(_ first: Int, _ count: Int) { blocks(8, first, count, kw: 5, s: 1) }
        @inline(never) func k5s1w4(_ first: Int, _ count: Int) { blocks(4, first, count, kw: 5, s: 1) }
        @inline(never) func k3s2w8(_ first: Int, _ count: Int) { blocks(8, first, count, kw: 3, s: 2) }
        @inline(never) func k3s2w4(_ first: Int, _ count: Int) { blocks(4, first, count, kw: 3, s: 2) }
        @inline(never) func k5s2w8(_ first: Int, _ count: Int) { blocks(8, first, count, kw: 5, s: 2) }
        @inline(never) func k5s2w4(_ first: Int, _ count: Int) { blocks(4, first, count, kw: 5, s: 2) }
        @inline(never) func genericw8(_ first: Int, _ count: Int) { blocks(8, first, count, kw: 0, s: 0) }
        @inline(never) func genericw4(_ first: Int, _ count: Int) { blocks(4, first, count, kw: 0, s: 0) }

        @inline(__always)
        func load(_ p: UnsafeRawPointer, _ offset: Int) -> V { p.loadUnaligned(fromByteOffset: offset, as: V.self) }

        @inline(__always)
        func blocks(_ width: Int, _ first: Int, _ count: Int, kw: Int, s: Int) {
            var channelOffset = 0
            for _ in 0..<channelBlocks {
                let b = load(bias, channelOffset)
                var x = first
                for _ in 0..<count {
                    var acc = InlineArray<8, V>(repeating: b)
                    var ky = kernelRows.lowerBound
                    var rp = input + (x &* pixelStep &+ ky &* rowStep &+ channelOffset)
                    var wp = weights + (ky &* weightRow &+ channelOffset)
                    while ky < kernelRows.upperBound {
                        if s == 0 { tapWalk(&acc, width, rp, wp, kw: kernelWidth) } else { columnWalk(&acc, width, rp, wp, kw: kw, s: s) }
                        rp += rowStep
                        wp += weightRow
                        ky &+= 1
                    }
                    let op = output + (x &* outStep &+ channelOffset)
                    for p in 0..<width { op.storeBytes(of: clamp(acc[p], lo, hi), toByteOffset: p &* outStep, as: V.self) }
                    x &+= width
                }
                channelOffset &+= 64
            }
        }

        /// One kernel row input column by input column (`tapStep` is the column step; stride `s`):
        /// column `j` feeds pixel `(j − kx)/s` with tap `kx`, so each pixel takes its taps left to right.
        @inline(__always)
        func columnWalk(_ acc: inout InlineArray<8, V>, _ width: Int, _ rp: UnsafeRawPointer, _ wp: UnsafeRawPointer, kw: Int, s: Int) {
            let w: InlineArray<5, V> = kw == 3
                ? [load(wp, 0), load(wp, weightTap), load(wp, 2 &* weightTap), V(), V()]
                : [load(wp, 0), load(wp, weightTap), load(wp, 2 &* weightTap), load(wp, 3 &* weightTap), load(wp, 4 &* weightTap)]
            let columns = s &* (width &- 1) &+ kw   // at most 19
            column(&acc, width, rp, 0, w, kw, s)
            column(&acc, width, rp, 1, w, kw, s)
            column(&acc, width, rp, 2, w, kw, s)
            column(&acc, width, rp, 3, w, kw, s)
            column(&acc, width, rp, 4, w, kw, s)
            column(&acc, width, rp, 5, w, kw, s)
            if columns > 6 { column(&acc, width, rp, 6, w, kw, s) }
            if columns > 7 { column(&acc, width, rp, 7, w, kw, s) }
            if columns > 8 { column(&acc, width, rp, 8, w, kw, s) }
            if columns > 9 { column(&acc, width, rp, 9, w, kw, s) }
            if columns > 10 { column(&acc, width, rp, 10, w, kw, s) }
            if columns > 11 { column(&acc, width, rp, 11, w, kw, s) }
            if columns > 12 { column(&acc, width, rp, 12, w, kw, s) }
            if columns > 13 { column(&acc, width, rp, 13, w, kw, s) }
            if columns > 14 { column(&acc, width, rp, 14, w, kw, s) }
            if columns > 15 { column(&acc, width, rp, 15, w, kw, s) }
            if columns > 16 { column(&acc, width, rp, 16, w, kw, s) }
            if columns > 17 { column(&acc, width, rp, 17, w, kw, s) }
            if columns > 18 { column(&acc, width, rp, 18, w, kw, s) }
        }

        @inline(__always)
        func column(_ acc: inout InlineArray<8, V>, _ width: Int, _ rp: UnsafeRawPointer, _ j: Int,
                    _ w: InlineArray<5, V>, _ kw: Int, _ s: Int) {
            let v = load(rp, j &* tapStep)
            for kx in 0..<kw {
                let t = j &- kx
                if t >= 0 && t % s == 0 && t / s < width { acc[t / s] = acc[t / s].addingProduct(v, w[kx]) }
            }
        }

        /// One kernel row tap by tap, with a run-time tap count (other widths, dilation, strides).
        @inline(__always)
        func tapWalk(_ acc: inout InlineArray<8, V>, _ width: Int, _ rp: UnsafeRawPointer, _ wp: UnsafeRawPointer, kw: Int) {
            var tp = rp
            var kx = 0
            while kx < kw {
                let wv = load(wp, kx &* weightTap)
                for p in 0..<width { acc[p] = acc[p].addingProduct(load(tp, p &* pixelStep), wv) }
                tp += tapStep
                kx &+= 1
            }
        }
    }
}
