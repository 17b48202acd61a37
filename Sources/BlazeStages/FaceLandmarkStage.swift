import BlazeImage
import BlazeKernels
import BlazeModelFormat
import BlazeRuntime

/// The face mesh of MediaPipe's legacy graphs (`mediapipe/modules/face_landmark/face_landmark_cpu.pbtxt`): the
/// region stretched into 192×192 (border replicate, values in [0, 1]), `face_landmark` (468 points) or
/// `face_landmark_with_attention` (478: refined lips and eyes, and irises), the face score (sigmoid, strictly
/// above the threshold), and the points projected onto the region.
///
/// Which model it is follows from its outputs: two (mesh, score) or seven (mesh, lips, left eye, right eye,
/// left iris, right iris, score). Holds a planned session and its crop buffer; one instance per thread.
public final class FaceLandmarkStage {
    public let network: CroppedNetwork
    /// Whether the model is the attention mesh (478 points).
    public let withAttention: Bool

    static let plainOutputs = [[1, 1, 1, 1404], [1, 1, 1, 1]]
    static let attentionOutputs = [[1, 1, 1, 1404], [1, 1, 1, 160], [1, 1, 1, 142], [1, 1, 1, 142], [1, 1, 1, 10], [1, 1, 1, 10], [1, 1, 1, 1]]

    /// - Parameter withAttention: whether `model` is `face_landmark_with_attention`.
    /// - Parameter planning: how the session picks among kernels that give the same bits (`RuntimeOptions.planning`).
    /// - Throws: `RuntimeError.modelMismatch` unless the model has that mesh's outputs.
    public init(model: ModelFile, workers: WorkerPool, withAttention: Bool, planning: Planning = .measured) throws {
        network = try CroppedNetwork(model: model, workers: workers,
                                     role: withAttention ? "the attention face mesh (face_landmark_with_attention)" : "a face mesh (face_landmark)",
                                     outputs: withAttention ? Self.attentionOutputs : Self.plainOutputs, planning: planning)
        self.withAttention = withAttention
    }

    /// The face's landmarks in image-normalized coordinates (468 or 478), or nil when the face score
    /// (sigmoid of the last output) is not above `presenceThreshold`.
    public func landmarks(in image: Image, roi: NormalizedRect, presenceThreshold: Float) throws -> [NormalizedLandmark]? {
        _ = try network.run(on: image, rect: roi, keepAspectRatio: false, border: .replicate)
        let session = network.session
        let outputs = withAttention ? 7 : 2
        guard let flag = session.output(outputs - 1).first, Double(sigmoid(flag)) > Double(presenceThreshold) else { return nil }
        var mesh = points(session.output(0), count: 468, dimensions: 3)
        if withAttention {
            mesh += [NormalizedLandmark](repeating: NormalizedLandmark(x: 0, y: 0), count: 10)
            Self.refine(&mesh, with: points(session.output(1), count: 80, dimensions: 2), at: FaceMeshRefinementTables.lips)
            Self.refine(&mesh, with: points(session.output(2), count: 71, dimensions: 2), at: FaceMeshRefinementTables.leftEye)
            Self.refine(&mesh, with: points(session.output(3), count: 71, dimensions: 2), at: FaceMeshRefinementTables.rightEye)
            Self.refine(&mesh, with: points(session.output(4), count: 5, dimensions: 2), at: Array(468..<473),
                        depthFrom: FaceMeshRefinementTables.leftIrisDepth)
            Self.refine(&mesh, with: points(session.output(5), count: 5, dimensions: 2), at: Array(473..<478),
                        depthFrom: FaceMeshRefinementTables.rightIrisDepth)
        }
        return LandmarkProjection.project(mesh, onto: roi)
    }

    /// `TensorsToLandmarksCalculator` for the 192×192 input: `x/W`, `y/H`, and with three values `z/W`.
    func points(_ raw: UnsafeBufferPointer<Float>, count: Int, dimensions: Int) -> [NormalizedLandmark] {
        let w = Float(network.tensorWidth), h = Float(network.tensorHeight)
        return (0..<count).map { i in
            let o = i * dimensions
            return NormalizedLandmark(x: raw[o] / w, y: raw[o + 1] / h, z: dimensions > 2 ? raw[o + 2] / w : 0)
        }
    }

    /// One refinement of `LandmarksRefinementCalculator`: x and y of `points` replace those at `indexes`;
    /// with `depthFrom`, their z becomes the mean z (summed in double) of the landmarks at those indexes
    /// (`assign_average`), otherwise z is left as it is (`none`).
    static func refine(_ mesh: inout [NormalizedLandmark], with points: [NormalizedLandmark], at indexes: [Int], depthFrom: [Int]? = nil) {
        for (point, index) in zip(points, indexes) {
            mesh[index].x = point.x
            mesh[index].y = point.y
        }
        guard let depthFrom else { return }
        let sum = depthFrom.reduce(0.0) { $0 + Double(mesh[$1].z) }
        let average = Float(sum / Double(depthFrom.count))
        for index in indexes { mesh[index].z = average }
    }
}
