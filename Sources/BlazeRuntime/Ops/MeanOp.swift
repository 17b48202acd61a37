import BlazeKernels
import BlazeModelFormat

/// `mean` over a contiguous run of axes (e.g. H and W of NHWC).
enum MeanOp: OpPlanner {
    static let kind = OpKind.mean

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 1)
        let s = b.inputShapes[0]
        guard case .ints(let axes)? = b.node.attributes["axes"], !axes.isEmpty,
              axes.allSatisfy({ $0 >= 0 && $0 < s.count }), axes == Array(axes.sorted()),
              axes.last! - axes.first! == axes.count - 1 else {
            throw b.error("axes expected a sorted contiguous run within 0..<\(s.count), found \(b.node.attributes["axes"]?.description ?? "absent")")
        }
        let outer = s[..<axes.first!].reduce(1, *), reduce = axes.map { s[$0] }.reduce(1, *)
        let inner = s[(axes.last! + 1)...].reduce(1, *)
        let n = b.outputShapes[0].reduce(1, *)
        guard n == outer * inner else { throw b.error("output \(b.outputShapes[0]) expected \(outer * inner) elements, found \(n)") }
        return Step(input: try b.activation(0), output: b.outputs[0], outer: outer, reduce: reduce, inner: inner)
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let outer: Int, reduce: Int, inner: Int

        func run(pool: WorkerPool) {
            LayoutKernel.mean(input: input, outer: outer, reduce: reduce, inner: inner, output: output)
        }
    }
}
