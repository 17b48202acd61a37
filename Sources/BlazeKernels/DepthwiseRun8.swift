/// The interior of one output row of a depthwise convolution for one block of eight channels, where
/// every tap is in bounds: output pixels are computed eight at a time (four for the last few), each
/// with its own `SIMD8<Float>` accumulator, so one weight load serves eight fused multiply-adds and
/// eight independent chains keep both FMA pipes busy.
///
/// Per output element the arithmetic is that of the plain loops: the accumulator starts at the bias,
/// takes one fused multiply-add per tap in kernel order (row by row, left to right), and is clamped.
/// Only the interleaving across pixels differs, which does not change any element's bits.
///
/// Specialized layouts (`kernelWidth` and `strideWidth` literals, so the tap loops unroll):
/// 3- and 5-wide kernels at strides 1 and 2 walk the taps of one kernel row input column by input
/// column; each input vector is loaded once and feeds every (pixel, tap) pair that reads it, with the
/// kernel row's weights held in registers (at stride 1 an 8-pixel block reads 10 or 12 input vectors
/// per kernel row instead of 24 or 40). Anything else (other widths, dilation, larger strides) walks
/// tap by tap with a run-time tap count, each weight load feeding every pixel of the block.
///
/// `DepthwiseTile16` in `BlazeKernelsAVX512` is the same code on 16-channel vectors; keep them in step.
struct DepthwiseRun8 {
    typealias V = SIMD8<Float>

    /// The specialized layouts, chosen once per call by ``layout(kernelWidth:strideWidth:dilationWidth:)``.
    enum Layout { case k3s1, k5s1, k3s2, k5s2, generic }

    /// Tap (0, 0) of the run's first output pixel, at the first channel block.
    let input: UnsafeRawPointer
    /// Tap (0, 0) of the `[KH, KW, C]` weights, and the bias, at the first channel block.
    let weights: UnsafeRawPointer, bias: UnsafeRawPointer
    /// The run's first output pixel, at the first channel block.
    let output: UnsafeMutableRawPointer
    /// Blocks of eight channels to compute, each 32 bytes after the previous.
    let channelBlocks: Int
    let lo: V, hi: V
    /// The kernel rows inside the input for this output row.
    let kernelRows: Range<Int>
    let kernelWidth: Int
    /// Bytes between successive output pixels' first taps (`strideWidth·C·4`).
    let pixelStep: Int
    /// Bytes between the taps of one kernel row (`dilationWidth·C·4`).
    let tapStep: Int
    /// Bytes between kernel rows in the input (`dilationHeight·inputWidth·C·4`).
    let rowStep: Int
    /// Bytes between taps and between kernel rows in the weights (`C·4`, `KW·C·4`).
    let weightTap: Int, weightRow: Int
    /// Bytes between output pixels (`C·4`).
    let outStep: Int

    static func layout(kernelWidth kw: Int, strideWidth sw: Int, dilationWidth dw: Int) -> Layout {
        guard dw == 1 else { return .generic }
        switch (kw, sw) {
        case (3, 1): return .k3s1
        case (5, 1): return .k5s1
        case (3, 2): return .k3s2
        case (5, 2): return .k5s2
        default: return .generic
        }
    }

    /// Computes `pixels` (at least 4) successive output pixels for every channel block: blocks of
    /// eight pixels, and for the last 1–7 pixels one more block of eight or four that ends at the last
    /// pixel (recomputing a few pixels with the same arithmetic, so they are rewritten with the same bits).
    func run(pixels n: Int, layout: Layout) {
        switch layout {
        case .k3s1: schedule(n, k3s1w8, k3s1w4)
        case .k5s1: schedule(n, k5s1w8, k5s1w4)
        case .k3s2: schedule(n, k3s2w8, k3s2w4)
        case .k5s2: schedule(n, k5s2w8, k5s2w4)
        case .generic: schedule(n, genericw8, genericw4)
        }
    }

    @inline(__always)
    private func schedule(_ n: Int, _ eight: (_ first: Int, _ count: Int) -> Void, _ four: (_ first: Int, _ count: Int) -> Void) {
        if n >= 8 {
            eight(0, n / 8)
            let rest = n % 8
            if rest > 4 { eight(n - 8, 1) } else if rest > 0 { four(n - 4, 1) }
        } else if n >= 4 {
            four(0, 1)
            if n > 4 { four(n - 4, 1) }
        } else {
            preconditionFailure("DepthwiseRun8: expected at least 4 pixels, found \(n)")
        }
    }

