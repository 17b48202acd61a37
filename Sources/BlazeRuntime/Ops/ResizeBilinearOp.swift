import BlazeKernels
import BlazeModelFormat

/// `resize_bilinear` with TFLite's `align_corners` / `half_pixel_centers` semantics.
enum ResizeBilinearOp: OpPlanner {
    static let kind = OpKind.resizeBilinear

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 1)
        let x = try b.nhwc(b.inputShapes[0], "input")
        let size = try b.ints("size", count: 2)
        guard size.allSatisfy({ $0 >= 1 && $0 <= 16384 }) else { throw b.error("size expected values in 1...16384, found \(size)") }
        let align = (try? b.int("align_corners")) ?? 0, half = (try? b.int("half_pixel_centers")) ?? 0
        guard [0, 1].contains(align), [0, 1].contains(half), !(align == 1 && half == 1) else {
            throw b.error("align_corners and half_pixel_centers expected 0 or 1 and not both 1, found \(align) and \(half)")
        }
        try b.requireShape(b.outputShapes[0], [1, size[0], size[1], x.c], "output")
        return Step(input: try b.activation(0), output: b.outputs[0], inputWidth: x.w, channels: x.c,
                    rows: BilinearAxis(inputSize: x.h, outputSize: size[0], alignCorners: align == 1, halfPixelCenters: half == 1),
                    columns: BilinearAxis(inputSize: x.w, outputSize: size[1], alignCorners: align == 1, halfPixelCenters: half == 1),
                    tasks: b.taskCount(flops: size[0] * size[1] * x.c * 8, units: size[0]))
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let inputWidth: Int, channels: Int
        let rows: BilinearAxis, columns: BilinearAxis
        let tasks: Int

        func run(pool: WorkerPool) {
            pool.forEachPiece(of: rows.lower.count, tasks: tasks) { outputRows in
                ResizeBilinearKernel.direct(input: input, output: output, inputWidth: inputWidth, channels: channels,
                                            rows: rows, columns: columns, outputRows: outputRows)
            }
        }
    }
}
