import BlazeKernels
import BlazeImage
import BlazeModelFormat
import BlazeRuntime

/// The pose detector stage: letterboxed 224×224 crop of the (rotated) image, BlazePose detector,
/// SSD decoding, weighted NMS, mapping back to image coordinates, and detection → ROI
/// (`mediapipe/tasks/cc/vision/pose_detector/pose_detector_graph.cc`).
///
/// Holds a planned session and its crop buffer; one instance per thread.
public final class PoseDetectorStage {
    public let network: CroppedNetwork
    public var nmsThreshold: Float = 0.5
    let anchors: [Anchor]

    /// - Parameter planning: how the session picks among kernels that give the same bits (`RuntimeOptions.planning`).
    /// - Throws: `RuntimeError.modelMismatch` when the model's input or outputs are not the pose
    ///   detector's (`[1,224,224,3]` in, `[1,2254,12]` and `[1,2254,1]` out).
    public init(model: ModelFile, workers: WorkerPool, planning: Planning = .measured) throws {
        network = try CroppedNetwork(model: model, workers: workers, role: "a pose detector",
                                     outputs: [[1, 2254, 12], [1, 2254, 1]], planning: planning)
        var options = SSDAnchorOptions.poseDetection
        options.inputSizeWidth = network.tensorWidth
        options.inputSizeHeight = network.tensorHeight
        anchors = SSDAnchorGenerator.anchors(for: options)
    }

    /// Detections in image-normalized coordinates, highest score first.
    public func detect(in image: Image, rect: NormalizedRect, minScore: Float) throws -> [Detection] {
        let geometry = try network.run(on: image, rect: rect, keepAspectRatio: true, border: .zero)
        let decoder = DetectionDecoder.poseDetection(minScore: minScore)
        let raw = try decoder.decode(rawBoxes: network.session.output(0), rawScores: network.session.output(1), anchors: anchors)
        let kept = NonMaxSuppression.weighted(raw, iouThreshold: nmsThreshold)
        // With the plain full-image rect this is MediaPipe's letterbox removal; with a rotated
        // input the detections are projected through the crop instead (see `DetectorInputRect`).
        if rect == .fullImage { return kept.map { geometry.letterboxPadding.removing(from: $0) } }
        return kept.map { geometry.projectToImage($0) }
    }

    /// The landmark-model ROI of each detection (`AlignmentPointsRect` + `RectTransformation`).
    public func regionsOfInterest(for detections: [Detection], imageWidth: Int, imageHeight: Int) -> [NormalizedRect] {
        detections.compactMap { d in
            AlignmentPointsRect.poseDetection.rect(for: d, imageWidth: imageWidth, imageHeight: imageHeight)
                .map { RectTransformation.poseDetectionToROI.apply(to: $0, imageWidth: imageWidth, imageHeight: imageHeight) }
        }
    }
}
