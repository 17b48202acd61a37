import BlazeKernels
import BlazeModelFormat

/// `fully_connected`: `x · Wᵀ + b`, GEMV for one row. Threads split the output columns in groups of four,
/// OpenBLAS's column block, so each column is computed as in one call (the same bits at any thread count); a row
/// too long for OpenBLAS to keep a call on the calling thread runs as one call, which OpenBLAS threads itself.
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
        // A row short enough for OpenBLAS's calling-thread blocks (see `LayoutKernel.singleThreadedColumns`) is
        // split between threads as a streaming GEMV: weighted by `gemvFlopWeight` against the convolutions' rate.
        // A longer row stays one call on one task whatever its work: OpenBLAS then threads the call itself, and how it
        // cuts the columns depends on how many a call has, so a share of them could get other last bits (2400 → 40
        // on two tasks did, now and then, once 192 kFLOP passed `ParallelWork.minimumFlops`).
        let streams = LayoutKernel.singleThreadedColumns(rows: m, inFeatures: k) != .max
        let tasks = streams ? b.taskCount(flops: 2 * m * n * k * gemvFlopWeight, units: n / 16) : 1
        return Step(input: try b.activation(0), weights: try b.constant(1, count: n * k, role: "weight"),
                    bias: try b.constant(2, count: n, role: "bias"), output: b.outputs[0], rows: m, inFeatures: k,
                    outFeatures: n, clamp: try b.clamp(), tasks: tasks)
    }

    /// A one-row product streams its weights once and runs at about an eighth of a convolution's rate here
    /// (8 against 100 GFLOP/s), so it is worth a second thread at an eighth of the flops: hand_landmark's two
    /// 1152 → 63 heads (18 µs each on one thread) split; its 1152 → 1 heads stay whole.
    static let gemvFlopWeight = 8

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
                                            columns: partition(outFeatures, tasks, t, multipleOf: 4), clamp: clamp)
            }
        }
    }
}
