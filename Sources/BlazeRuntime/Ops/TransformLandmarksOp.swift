import BlazeKernels
import BlazeModelFormat

/// `transform_landmarks`: MediaPipe's `TransformLandmarks` v2, landmarks `[1, N, D]` through a `[1, 4, 4]` matrix.
enum TransformLandmarksOp: OpPlanner {
    static let kind = OpKind.transformLandmarks

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 2)
        let s = b.inputShapes[0]
        guard s.count == 3, s[0] == 1, s[2] == 2 || s[2] == 3 else { throw b.error("landmarks expected [1, N, 2 or 3], found \(s)") }
        try b.requireShape(b.inputShapes[1], [1, 4, 4], "matrix")
        try b.requireShape(b.outputShapes[0], s, "output")
        return Step(input: try b.activation(0), count: s[1], dimensions: s[2], matrix: b.inputs[1], output: b.outputs[0])
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>
        let count: Int, dimensions: Int
        let matrix: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>

        func run(pool: WorkerPool) {
            LandmarkTransformKernel.transformLandmarks(input, count: count, dimensions: dimensions, matrix: matrix, output: output)
        }
    }
}