    // One function per layout and block width, so the tap loops unroll with literal bounds (Swift stops
    // inlining `blocks` into a function that already holds one copy of it).
    @inline(never) private func k3s1w8(_ first: Int, _ count: Int) { blocks(8, first, count, kw: 3, s: 1) }
    @inline(never) private func k3s1w4(_ first: Int, _ count: Int) { blocks(4, first, count, kw: 3, s: 1) }
    @inline(never) private func k5s1w8(_ first: Int, _ count: Int) { blocks(8, first, count, kw: 5, s: 1) }
    @inline(never) private func k5s1w4(_ first: Int, _ count: Int) { blocks(4, first, count, kw: 5, s: 1) }
    @inline(never) private func k3s2w8(_ first: Int, _ count: Int) { blocks(8, first, count, kw: 3, s: 2) }
    @inline(never) private func k3s2w4(_ first: Int, _ count: Int) { blocks(4, first, count, kw: 3, s: 2) }
    @inline(never) private func k5s2w8(_ first: Int, _ count: Int) { blocks(8, first, count, kw: 5, s: 2) }
    @inline(never) private func k5s2w4(_ first: Int, _ count: Int) { blocks(4, first, count, kw: 5, s: 2) }
    @inline(never) private func genericw8(_ first: Int, _ count: Int) { blocks(8, first, count, kw: 0, s: 0) }
    @inline(never) private func genericw4(_ first: Int, _ count: Int) { blocks(4, first, count, kw: 0, s: 0) }

    @inline(__always)
    private func load(_ p: UnsafeRawPointer, _ offset: Int) -> V { p.loadUnaligned(fromByteOffset: offset, as: V.self) }

    /// For every channel block, `count` blocks of `width` pixels from pixel `first`. `kw`/`s` are the
    /// literal kernel width and stride of a specialized layout, or 0 for the generic one.
    @inline(__always)
    private func blocks(_ width: Int, _ first: Int, _ count: Int, kw: Int, s: Int) {
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
                    if s != 0 { columnWalk(&acc, width, rp, wp, kw: kw, s: s) } else { tapWalk(&acc, width, rp, wp, kw: kernelWidth) }
                    rp += rowStep
                    wp += weightRow
                    ky &+= 1
                }
                let op = output + (x &* outStep &+ channelOffset)
                for p in 0..<width { op.storeBytes(of: clampLanes(acc[p], lo, hi), toByteOffset: p &* outStep, as: V.self) }
                x &+= width
            }
            channelOffset &+= 32
        }
    }

    /// One kernel row input column by input column (`tapStep` is the column step; stride `s`):
    /// column `j` feeds pixel `(j − kx)/s` with tap `kx`, so each pixel still takes its taps left to right.
    @inline(__always)
    private func columnWalk(_ acc: inout InlineArray<8, V>, _ width: Int, _ rp: UnsafeRawPointer, _ wp: UnsafeRawPointer, kw: Int, s: Int) {
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
    private func column(_ acc: inout InlineArray<8, V>, _ width: Int, _ rp: UnsafeRawPointer, _ j: Int,
                        _ w: InlineArray<5, V>, _ kw: Int, _ s: Int) {
        let v = load(rp, j &* tapStep)
        for kx in 0..<kw {
            let t = j &- kx
            if t >= 0 && t % s == 0 && t / s < width { acc[t / s] = mulAdd(acc[t / s], v, w[kx]) }
        }
    }

    /// One kernel row tap by tap, with a run-time tap count: each tap's weight is loaded once and
    /// feeds every pixel of the block.
    @inline(__always)
    private func tapWalk(_ acc: inout InlineArray<8, V>, _ width: Int, _ rp: UnsafeRawPointer, _ wp: UnsafeRawPointer, kw: Int) {
        var tp = rp
        var kx = 0
        while kx < kw {
            let wv = load(wp, kx &* weightTap)
            for p in 0..<width { acc[p] = mulAdd(acc[p], load(tp, p &* pixelStep), wv) }
            tp += tapStep
            kx &+= 1
        }
    }
}
