import BlazeKernels
import BlazeModelFormat

/// `strided_slice`: elements `begin + i · stride` per axis, up to four axes.
enum StridedSliceOp: OpPlanner {
    static let kind = OpKind.stridedSlice

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 1)
        let s = b.inputShapes[0], o = b.outputShapes[0]
        guard (1...4).contains(s.count), o.count == s.count else {
            throw b.error("input and output expected the same rank in 1...4, found \(s) and \(o)")
        }
        let begin = try b.ints("begin", count: s.count), strides = try b.ints("strides", count: s.count)
        for axis in s.indices {
            let last = begin[axis] + (o[axis] - 1) * strides[axis]
            guard strides[axis] >= 1, begin[axis] >= 0, o[axis] >= 1, last < s[axis] else {
                throw b.error("axis \(axis): begin \(begin[axis]), stride \(strides[axis]) and \(o[axis]) outputs reach element \(last) of \(s[axis])")
            }
        }
        let lead = 4 - s.count
        let pad = { (v: [Int], fill: Int) in [Int](repeating: fill, count: lead) + v }
        let o4 = pad(o, 1)
        return Step(input: try b.activation(0), inputShape: pad(s, 1), begin: pad(begin, 0), strides: pad(strides, 1),
                    output: b.outputs[0], outputShape: o4, rows: o4[0] * o4[1] * o4[2])
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>
        let inputShape: [Int], begin: [Int], strides: [Int]
        let output: UnsafeMutablePointer<Float>
        let outputShape: [Int]
        let rows: Int

        func run(pool: WorkerPool) {
            LayoutKernel.stridedSlice(input: input, inputShape: inputShape, begin: begin, strides: strides,
                                      output: output, outputShape: outputShape, rows: 0..<rows)
        }
    }
}
