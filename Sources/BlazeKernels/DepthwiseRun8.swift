/// One output row of a depthwise convolution for a run of eight-channel blocks: output pixels are
/// computed eight at a time (the last 4–7 as one narrower block), each with its own `SIMD8<Float>`
/// accumulator, so one weight load serves eight fused multiply-adds and eight independent chains keep
/// both FMA pipes busy. Blocks inside the interior (every tap in bounds) run without checks; blocks that reach into
/// the padding check each input column once per kernel row and skip the columns outside the image.
///
/// Per output element the arithmetic is that of the plain loops: the accumulator starts at the bias,
/// takes one fused multiply-add per in-bounds tap in kernel order (row by row, left to right), and is
/// clamped. Only the interleaving across pixels differs, which does not change any element's bits.
///
/// Specialized layouts (`kernelWidth` and `strideWidth` literals, so the tap loops unroll):
/// 3- and 5-wide kernels at stride 1 walk the taps of one kernel row input column by input column;
/// each input vector is loaded once and feeds every (pixel, tap) pair that reads it, with the kernel
/// row's weights held in registers (an 8-pixel block reads 10 or 12 input vectors per kernel row
/// instead of 24 or 40). At stride 2 a column feeds at most two pixels, and the compiler then
/// schedules each pixel's taps back to back, one dependent chain after another; walking tap by tap
/// instead (each weight feeding the eight pixels, eight independent multiply-adds in a row) measured
/// 5–20 % faster there, so unchecked stride-2 blocks do that; with at least two channel blocks they
/// take two at a time for four pixels (`pairs(_:_:kw:)`), so each pixel's two loads per tap read 16
/// adjacent channels (one 64-byte line when C is a multiple of 16): another 5–20 % on the stride-2 layers
/// of the models (at stride 1 the same pairing measured no better). Blocks that reach into the padding walk
/// columns at both strides, checking each input column once per kernel row and skipping those
/// outside the image — skipping a column skips exactly its taps, so every pixel keeps its tap order.
/// Anything else (other widths, dilation, larger strides) walks tap by tap with a run-time tap count
/// and runs on interior pixels only.
///
/// `DepthwiseTile16` in `BlazeKernelsAVX512` is the same code on 16-channel vectors; keep them in step.
struct DepthwiseRun8 {
    typealias V = SIMD8<Float>

    /// The specialized layouts, chosen once per call by ``layout(kernelWidth:strideWidth:dilationWidth:)``.
    enum Layout { case k3s1, k5s1, k3s2, k5s2, generic }

    /// Tap (0, 0) of the row's output pixel 0 (input column `firstColumn`, which may lie in the
    /// padding), at the first channel block.
    var input: UnsafeRawPointer
    /// Tap (0, 0) of the `[KH, KW, C]` weights, and the bias, at the first channel block.
    var weights: UnsafeRawPointer, bias: UnsafeRawPointer
    /// The row's output pixel 0, at the first channel block.
    var output: UnsafeMutableRawPointer
    /// Blocks of eight channels to compute, each 32 bytes after the previous.
    var channelBlocks: Int
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
    /// Input column of output pixel 0's first tap (`−padLeft`), the input width and the horizontal
    /// stride, for the column checks.
    let firstColumn: Int, inputWidth: Int, strideWidth: Int
    /// The output pixels whose taps all lie inside the input.
    let interior: Range<Int>
    let layout: Layout

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

    /// Computes output pixels `a..<b` (at least 4; inside ``interior`` for the generic layout) for
    /// every channel block: blocks of eight pixels, the last 4–7 pixels as one block of their width,
    /// and a last 1–3 as a block of four ending at `b` (recomputing a few pixels with the same
    /// arithmetic, so they are rewritten with the same bits). Consecutive unchecked blocks of eight
    /// go in one call.
    func run(from a: Int, to b: Int) {
        precondition(b - a >= 4, "DepthwiseRun8: expected at least 4 pixels, found \(b - a)")
        var x = a
        while b - x >= 8 {
            var n = 1
            if !checks(x, 8) { while b - (x + 8 * n) >= 8, !checks(x + 8 * n, 8) { n += 1 } }
            call(8, x, n)
            x += 8 * n
        }
        let rest = b - x
        if rest >= 4 { call(rest, x, 1) } else if rest > 0 { call(4, b - 4, 1) }
    }

    @inline(__always)
    private func checks(_ x: Int, _ width: Int) -> Bool { x < interior.lowerBound || x + width > interior.upperBound }

    /// `count` blocks of `width` (4–8) pixels from pixel `first`, checked when the first block reaches
    /// into the padding (``run(from:to:)`` groups only unchecked blocks).
    private func call(_ width: Int, _ first: Int, _ count: Int) {
        let checked = checks(first, width)
        switch layout {
        case .k3s1: dispatch(K3S1.self, width, checked, first, count)
        case .k5s1: dispatch(K5S1.self, width, checked, first, count)
        case .k3s2 where width == 8 && !checked && channelBlocks >= 2: pairs(first, count, kw: 3)
        case .k5s2 where width == 8 && !checked && channelBlocks >= 2: pairs(first, count, kw: 5)
        case .k3s2: dispatch(K3S2.self, width, checked, first, count)
        case .k5s2: dispatch(K5S2.self, width, checked, first, count)
        case .generic:
            precondition(!checked, "DepthwiseRun8: the generic layout runs on interior pixels only")
            dispatch(AnyShape.self, width, false, first, count)
        }
    }

