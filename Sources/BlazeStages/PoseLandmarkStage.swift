import BlazeKernels
import BlazeImage
import BlazeModelFormat
import BlazeRuntime

/// The pose landmark stage: rotated 256×256 crop of the ROI (border replicate), the landmark
/// network, landmark decoding with heatmap refinement, projection to the image, world landmarks,
/// and optionally the person mask warped back to image size
/// (`mediapipe/tasks/cc/vision/pose_landmarker/pose_landmarks_detector_graph.cc`).
///
/// Holds a planned session and its buffers; one instance per thread.
public final class PoseLandmarkStage {
    public let network: CroppedNetwork
    public var decoder = PoseLandmarkDecoder()

    /// Whether the segmentation head (output 2) runs; without it the stage is ~15 % faster and
    /// `landmarks(…, segmentation: true)` throws.
    public let computesSegmentation: Bool

    /// Whether the crop keeps the ROI's aspect ratio (letterboxed): the legacy graph's
    /// `pose_landmark_by_roi_cpu.pbtxt` sets `keep_aspect_ratio`; Tasks leaves it unset (stretch). ROIs are
    /// square in pixels, so the two differ only by float rounding.
    public var keepsAspectRatio = false

    /// - Parameter segmentation: plan the segmentation head too (needed for masks).
    /// - Parameter planning: how the session picks among kernels that give the same bits (`RuntimeOptions.planning`).
    /// - Throws: `RuntimeError.modelMismatch` unless the model has the pose landmark outputs
    ///   (`[1,195]`, `[1,1]`, `[1,256,256,1]`, `[1,64,64,39]`, `[1,117]`).
    public init(model: ModelFile, workers: WorkerPool, segmentation: Bool = true, planning: Planning = .measured) throws {
        network = try CroppedNetwork(model: model, workers: workers, role: "a pose landmark model",
                                     outputs: [[1, 195], [1, 1], [1, 256, 256, 1], [1, 64, 64, 39], [1, 117]],
                                     computedOutputs: segmentation ? nil : [0, 1, 3, 4], planning: planning)
        computesSegmentation = segmentation
    }

    /// One pose's result, or nil when the network's presence score is not above `presenceThreshold`.
    public struct Output: Sendable {
        public var decoding: PoseLandmarkDecoding
        /// Person probability per image pixel (row-major, image size), when requested.
        public var mask: [Float]?
    }

    public func landmarks(in image: Image, roi: NormalizedRect, presenceThreshold: Float, segmentation: Bool) throws -> Output? {
        let geometry = try network.run(on: image, rect: roi, keepAspectRatio: keepsAspectRatio, border: .replicate)
        let session = network.session
        let decoding = try decoder.decode(landmarks: session.output(0), presence: session.output(1), heatmap: session.output(3),
                                          worldLandmarks: session.output(4), roi: roi, letterboxPadding: geometry.letterboxPadding)
        guard decoding.isPosePresent(threshold: presenceThreshold) else { return nil }
        var mask: [Float]?
        if segmentation {
            guard computesSegmentation else {
                throw RuntimeError.invalidOption(name: "segmentation", expected: "a PoseLandmarkStage created with segmentation: true",
                                                 actual: "a stage without the segmentation head")
            }
            let probabilities = SegmentationMaskDecoder.probabilities(fromLogits: session.output(2))
            mask = CropSampler.warpMaskToImage(probabilities, maskWidth: 256, maskHeight: 256, geometry: geometry)
        }
        return Output(decoding: decoding, mask: mask)
    }
}
