/// The AVX-512 paths of the depthwise convolution, sixteen channels per vector: one output row of a
/// run of 16-channel blocks (output pixels eight at a time) and the border pixel of the generic
/// layouts (only the in-bounds taps, four blocks of sixteen channels at a time). The same arithmetic
/// as the 8-channel paths in `BlazeKernels` (`DepthwiseConv2DKernel`, `DepthwiseRun8`) — bias, then
/// one fused multiply-add per in-bounds tap in kernel order (row by row, left to right), then the
/// clamp — so both give identical bits per lane. `Run` (DepthwiseTile16Run.swift) is `DepthwiseRun8`'s
/// code on 16-channel vectors, both generated from one template by
/// `Tools/codegen/generate_kernel_twins.py` (see `DepthwiseRun8` for the layouts), with one difference:
/// unchecked stride-2 blocks keep the column walk, which the 32 vector registers hold without spilling
/// and which measured faster here than the tap walk the 8-channel path uses at stride 2.
public enum DepthwiseTile16 {
    typealias V = SIMD16<Float>

    /// One output row, pixels `from..<to` (at least 4), for `channelBlocks` blocks of 16 channels.
    /// Geometry in bytes: `xStep` between successive output pixels' first taps, `tapStep` between
    /// taps of a kernel row, `rowStep` between kernel rows; `weightTap`/`weightRow` likewise in the
    /// `[KH, KW, C]` weights; `outStep` between output pixels. `input` points at output pixel 0's
    /// first tap (input column `firstColumn`, possibly in the padding), `weights`, `bias` and
    /// `output` (pixel 0) at the first channel block. Pixels outside `interior` are checked, which
    /// only 3- and 5-wide kernels at strides 1 and 2 without dilation support, with `−firstColumn` and
    /// `padRight` (the padding on each side) under the kernel width.
    public static func run(input: UnsafeRawPointer, weights: UnsafeRawPointer, bias: UnsafeRawPointer,
                           output: UnsafeMutableRawPointer, lo: Float, hi: Float, channelBlocks: Int,
                           from: Int, to: Int, interior: Range<Int>, firstColumn: Int, padRight: Int, inputWidth: Int,
                           kernelRows: Range<Int>, kernelWidth: Int, strideWidth: Int, dilationWidth: Int,
                           xStep: Int, tapStep: Int, rowStep: Int, weightTap: Int, weightRow: Int, outStep: Int) {
        Run(input: input, weights: weights, bias: bias, output: output, channelBlocks: channelBlocks,
            lo: V(repeating: lo), hi: V(repeating: hi), kernelRows: kernelRows, kernelWidth: kernelWidth,
            pixelStep: xStep, tapStep: tapStep, rowStep: rowStep, weightTap: weightTap, weightRow: weightRow,
            outStep: outStep, firstColumn: firstColumn, inputWidth: inputWidth, strideWidth: strideWidth,
            interior: interior,
            layout: Run.layout(kernelWidth: kernelWidth, strideWidth: strideWidth, dilationWidth: dilationWidth,
                               padLeft: -firstColumn, padRight: padRight))
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
}