    @inline(__always)
    private func dispatch<S: DepthwiseShape>(_ shape: S.Type, _ width: Int, _ checked: Bool, _ first: Int, _ count: Int) {
        switch (width, checked) {
        case (8, false): blocks(S.self, Width8.self, Unchecked.self, first, count)
        case (8, true): blocks(S.self, Width8.self, Checked.self, first, count)
        case (7, false): blocks(S.self, Width7.self, Unchecked.self, first, count)
        case (7, true): blocks(S.self, Width7.self, Checked.self, first, count)
        case (6, false): blocks(S.self, Width6.self, Unchecked.self, first, count)
        case (6, true): blocks(S.self, Width6.self, Checked.self, first, count)
        case (5, false): blocks(S.self, Width5.self, Unchecked.self, first, count)
        case (5, true): blocks(S.self, Width5.self, Checked.self, first, count)
        case (4, false): blocks(S.self, Width4.self, Unchecked.self, first, count)
        case (4, true): blocks(S.self, Width4.self, Checked.self, first, count)
        default: preconditionFailure("DepthwiseRun8: block width expected 4...8, found \(width)")
        }
    }

    /// One specialization per layout, block width and checking (Swift specializes each combination
    /// into its own function, so the tap loops unroll with literal bounds). Keep `blocks(_:_:_:kw:s:checked:)`
    /// small: past a size limit Swift stops inlining it here and the loops run generic, about 6× slower.
    @inline(never)
    private func blocks<S: DepthwiseShape, W: DepthwiseBlockWidth, C: DepthwiseColumnChecks>(
        _ shape: S.Type, _ width: W.Type, _ checks: C.Type, _ first: Int, _ count: Int) {
        blocks(W.pixels, first, count, kw: S.kernelWidth, s: S.strideWidth, checked: C.enabled)
    }

    /// Unchecked stride-2 blocks of eight pixels with two channel blocks at a time: each half of four
    /// pixels runs both blocks (eight accumulators, each tap's two weight loads feeding eight
    /// multiply-adds), so every input access reads a whole 64-byte line of sixteen channels.
    private func pairs(_ first: Int, _ count: Int, kw: Int) {
        if kw == 3 { pairs3(first, count) } else { pairs5(first, count) }
        if channelBlocks % 2 == 1 {
            var last = self
            let offset = (channelBlocks - 1) * 32
            last.input += offset
            last.weights += offset
            last.bias += offset
            last.output += offset
            last.channelBlocks = 1
            if kw == 3 { last.dispatch(K3S2.self, 8, false, first, count) } else { last.dispatch(K5S2.self, 8, false, first, count) }
        }
    }
    @inline(never) private func pairs3(_ first: Int, _ count: Int) { pairBlocks(first, count, kw: 3) }
    @inline(never) private func pairs5(_ first: Int, _ count: Int) { pairBlocks(first, count, kw: 5) }

    @inline(__always)
    private func pairBlocks(_ first: Int, _ count: Int, kw: Int) {
        var channelOffset = 0
        for _ in 0..<(channelBlocks / 2) {
            let b0 = load(bias, channelOffset), b1 = load(bias, channelOffset &+ 32)
            var x = first
            for _ in 0..<(count &* 2) {
                var acc: InlineArray<8, V> = [b0, b0, b0, b0, b1, b1, b1, b1]
                var ky = kernelRows.lowerBound
                var rp = input + (x &* pixelStep &+ ky &* rowStep &+ channelOffset)
                var wp = weights + (ky &* weightRow &+ channelOffset)
                while ky < kernelRows.upperBound {
                    var tp = rp
                    for kx in 0..<kw {
                        let w0 = load(wp, kx &* weightTap), w1 = load(wp, kx &* weightTap &+ 32)
                        for p in 0..<4 {
                            acc[p] = mulAdd(acc[p], load(tp, p &* pixelStep), w0)
                            acc[p &+ 4] = mulAdd(acc[p &+ 4], load(tp, p &* pixelStep &+ 32), w1)
                        }
                        tp += tapStep
                    }
                    rp += rowStep
                    wp += weightRow
                    ky &+= 1
                }
                let op = output + (x &* outStep &+ channelOffset)
                for p in 0..<4 {
                    op.storeBytes(of: clampLanes(acc[p], lo, hi), toByteOffset: p &* outStep, as: V.self)
                    op.storeBytes(of: clampLanes(acc[p &+ 4], lo, hi), toByteOffset: p &* outStep &+ 32, as: V.self)
                }
                x &+= 4
            }
            channelOffset &+= 64
        }
    }

