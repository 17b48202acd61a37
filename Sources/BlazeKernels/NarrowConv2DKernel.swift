import BlazeKernelsAVX512

/// Convolution with few output channels (1…8), vectorized over output pixels instead of channels:
/// eight (AVX2) or sixteen (AVX-512) neighbouring pixels of one output row per register, every tap
/// and input channel accumulated in registers by fused multiply-adds, so a 3×3, 8→1 head runs near
/// the vector peak where a GEMM would use one column of a 16- or 32-wide tile. The input rows are
/// transposed once each into planar form (see ``PixelConvWeights``); 1×1 convolutions go through
/// flat pixel blocks. Same arithmetic per element as the GEMM tiles (see the note atop `PixelMajorConv.swift`),
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
        window.forEachOutput(channels: outChannels) { pixel, taps, o in
            var acc = bias[o]
            for tap in taps {
                for i in 0..<inChannels {
                    acc = acc.addingProduct(input[tap.input * inChannels + i], weights[(o * window.tapCount + tap.kernel) * inChannels + i])
                }
            }
            output[pixel * outChannels + o] = clamp.apply(acc)
        }
    }
}
