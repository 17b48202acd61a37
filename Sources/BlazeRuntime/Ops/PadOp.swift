import BlazeKernels
import BlazeModelFormat

/// `pad`: constant-zero padding of up to four axes.
enum PadOp: OpPlanner {
    static let kind = OpKind.pad

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 1)
        let s = b.inputShapes[0]
        guard (1...4).contains(s.count) else { throw b.error("input expected rank 1...4, found \(s)") }
        let p = try b.ints("pads", count: 2 * s.count)
        guard p.allSatisfy({ $0 >= 0 && $0 <= 4096 }) else { throw b.error("pads expected values in 0...4096, found \(p)") }
        let lead = 4 - s.count
        let shape4 = [Int](repeating: 1, count: lead) + s
        let pads4 = [Int](repeating: 0, count: 2 * lead) + p
        var out4 = shape4
        for axis in 0..<4 { out4[axis] += pads4[2 * axis] + pads4[2 * axis + 1] }
        try b.requireShape(b.outputShapes[0], Array(out4[lead...]), "output")
        return Step(input: try b.activation(0), shape: shape4, pads: pads4, output: b.outputs[0], rows: out4[0] * out4[1],
                    tasks: b.taskCount(flops: out4.reduce(1, *), units: out4[0] * out4[1]))
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>
        let shape: [Int], pads: [Int]
        let output: UnsafeMutablePointer<Float>
        let rows: Int, tasks: Int

        func run(pool: WorkerPool) {
            pool.forEachPiece(of: rows, tasks: tasks) { share in
                LayoutKernel.pad(input: input, inputShape: shape, pads: pads, output: output, rows: share)
            }
        }
    }
}
