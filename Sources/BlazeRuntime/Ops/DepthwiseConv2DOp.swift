import BlazeKernels
import BlazeModelFormat

/// `depthwise_conv2d`: direct SIMD kernel (16-channel AVX-512 blocks when the session uses the
/// AVX-512 tiles), split by output rows.
enum DepthwiseConv2DOp: OpPlanner {
    static let kind = OpKind.depthwiseConv2d

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 3)
        let x = try b.nhwc(b.inputShapes[0], "input")
        let ws = b.inputShapes[1]
        guard ws.count == 3 || (ws.count == 4 && ws[0] == 1), ws.last == x.c else {
            throw b.error("weight expected [KH, KW, \(x.c)], found \(ws)")
        }
        let kh = ws[ws.count - 3], kw = ws[ws.count - 2]
        let window = try b.window(kernelHeight: kh, kernelWidth: kw, inputHeight: x.h, inputWidth: x.w)
        try b.requireShape(b.outputShapes[0], [1, window.outputHeight, window.outputWidth, x.c], "output")
        return Step(input: try b.activation(0), weights: try b.constant(1, count: kh * kw * x.c, role: "weight"),
                    bias: try b.constant(2, count: x.c, role: "bias"), output: b.outputs[0], window: window,
                    channels: x.c, clamp: try b.clamp(), wide: b.gemmTile == .avx512x8x32,
                    tasks: b.taskCount(flops: 2 * window.outputHeight * window.outputWidth * x.c * kh * kw,
                                       units: window.outputHeight))
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let window: SpatialWindow
        let channels: Int
        let clamp: ClampBounds
        /// 16-channel AVX-512 blocks (the session runs the AVX-512 tiles).
        let wide: Bool
        let tasks: Int

        func run(pool: WorkerPool) {
            pool.forEachPiece(of: window.outputHeight, tasks: tasks) { rows in compute(rows: rows) }
        }

        /// Output pixels `pixels` (row-major), which may start and end inside a row; any split gives the same bits.
        func compute(pixels: Range<Int>) {
            DepthwiseConv2DKernel.direct(input: input, weights: weights, bias: bias, output: output, window: window,
                                         channels: channels, clamp: clamp, pixels: pixels, wide: wide)
        }

        /// This step reading its input map at `input` instead (``DepthwiseBandRegion``'s ring).
        func reading(_ input: UnsafePointer<Float>) -> Step {
            Step(input: input, weights: weights, bias: bias, output: output, window: window, channels: channels,
                 clamp: clamp, wide: wide, tasks: tasks)
        }

        /// Output rows `rows`; any split of the rows gives the same bits.
        func compute(rows: Range<Int>) {
            DepthwiseConv2DKernel.direct(input: input, weights: weights, bias: bias, output: output, window: window,
                                         channels: channels, clamp: clamp, rows: rows, wide: wide)
        }
    }
}
