import BlazeImage
import BlazeModelFormat
import BlazeRuntime

/// The pose detector stage: letterboxed 224×224 crop of the (rotated) image, BlazePose detector,
/// SSD decoding, weighted NMS, mapping back to image coordinates, and detection → ROI
/// (`mediapipe/tasks/cc/vision/pose_detector/pose_detector_graph.cc`).
///
/// Holds a planned session and its crop buffer; one instance per thread.
public final class PoseDetectorStage {
    public let session: InferenceSession
    public var nmsThreshold: Float = 0.5
    let anchors: [Anchor]
    let tensorWidth: Int, tensorHeight: Int
    let valueRange: (min: Float, max: Float)
    private var crop: [UInt8]

    /// - Throws: `RuntimeError.modelMismatch` when the model's input or outputs are not the pose
    ///   detector's (`[1,224,224,3]` in, `[1,2254,12]` and `[1,2254,1]` out).
    public init(model: ModelFile, threadCount: Int) throws {
        session = try InferenceSession(model: model, options: RuntimeOptions(threadCount: threadCount))
        let input = model.metadata.input
        let outputs = session.outputDescriptions.map(\.shape)
        guard input.shape.count == 4, input.shape[3] == 3, outputs.count == 2,
              outputs[0] == [1, 2254, 12], outputs[1] == [1, 2254, 1], input.valueRange.count == 2 else {
            throw RuntimeError.modelMismatch(model: model.path,
                reason: "expected a pose detector ([1,H,W,3] → [1,2254,12], [1,2254,1]), found input \(input.shape), outputs \(outputs)")
        }
        tensorHeight = input.shape[1]
        tensorWidth = input.shape[2]
        valueRange = (input.valueRange[0], input.valueRange[1])
        var options = SSDAnchorOptions.poseDetection
        options.inputSizeWidth = tensorWidth
        options.inputSizeHeight = tensorHeight
        anchors = SSDAnchorGenerator.anchors(for: options)
        crop = [UInt8](repeating: 0, count: tensorWidth * tensorHeight * 3)
    }

    /// Detections in image-normalized coordinates, highest score first.
    public func detect(in image: Image, rect: NormalizedRect, minScore: Float) throws -> [Detection] {
        let geometry = try ImageToTensorGeometry(rect: rect, imageWidth: image.width, imageHeight: image.height,
                                                 tensorWidth: tensorWidth, tensorHeight: tensorHeight, keepAspectRatio: true)
        try CropSampler.sample(image, geometry: geometry, border: .zero, into: &crop, tensor: session.input, valueRange: valueRange)
        session.run()
        let decoder = DetectionDecoder.poseDetection(minScore: minScore)
        let raw = try decoder.decode(rawBoxes: session.output(0), rawScores: session.output(1), anchors: anchors)
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
