import BlazeKernels
import BlazeModelFormat

/// `relu`: `max(x, 0)`.
enum ReluOp: OpPlanner {
    static let kind = OpKind.relu

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 1)
        try b.requireShape(b.outputShapes[0], b.inputShapes[0], "output")
        let count = b.inputShapes[0].reduce(1, *)
        return Step(input: try b.activation(0), output: b.outputs[0], count: count,
                    tasks: b.taskCount(flops: count * 2, units: count / 1024))
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let count: Int, tasks: Int

        func run(pool: WorkerPool) {
            pool.forEachVectorPiece(of: count, tasks: tasks) { range in
                ElementwiseKernel.relu(input, output, range: range)
            }
        }
    }
}
