/// 1×1 convolution with mostly-zero weights, as a sparse × dense product: each output channel keeps
/// only the input channels where its weight is non-zero (``PixelConvWeights`` with the `.sparse`
/// layout, a CSR matrix), and reads them for 64 (AVX2) or 128 (AVX-512) pixels at a time from a
/// channel-major copy of the block, one fused multiply-add per non-zero weight and vector of
/// pixels. This is XNNPACK's SpMM scheme, which XNNPACK itself enables only on ARM and on x86 up to
/// SSE; here it works on NHWC tensors by transposing each block of pixels in and out.
///
/// Each output element gets the bias, then one fused multiply-add per non-zero weight in ascending
/// input-channel order, then the clamp: the dense GEMM's sequence with exact-zero terms left out,
/// which gives the same bits (see the note atop `PixelMajorConv.swift`), so the runtime may pick
/// sparse or dense per node by speed alone.
public enum SparseConv1x1Kernel {
    /// Pixels `pixels` (flattened `y·W + x`) of a 1×1, stride-1, unpadded convolution packed with
    /// the `.sparse` layout; only output channels `outputs` (all by default), so threads can share a
    /// small map by output channel. `scratch` holds `weights.scratchFloats` floats, private to the call.
    public static func run(input: UnsafePointer<Float>, weights: PixelConvWeights, output: UnsafeMutablePointer<Float>,
                           pixels: Range<Int>, outputs: Range<Int>? = nil, clamp: ClampBounds, scratch: UnsafeMutablePointer<Float>) {
        precondition(weights.isPointwise, "SparseConv1x1Kernel: weights packed for \(weights.window), expected a 1×1 window")
        precondition(weights.groupWidth == 1, "SparseConv1x1Kernel: weights packed with \(weights.groupWidth) outputs a group, expected 1")
        PixelMajorConv.pointwise(input: input, weights: weights, output: output, pixels: pixels, groups: outputs, clamp: clamp,
                                 scratch: scratch)
    }

    /// The plain twin: for each pixel and output channel the bias, then one fused multiply-add for
    /// each non-zero weight `weights[o, c]` (`[outChannels, inChannels]`) in ascending `c`, then the clamp.
    public static func reference(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                 output: UnsafeMutablePointer<Float>, pixels: Int, inChannels: Int, outChannels: Int,
                                 clamp: ClampBounds) {
        for p in 0..<pixels {
            for o in 0..<outChannels {
                var acc = bias[o]
                for c in 0..<inChannels where weights[o * inChannels + c] != 0 {
                    let x: Float = input[p * inChannels + c], w: Float = weights[o * inChannels + c]
                    acc = acc.addingProduct(x, w)
                }
                output[p * outChannels + o] = clamp.apply(acc)
            }
        }
    }
}
