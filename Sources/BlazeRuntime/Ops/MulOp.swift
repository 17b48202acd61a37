import BlazeKernels
import BlazeModelFormat

/// `mul`: element-wise product with fused clamp; the second factor has the first's shape or one element.
enum MulOp: OpPlanner {
    static let kind = OpKind.mul

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 2)
        let count = b.inputShapes[0].reduce(1, *)
        let scalar = b.inputShapes[1].reduce(1, *) == 1
        if !scalar { try b.requireShape(b.inputShapes[1], b.inputShapes[0], "second input") }
        try b.requireShape(b.outputShapes[0], b.inputShapes[0], "output")
        return BinaryElementwiseStep(operation: .mul(scalar: scalar), a: b.inputs[0], b: b.inputs[1], output: b.outputs[0],
                                     count: count, clamp: try b.clamp(), tasks: b.taskCount(flops: count * 4, units: count / 1024))
    }
}
