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
        return Step(a: b.inputs[0], b: b.inputs[1], scalar: scalar, output: b.outputs[0], count: count, clamp: try b.clamp(),
                    tasks: b.taskCount(flops: count * 4, units: count / 1024))
    }

    struct Step: ExecutionStep {
        let a: UnsafePointer<Float>, b: UnsafePointer<Float>
        let scalar: Bool
        let output: UnsafeMutablePointer<Float>
        let count: Int
        let clamp: ClampBounds
        let tasks: Int

        func run(pool: WorkerPool) {
            pool.parallelFor(tasks) { t in
                let r = partition(count / 8, tasks, t)
                let range = (r.lowerBound * 8)..<(t == tasks - 1 ? count : r.upperBound * 8)
                ElementwiseKernel.mul(a, b, scalar: scalar, output, range: range, clamp: clamp)
            }
        }
    }
}
