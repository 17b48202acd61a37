import BlazeKernels
import BlazeModelFormat

/// `max_pool2d`: SIMD over channels, split by output rows.
enum MaxPool2DOp: OpPlanner {
    static let kind = OpKind.maxPool2d

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 1)
        let x = try b.nhwc(b.inputShapes[0], "input")
        let f = try b.ints("filter", count: 2)
        guard f.allSatisfy({ $0 >= 1 && $0 <= 64 }) else { throw b.error("filter expected sizes in 1...64, found \(f)") }
        let window = try b.window(kernelHeight: f[0], kernelWidth: f[1], inputHeight: x.h, inputWidth: x.w)
        try b.requireShape(b.outputShapes[0], [1, window.outputHeight, window.outputWidth, x.c], "output")
        return Step(input: try b.activation(0), output: b.outputs[0], window: window, channels: x.c, clamp: try b.clamp(),
                    tasks: b.taskCount(flops: window.outputHeight * window.outputWidth * x.c * f[0] * f[1],
                                       units: window.outputHeight))
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let window: SpatialWindow
        let channels: Int
        let clamp: ClampBounds
        let tasks: Int

        func run(pool: WorkerPool) {
            pool.forEachPiece(of: window.outputHeight, tasks: tasks) { rows in
                MaxPoolKernel.direct(input: input, output: output, window: window, channels: channels, clamp: clamp, rows: rows)
            }
        }
    }
}
