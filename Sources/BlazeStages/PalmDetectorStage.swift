import BlazeKernels
import BlazeImage
import BlazeModelFormat
import BlazeRuntime

/// The palm (hand) detector stage of MediaPipe Tasks' `HandDetectorGraph`
/// (`mediapipe/tasks/cc/vision/hand_detector/hand_detector_graph.cc`): letterboxed 192×192 crop of the
/// (rotated) image with a zero border, BlazePalm, SSD decoding (2016 anchors, 7 keypoints), weighted NMS
/// (IoU 0.3), projection back to the image through the crop `MATRIX` (`DetectionProjectionCalculator`),
/// and palm → hand ROI (`DetectionsToRectsCalculator` + `RectTransformationCalculator`).
///
/// Holds a planned session and its crop buffer; one instance per thread.
public final class PalmDetectorStage {
    public let network: CroppedNetwork
    /// `min_suppression_threshold` of the weighted NMS (`ConfigureNonMaxSuppressionCalculator`): 0.3.
    public var nmsThreshold: Float = 0.3
    /// Palm → rect conversion; the Tasks default reproduces its 90-**radian** target angle.
    public var rectConversion: BoundingBoxRect = .palmDetection
    /// Rect → hand ROI (×2.6, shift −0.5, square long).
    public var roiTransformation: RectTransformation = .palmDetectionToROI
    /// Whether full-image detections are mapped back by letterbox removal, as the legacy
    /// `palm_detection_cpu.pbtxt` does (`DetectionLetterboxRemovalCalculator`), instead of through the crop
    /// matrix as Tasks does. The two agree up to float rounding for an unrotated image.
    public var removesLetterbox = false
    let anchors: [Anchor]

    /// - Parameter planning: how the session picks among kernels that give the same bits (`RuntimeOptions.planning`).
    /// - Throws: `RuntimeError.modelMismatch` when the model's input or outputs are not the palm
    ///   detector's (`[1,H,W,3]` in, `[1,2016,18]` and `[1,2016,1]` out).
    public init(model: ModelFile, workers: WorkerPool, planning: Planning = .measured) throws {
        network = try CroppedNetwork(model: model, workers: workers, role: "a palm detector",
                                     outputs: [[1, 2016, 18], [1, 2016, 1]], planning: planning)
        var options = SSDAnchorOptions.palmDetection
        options.inputSizeWidth = network.tensorWidth
        options.inputSizeHeight = network.tensorHeight
        anchors = SSDAnchorGenerator.anchors(for: options)
    }

    /// Palm detections in image-normalized coordinates of the whole (unrotated) image, highest score
    /// first (NMS order). `rect` is the Tasks `NORM_RECT` (full image, possibly rotated; see
    /// `DetectorInputRect`); `minScore` is `min_hand_detection_confidence`.
    ///
    /// Unlike the pose detector, MediaPipe's hand detector always maps through the crop `MATRIX`
    /// (`DetectionProjectionCalculator`), never by letterbox removal, so this does too.
    public func detect(in image: Image, rect: NormalizedRect, minScore: Float) throws -> [Detection] {
        let geometry = try network.run(on: image, rect: rect, keepAspectRatio: true, border: .zero)
        let decoder = DetectionDecoder.palmDetection(minScore: minScore)
        let raw = try decoder.decode(rawBoxes: network.session.output(0), rawScores: network.session.output(1), anchors: anchors)
        let kept = NonMaxSuppression.weighted(raw, iouThreshold: nmsThreshold)
        if removesLetterbox && rect == .fullImage { return kept.map { geometry.letterboxPadding.removing(from: $0) } }
        return kept.map { geometry.projectToImage($0) }
    }

    /// The hand-landmark ROI of each detection, in detection order: bounding-box rect rotated from
    /// keypoint 0 to keypoint 2 (`rectConversion`), then `roiTransformation`.
    ///
    /// MediaPipe Tasks then keeps only the first `num_hands` of these
    /// (`ClipNormalizedRectVectorSizeCalculator`) — callers apply `prefix(numHands)`. With no detections
    /// MediaPipe emits a single all-zero sentinel rect that the landmark crop skips; here the list is
    /// simply empty.
    public func regionsOfInterest(for detections: [Detection], imageWidth: Int, imageHeight: Int) -> [NormalizedRect] {
        detections.compactMap { d in
            rectConversion.rect(for: d, imageWidth: imageWidth, imageHeight: imageHeight)
                .map { roiTransformation.apply(to: $0, imageWidth: imageWidth, imageHeight: imageHeight) }
        }
    }
}
