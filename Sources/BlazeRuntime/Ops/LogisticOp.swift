import BlazeKernels
import BlazeModelFormat

/// `logistic`: the sigmoid.
enum LogisticOp: OpPlanner {
    static let kind = OpKind.logistic

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 1)
        try b.requireShape(b.outputShapes[0], b.inputShapes[0], "output")
        return Step(input: try b.activation(0), output: b.outputs[0], count: b.inputShapes[0].reduce(1, *))
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let count: Int

        func run(pool: WorkerPool) { ElementwiseKernel.logistic(input, output, range: 0..<count) }
    }
}
