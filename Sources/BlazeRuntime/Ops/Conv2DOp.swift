import BlazeKernels
import BlazeModelFormat

/// `conv2d`: dense convolution, 1×1 through one GEMM, k×k through im2col + GEMM; the GEMM is the
/// packed hand-written one (weights packed here, once) or `cblas_sgemm`, as the session's options say.
enum Conv2DOp: OpPlanner {
    static let kind = OpKind.conv2d

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 3)
        let x = try b.nhwc(b.inputShapes[0], "input")
        let ws = b.inputShapes[1]
        guard ws.count == 4, ws[3] == x.c else { throw b.error("weight expected OHWI [Cout, KH, KW, \(x.c)], found \(ws)") }
        let outC = ws[0]
        let window = try b.window(kernelHeight: ws[1], kernelWidth: ws[2], inputHeight: x.h, inputWidth: x.w)
        try b.requireShape(b.outputShapes[0], [1, window.outputHeight, window.outputWidth, outC], "output")
        let step = Step(input: try b.activation(0), weights: try b.constant(1, count: ws.reduce(1, *), role: "weight"),
                        bias: try b.constant(2, count: outC, role: "bias"), output: b.outputs[0], window: window,
                        inChannels: x.c, outChannels: outC, clamp: try b.clamp(), variant: .gemm1x1, tasks: 1, pixelBlock: 0, scratch: nil)
        let pixels = window.outputHeight * window.outputWidth
        var s = step
        s.tasks = b.taskCount(flops: 2 * pixels * outC * ws[1] * ws[2] * x.c, units: pixels)
        if outC <= Step.directOutputChannelLimit, !window.isPointwise {
            s.variant = .directFewOutputs
        } else if let tile = b.gemmTile {
            let packed = PackedGEMMWeights(weights: s.weights, bias: s.bias, outputs: outC, depth: ws[1] * ws[2] * x.c, tile: tile,
                                           window: window.isPointwise ? nil : window, inChannels: x.c)
            if window.isPointwise {
                s.variant = .packed1x1(packed)
            } else {
                s.variant = .packedIm2col(packed)
                s.pixelBlock = Conv2DKernel.im2colPixelBlock(window: window, inChannels: x.c, budgetFloats: 1 << 13)
                s.scratch = ScratchBuffer(floats: Conv2DKernel.im2colWorkspaceFloats(window: window, inChannels: x.c,
                                                                                    pixelBlock: s.pixelBlock) * s.tasks)
            }
        } else if !window.isPointwise {
            s.variant = .im2colGEMM
            s.pixelBlock = Conv2DKernel.im2colPixelBlock(window: window, inChannels: x.c)
            let per = Conv2DKernel.im2colWorkspaceFloats(window: window, inChannels: x.c, pixelBlock: s.pixelBlock)
            s.scratch = ScratchBuffer(floats: per * s.tasks)
        }
        return s
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let window: SpatialWindow
        let inChannels: Int, outChannels: Int
        let clamp: ClampBounds
        var variant: Variant
        var tasks: Int, pixelBlock: Int
        var scratch: ScratchBuffer?

        enum Variant { case gemm1x1, im2colGEMM, directFewOutputs, packed1x1(PackedGEMMWeights), packedIm2col(PackedGEMMWeights) }

        /// Up to this many output channels a k×k conv runs direct instead of im2col + GEMM
        /// (pose_landmark's 3×3, 8→1 mask head: 2.9 ms via im2col, see Benchmarks/RESULTS.md).
        static let directOutputChannelLimit = 4

        func run(pool: WorkerPool) {
            let pixels = window.outputHeight * window.outputWidth
            switch variant {
            case .directFewOutputs:
                pool.parallelFor(tasks) { t in
                    Conv2DKernel.directFewOutputs(input: input, weights: weights, bias: bias, output: output, window: window,
                                                  inChannels: inChannels, outChannels: outChannels, clamp: clamp,
                                                  pixels: partition(pixels, tasks, t))
                }
            case .im2colGEMM:
                let scratch = scratch!
                let per = Conv2DKernel.im2colWorkspaceFloats(window: window, inChannels: inChannels, pixelBlock: pixelBlock)
                pool.parallelFor(tasks) { t in
                    Conv2DKernel.im2colGEMM(input: input, weights: weights, bias: bias, output: output, window: window,
                                            inChannels: inChannels, outChannels: outChannels, clamp: clamp,
                                            pixels: partition(pixels, tasks, t), pixelBlock: pixelBlock,
                                            workspace: scratch.pointer + t * per)
                }
            case .packed1x1(let packed):
                pool.parallelFor(tasks) { t in
                    Conv2DKernel.packed1x1(input: input, weights: packed, output: output, pixels: partition(pixels, tasks, t),
                                           clamp: clamp)
                }
            case .packedIm2col(let packed):
                let scratch = scratch!
                let per = Conv2DKernel.im2colWorkspaceFloats(window: window, inChannels: inChannels, pixelBlock: pixelBlock)
                pool.parallelFor(tasks) { t in
                    Conv2DKernel.im2colPacked(input: input, weights: packed, output: output, window: window,
                                              inChannels: inChannels, clamp: clamp, pixels: partition(pixels, tasks, t),
                                              pixelBlock: pixelBlock, workspace: scratch.pointer + t * per)
                }
            case .gemm1x1:
                pool.parallelFor(tasks) { t in
                    Conv2DKernel.gemm1x1(input: input, weights: weights, bias: bias, output: output,
                                         pixels: partition(pixels, tasks, t), inChannels: inChannels,
                                         outChannels: outChannels, clamp: clamp)
                }
            }
        }
    }
}