    @inline(__always)
    private func load(_ p: UnsafeRawPointer, _ offset: Int) -> V { p.loadUnaligned(fromByteOffset: offset, as: V.self) }

    /// For every channel block, `count` blocks of `width` pixels from pixel `first`. `kw`/`s` are the
    /// literal kernel width and stride of a specialized layout, or 0 for the generic one; `checked`
    /// skips input columns outside the image.
    @inline(__always)
    private func blocks(_ width: Int, _ first: Int, _ count: Int, kw: Int, s: Int, checked: Bool) {
        var channelOffset = 0
        for _ in 0..<channelBlocks {
            let b = load(bias, channelOffset)
            var x = first
            for _ in 0..<count {
                var acc = InlineArray<8, V>(repeating: b)
                var ky = kernelRows.lowerBound
                var rp = input + (x &* pixelStep &+ ky &* rowStep &+ channelOffset)
                var wp = weights + (ky &* weightRow &+ channelOffset)
                let column0 = firstColumn &+ x &* s
                while ky < kernelRows.upperBound {
                    if s == 0 {
                        tapWalk(&acc, width, rp, wp, kw: kernelWidth)
                    } else if s == 2 && !checked {
                        tapWalk(&acc, width, rp, wp, kw: kw)
                    } else {
                        columnWalk(&acc, width, rp, wp, kw: kw, s: s, checked: checked, column0: column0)
                    }
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
    /// column `j` feeds pixel `(j − kx)/s` with tap `kx`, so each pixel takes its taps left to right.
    /// With `checked`, columns outside `0..<inputWidth` (`column0` is column 0's index) are skipped.
    @inline(__always)
    private func columnWalk(_ acc: inout InlineArray<8, V>, _ width: Int, _ rp: UnsafeRawPointer, _ wp: UnsafeRawPointer,
                            kw: Int, s: Int, checked: Bool, column0: Int) {
        let w: InlineArray<5, V> = kw == 3
            ? [load(wp, 0), load(wp, weightTap), load(wp, 2 &* weightTap), V(), V()]
            : [load(wp, 0), load(wp, weightTap), load(wp, 2 &* weightTap), load(wp, 3 &* weightTap), load(wp, 4 &* weightTap)]
        let columns = s &* (width &- 1) &+ kw   // at most 19
        @inline(__always) func column(_ j: Int) {
            if checked && UInt(bitPattern: column0 &+ j) >= UInt(bitPattern: inputWidth) { return }
            let v = load(rp, j &* tapStep)
            for kx in 0..<kw {
                let t = j &- kx
                if t >= 0 && t % s == 0 && t / s < width { acc[t / s] = mulAdd(acc[t / s], v, w[kx]) }
            }
        }
        column(0); column(1); column(2); column(3); column(4); column(5)
        if columns > 6 { column(6) }
        if columns > 7 { column(7) }
        if columns > 8 { column(8) }
        if columns > 9 { column(9) }
        if columns > 10 { column(10) }
        if columns > 11 { column(11) }
        if columns > 12 { column(12) }
        if columns > 13 { column(13) }
        if columns > 14 { column(14) }
        if columns > 15 { column(15) }
        if columns > 16 { column(16) }
        if columns > 17 { column(17) }
        if columns > 18 { column(18) }
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

// Type tags that select the specializations of `DepthwiseRun8.blocks` (and `DepthwiseTile16.Run`).

/// A kernel width and horizontal stride known at compile time; 0 and 0 for the generic layout.
protocol DepthwiseShape { static var kernelWidth: Int { get }; static var strideWidth: Int { get } }
enum K3S1: DepthwiseShape { static var kernelWidth: Int { 3 }; static var strideWidth: Int { 1 } }
enum K5S1: DepthwiseShape { static var kernelWidth: Int { 5 }; static var strideWidth: Int { 1 } }
enum K3S2: DepthwiseShape { static var kernelWidth: Int { 3 }; static var strideWidth: Int { 2 } }
enum K5S2: DepthwiseShape { static var kernelWidth: Int { 5 }; static var strideWidth: Int { 2 } }
enum AnyShape: DepthwiseShape { static var kernelWidth: Int { 0 }; static var strideWidth: Int { 0 } }

/// Output pixels per block.
protocol DepthwiseBlockWidth { static var pixels: Int { get } }
enum Width8: DepthwiseBlockWidth { static var pixels: Int { 8 } }
enum Width7: DepthwiseBlockWidth { static var pixels: Int { 7 } }
enum Width6: DepthwiseBlockWidth { static var pixels: Int { 6 } }
enum Width5: DepthwiseBlockWidth { static var pixels: Int { 5 } }
enum Width4: DepthwiseBlockWidth { static var pixels: Int { 4 } }

/// Whether a block checks its input columns against the image.
protocol DepthwiseColumnChecks { static var enabled: Bool { get } }
enum Checked: DepthwiseColumnChecks { static var enabled: Bool { true } }
enum Unchecked: DepthwiseColumnChecks { static var enabled: Bool { false } }
