import BlazeKernels
import BlazeModelFormat

/// `depth_to_space` (TFLite DCR order).
enum DepthToSpaceOp: OpPlanner {
    static let kind = OpKind.depthToSpace

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 1)
        let x = try b.nhwc(b.inputShapes[0], "input")
        let bs = try b.int("block_size")
        guard bs >= 1, bs <= 64, x.c % (bs * bs) == 0 else {
            throw b.error("block_size expected in 1...64 dividing channels \(x.c) as a square, found \(bs)")
        }
        try b.requireShape(b.outputShapes[0], [1, x.h * bs, x.w * bs, x.c / (bs * bs)], "output")
        return Step(input: try b.activation(0), output: b.outputs[0], height: x.h, width: x.w, channels: x.c, blockSize: bs)
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let height: Int, width: Int, channels: Int, blockSize: Int

        func run(pool: WorkerPool) {
            LayoutKernel.depthToSpace(input: input, height: height, width: width, channels: channels, blockSize: blockSize,
                                      output: output, rows: 0..<height)
        }
    }
}
