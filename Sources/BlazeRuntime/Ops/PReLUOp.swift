import BlazeKernels
import BlazeModelFormat

/// `prelu`: per-channel slope for negative values.
enum PReLUOp: OpPlanner {
    static let kind = OpKind.prelu

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 2)
        let shape = b.inputShapes[0]
        guard let c = shape.last else { throw b.error("input expected rank >= 1, found a scalar") }
        try b.requireShape(b.outputShapes[0], shape, "output")
        let pixels = shape.reduce(1, *) / c
        return Step(input: try b.activation(0), alpha: try b.constant(1, count: c, role: "alpha"), output: b.outputs[0],
                    pixels: pixels, channels: c, tasks: b.taskCount(flops: pixels * c * 4, units: pixels))
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>, alpha: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let pixels: Int, channels: Int, tasks: Int

        func run(pool: WorkerPool) {
            pool.forEachPiece(of: pixels, tasks: tasks) { share in
                ElementwiseKernel.prelu(input, alpha: alpha, output, pixels: share, channels: channels)
            }
        }
    }
}
