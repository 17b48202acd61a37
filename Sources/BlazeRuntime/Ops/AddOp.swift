import BlazeKernels
import BlazeModelFormat

/// `add`: same-shape element-wise sum with fused clamp.
enum AddOp: OpPlanner {
    static let kind = OpKind.add

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 2)
        try b.requireShape(b.inputShapes[1], b.inputShapes[0], "second input")
        try b.requireShape(b.outputShapes[0], b.inputShapes[0], "output")
        let count = b.inputShapes[0].reduce(1, *)
        // Constants are allowed as addends: they are read from the model mapping like activations.
        return BinaryElementwiseStep(operation: .add, a: b.inputs[0], b: b.inputs[1], output: b.outputs[0], count: count,
                                     clamp: try b.clamp(), tasks: b.taskCount(flops: count * 4, units: count / 1024))
    }
}

/// An element-wise `add` or `mul` of `count` floats with a fused clamp, split between tasks in whole vectors.
struct BinaryElementwiseStep: ExecutionStep {
    enum Operation {
        case add
        /// `scalar`: the second factor is one value.
        case mul(scalar: Bool)
    }

    let operation: Operation
    let a: UnsafePointer<Float>, b: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let count: Int
    let clamp: ClampBounds
    let tasks: Int

    func run(pool: WorkerPool) {
        pool.forEachVectorPiece(of: count, tasks: tasks) { range in
            switch operation {
            case .add: ElementwiseKernel.add(a, b, output, range: range, clamp: clamp)
            case .mul(let scalar): ElementwiseKernel.mul(a, b, scalar: scalar, output, range: range, clamp: clamp)
            }
        }
    }
}
