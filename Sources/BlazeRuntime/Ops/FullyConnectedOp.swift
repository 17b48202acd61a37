import BlazeKernels
import BlazeModelFormat

/// `fully_connected`: `x · Wᵀ + b`, GEMV for one row.
enum FullyConnectedOp: OpPlanner {
    static let kind = OpKind.fullyConnected

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 3)
        let ws = b.inputShapes[1]
        guard ws.count == 2 else { throw b.error("weight expected [N, K], found \(ws)") }
        let n = ws[0], k = ws[1]
        let total = b.inputShapes[0].reduce(1, *)
        guard total % k == 0 else { throw b.error("input \(b.inputShapes[0]) is not a whole number of rows of \(k)") }
        let m = total / k
        guard b.outputShapes[0].reduce(1, *) == m * n else {
            throw b.error("output expected \(m * n) elements (\(m)x\(n)), found shape \(b.outputShapes[0])")
        }
        return Step(input: try b.activation(0), weights: try b.constant(1, count: n * k, role: "weight"),
                    bias: try b.constant(2, count: n, role: "bias"), output: b.outputs[0], rows: m, inFeatures: k,
                    outFeatures: n, clamp: try b.clamp(), tasks: b.taskCount(flops: 2 * m * n * k, units: n / 16))
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let rows: Int, inFeatures: Int, outFeatures: Int
        let clamp: ClampBounds
        let tasks: Int

        func run(pool: WorkerPool) {
            pool.parallelFor(tasks) { t in
                LayoutKernel.fullyConnected(input: input, weights: weights, bias: bias, output: output, rows: rows,
                                            inFeatures: inFeatures, outFeatures: outFeatures,
                                            columns: partition(outFeatures, tasks, t), clamp: clamp)
            }
        }
    }
}
