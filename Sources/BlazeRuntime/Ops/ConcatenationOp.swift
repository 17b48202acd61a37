import BlazeKernels
import BlazeModelFormat

/// `concatenation` along one axis.
enum ConcatenationOp: OpPlanner {
    static let kind = OpKind.concatenation

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        guard !b.inputShapes.isEmpty, b.outputShapes.count == 1 else { throw b.error("expected at least one input and one output") }
        let first = b.inputShapes[0]
        let axis = try b.int("axis")
        guard axis >= 0, axis < first.count else { throw b.error("axis expected in 0..<\(first.count), found \(axis)") }
        var out = first
        out[axis] = 0
        for (i, s) in b.inputShapes.enumerated() {
            guard s.count == first.count, (0..<s.count).allSatisfy({ $0 == axis || s[$0] == first[$0] }) else {
                throw b.error("input \(i) shape \(s) does not match \(first) outside axis \(axis)")
            }
            out[axis] += s[axis]
        }
        try b.requireShape(b.outputShapes[0], out, "output")
        guard try b.clamp() == .none else { throw b.error("a fused activation on concatenation is not supported") }
        let outer = first[..<axis].reduce(1, *), inner = first[(axis + 1)...].reduce(1, *)
        return Step(inputs: b.inputs, runLengths: b.inputShapes.map { $0[axis] * inner }, outer: outer, output: b.outputs[0])
    }

    struct Step: ExecutionStep {
        let inputs: [UnsafePointer<Float>]
        let runLengths: [Int]
        let outer: Int
        let output: UnsafeMutablePointer<Float>

        func run(pool: WorkerPool) {
            LayoutKernel.concatenate(inputs: inputs, runLengths: runLengths, outer: outer, output: output)
        }
    }
}
