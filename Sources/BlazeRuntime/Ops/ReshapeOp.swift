import BlazeKernels
import BlazeModelFormat

/// `reshape`: the same elements under the output value's shape (a copy; reshapes here are small).
enum ReshapeOp: OpPlanner {
    static let kind = OpKind.reshape

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 1)
        let n = b.inputShapes[0].reduce(1, *), m = b.outputShapes[0].reduce(1, *)
        guard n == m else { throw b.error("output shape \(b.outputShapes[0]) holds \(m) elements, input \(b.inputShapes[0]) holds \(n)") }
        return Step(input: b.inputs[0], output: b.outputs[0], count: n)
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let count: Int

        func run(pool: WorkerPool) { output.update(from: input, count: count) }
    }
}
