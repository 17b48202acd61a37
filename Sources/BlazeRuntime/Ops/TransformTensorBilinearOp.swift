import BlazeKernels
import BlazeModelFormat

/// `transform_tensor_bilinear`: MediaPipe's `TransformTensorBilinear` v2, x `[1, H, W, C]` resampled through a `[1, 4, 4]` matrix.
enum TransformTensorBilinearOp: OpPlanner {
    static let kind = OpKind.transformTensorBilinear

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 2)
        let x = try b.nhwc(b.inputShapes[0], "input"), y = try b.nhwc(b.outputShapes[0], "output")
        try b.requireShape(b.inputShapes[1], [1, 4, 4], "matrix")
        guard y.c == x.c else { throw b.error("output channels expected \(x.c), found \(y.c)") }
        return Step(input: try b.activation(0), height: x.h, width: x.w, channels: x.c, matrix: b.inputs[1], output: b.outputs[0],
                    outputHeight: y.h, outputWidth: y.w)
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>
        let height: Int, width: Int, channels: Int
        let matrix: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let outputHeight: Int, outputWidth: Int

        func run(pool: WorkerPool) {
            LandmarkTransformKernel.transformTensorBilinear(input, height: height, width: width, channels: channels, matrix: matrix,
                                                            output: output, outputWidth: outputWidth, rows: 0..<outputHeight)
        }
    }
}
