import BlazeKernels
import BlazeModelFormat

/// `landmarks_to_transform_matrix`: MediaPipe's `Landmarks2TransformMatrix` v2, landmarks `[1, N, 3]` to a `[1, 4, 4]` matrix.
enum LandmarksToTransformMatrixOp: OpPlanner {
    static let kind = OpKind.landmarksToTransformMatrix

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 1)
        let s = b.inputShapes[0]
        guard s.count == 3, s[0] == 1, s[2] == 3 else { throw b.error("landmarks expected [1, N, 3], found \(s)") }
        try b.requireShape(b.outputShapes[0], [1, 4, 4], "output")
        let n = b.node, i = b.index
        let p = LandmarkTransformKernel.MatrixParameters(
            leftRotationIndex: try n.int("left_rotation_idx", nodeIndex: i), rightRotationIndex: try n.int("right_rotation_idx", nodeIndex: i),
            subset: try n.intList("subset_idxs", nodeIndex: i), targetRotationRadians: try n.float("target_rotation_radians", nodeIndex: i),
            scaleX: try n.float("scale_x", nodeIndex: i), scaleY: try n.float("scale_y", nodeIndex: i),
            outputHeight: try n.int("output_height", nodeIndex: i), outputWidth: try n.int("output_width", nodeIndex: i))
        let indices = [p.leftRotationIndex, p.rightRotationIndex] + p.subset
        guard !p.subset.isEmpty, indices.allSatisfy({ (0..<s[1]).contains($0) }) else {
            throw b.error("landmark indices expected in 0..<\(s[1]) with a non-empty subset, found rotation \(p.leftRotationIndex), \(p.rightRotationIndex) and subset \(p.subset)")
        }
        guard p.outputHeight > 0, p.outputWidth > 0, p.scaleX > 0, p.scaleY > 0 else {
            throw b.error("output size and scales expected positive, found \(p.outputHeight)x\(p.outputWidth), scale \(p.scaleX), \(p.scaleY)")
        }
        return Step(input: b.inputs[0], parameters: p, output: b.outputs[0])
    }

    struct Step: ExecutionStep {
        let input: UnsafePointer<Float>
        let parameters: LandmarkTransformKernel.MatrixParameters
        let output: UnsafeMutablePointer<Float>

        func run(pool: WorkerPool) { LandmarkTransformKernel.landmarksToTransformMatrix(input, parameters, output: output) }
    }
}
