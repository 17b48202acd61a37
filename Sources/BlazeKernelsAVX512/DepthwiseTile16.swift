/// The AVX-512 paths of the depthwise convolution, sixteen channels per vector: one output row of a
/// run of 16-channel blocks (output pixels eight at a time) and the border pixel of the generic
/// layouts (only the in-bounds taps, four blocks of sixteen channels at a time). The same arithmetic
/// as the 8-channel paths in `BlazeKernels` (`DepthwiseConv2DKernel`, `DepthwiseRun8`) — bias, then
/// one fused multiply-add per in-bounds tap in kernel order (row by row, left to right), then the
/// clamp — so both give identical bits per lane. `Run` is `DepthwiseRun8`'s code on 16-channel
/// vectors (see there for the layouts; keep the two in step) with one difference: unchecked stride-2
/// blocks keep the column walk, which the 32 vector registers hold without spilling and which
/// measured faster here than the tap walk the 8-channel path uses at stride 2.
public enum DepthwiseTile16 {
    typealias V = SIMD16<Float>

    /// One output row, pixels `from..<to` (at least 4), for `channelBlocks` blocks of 16 channels.
    /// Geometry in bytes: `xStep` between successive output pixels' first taps, `tapStep` between
    /// taps of a kernel row, `rowStep` between kernel rows; `weightTap`/`weightRow` likewise in the
    /// `[KH, KW, C]` weights; `outStep` between output pixels. `input` points at output pixel 0's
    /// first tap (input column `firstColumn`, possibly in the padding), `weights`, `bias` and
    /// `output` (pixel 0) at the first channel block. Pixels outside `interior` are checked, which
    /// only 3- and 5-wide kernels at strides 1 and 2 without dilation support.
    public static func run(input: UnsafeRawPointer, weights: UnsafeRawPointer, bias: UnsafeRawPointer,
                           output: UnsafeMutableRawPointer, lo: Float, hi: Float, channelBlocks: Int,
                           from: Int, to: Int, interior: Range<Int>, firstColumn: Int, inputWidth: Int,
                           kernelRows: Range<Int>, kernelWidth: Int, strideWidth: Int, dilationWidth: Int,
                           xStep: Int, tapStep: Int, rowStep: Int, weightTap: Int, weightRow: Int, outStep: Int) {
        Run(input: input, weights: weights, bias: bias, output: output, channelBlocks: channelBlocks,
            lo: V(repeating: lo), hi: V(repeating: hi), kernelRows: kernelRows, kernelWidth: kernelWidth,
            pixelStep: xStep, tapStep: tapStep, rowStep: rowStep, weightTap: weightTap, weightRow: weightRow,
            outStep: outStep, firstColumn: firstColumn, inputWidth: inputWidth, strideWidth: strideWidth,
            interior: interior,
            layout: Run.layout(kernelWidth: kernelWidth, strideWidth: strideWidth, dilationWidth: dilationWidth))
            .run(from: from, to: to)
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

    /// `DepthwiseRun8` on 16-channel vectors.
    struct Run {

        /// The specialized layouts, chosen once per call by `layout(kernelWidth:strideWidth:dilationWidth:)`.
        enum Layout { case k3s1, k5s1, k3s2, k5s2, generic }

        /// Tap (0, 0) of the row's output pixel 0 (input column `firstColumn`, which may lie in the
        /// padding), at the first channel block.
        let input: UnsafeRawPointer
        /// Tap (0, 0) of the `[KH, KW, C]` weights, and the bias, at the first channel block.
        let weights: UnsafeRawPointer, bias: UnsafeRawPointer
        /// The row's output pixel 0, at the first channel block.
        let output: UnsafeMutableRawPointer
        /// Blocks of 16 channels to compute, each 64 bytes after the previous.
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

        /// Computes output pixels `a..<b` (at least 4; inside `interior` for the generic layout) for
        /// every channel block: blocks of eight pixels, the last 4–7 pixels as one block of their width,
        /// and a last 1–3 as a block of four ending at `b` (recomputing a few pixels with the same
        /// arithmetic, so they are rewritten with the same bits). Consecutive unchecked blocks of eight
        /// go in one call.
        func run(from a: Int, to b: Int) {
            precondition(b - a >= 4, "DepthwiseTile16: expected at least 4 pixels, found \(b - a)")
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
        func checks(_ x: Int, _ width: Int) -> Bool { x < interior.lowerBound || x + width > interior.upperBound }

        /// `count` blocks of `width` (4–8) pixels from pixel `first`, checked when the first block reaches
        /// into the padding (`run(from:to:)` groups only unchecked blocks).
        func call(_ width: Int, _ first: Int, _ count: Int) {
            let checked = checks(first, width)
            switch layout {
            case .k3s1: dispatch(K3S1.self, width, checked, first, count)
            case .k5s1: dispatch(K5S1.self, width, checked, first, count)
            case .k3s2: dispatch(K3S2.self, width, checked, first, count)
            case .k5s2: dispatch(K5S2.self, width, checked, first, count)
            case .generic:
                precondition(!checked, "DepthwiseTile16: the generic layout runs on interior pixels only")
                dispatch(AnyShape.self, width, false, first, count)
            }
        }

        @inline(__always)
        func dispatch<S: DepthwiseShape>(_ shape: S.Type, _ width: Int, _ checked: Bool, _ first: Int, _ count: Int) {
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
            default: preconditionFailure("DepthwiseTile16: block width expected 4...8, found \(width)")
            }
        }

        /// One specialization per layout, block width and checking (Swift specializes each combination
        /// into its own function, so the tap loops unroll with literal bounds). Keep `blocks(_:_:_:kw:s:checked:)`
        /// small: past a size limit Swift stops inlining it here and the loops run generic, about 6× slower.
        @inline(never)
        func blocks<S: DepthwiseShape, W: DepthwiseBlockWidth, C: DepthwiseColumnChecks>(
            _ shape: S.Type, _ width: W.Type, _ checks: C.Type, _ first: Int, _ count: Int) {
            blocks(W.pixels, first, count, kw: S.kernelWidth, s: S.strideWidth, checked: C.enabled)
        }

        @inline(__always)
        func load(_ p: UnsafeRawPointer, _ offset: Int) -> V { p.loadUnaligned(fromByteOffset: offset, as: V.self) }

        /// For every channel block, `count` blocks of `width` pixels from pixel `first`. `kw`/`s` are the
        /// literal kernel width and stride of a specialized layout, or 0 for the generic one; `checked`
        /// skips input columns outside the image.
        @inline(__always)
        func blocks(_ width: Int, _ first: Int, _ count: Int, kw: Int, s: Int, checked: Bool) {
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
                        } else {
                            columnWalk(&acc, width, rp, wp, kw: kw, s: s, checked: checked, column0: column0)
                        }
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
        /// With `checked`, columns outside `0..<inputWidth` (`column0` is column 0's index) are skipped.
        @inline(__always)
        func columnWalk(_ acc: inout InlineArray<8, V>, _ width: Int, _ rp: UnsafeRawPointer, _ wp: UnsafeRawPointer,
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
                    if t >= 0 && t % s == 0 && t / s < width { acc[t / s] = acc[t / s].addingProduct(v, w[kx]) }
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

// Type tags that select the specializations of `DepthwiseTile16.Run.blocks` (the same tags as `BlazeKernels.DepthwiseRun8`'s).

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
