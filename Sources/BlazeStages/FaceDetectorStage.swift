import BlazeImage
import BlazeKernels
import BlazeModelFormat
import BlazeRuntime

/// BlazeFace short range inside a region (`mediapipe/modules/face_detection/face_detection_short_range_by_roi_cpu.pbtxt`
/// over `face_detection.pbtxt`): the region letterboxed into 128×128 with a zero border, values in [−1, 1], SSD
/// decoding (896 anchors, 6 keypoints), weighted NMS at IoU 0.3, and the survivors projected through the crop
/// `MATRIX` back to the image (`DetectionProjectionCalculator`). The legacy Holistic graph runs it in the face
/// region it derives from the pose.
///
/// Holds a planned session and its crop buffer; one instance per thread.
public final class FaceDetectorStage {
    public let network: CroppedNetwork
    /// `min_suppression_threshold` of the weighted NMS: 0.3 in `face_detection.pbtxt`.
    public var nmsThreshold: Float = 0.3
    let anchors: [Anchor]

    /// - Parameter planning: how the session picks among kernels that give the same bits (`RuntimeOptions.planning`).
    /// - Throws: `RuntimeError.modelMismatch` unless the model has BlazeFace short range's outputs
    ///   (`[1,896,16]` boxes and `[1,896,1]` scores).
    public init(model: ModelFile, workers: WorkerPool, planning: Planning = .measured) throws {
        network = try CroppedNetwork(model: model, workers: workers, role: "a face detector (face_detection_short_range)",
                                     outputs: [[1, 896, 16], [1, 896, 1]], planning: planning)
        var options = SSDAnchorOptions.faceDetectionShortRange
        options.inputSizeWidth = network.tensorWidth
        options.inputSizeHeight = network.tensorHeight
        anchors = SSDAnchorGenerator.anchors(for: options)
    }

    /// Face detections in image-normalized coordinates, highest score first (NMS order), found inside `roi`.
    /// `minScore` is `min_score_thresh` (0.5 in the graph).
    public func detect(in image: Image, roi: NormalizedRect, minScore: Float) throws -> [Detection] {
        let geometry = try network.run(on: image, rect: roi, keepAspectRatio: true, border: .zero)
        let raw = try DetectionDecoder.faceDetectionShortRange(minScore: minScore)
            .decode(rawBoxes: network.session.output(0), rawScores: network.session.output(1), anchors: anchors)
        return NonMaxSuppression.weighted(raw, iouThreshold: nmsThreshold).map { geometry.projectToImage($0) }
    }
}

extension SSDAnchorOptions {
    /// BlazeFace short range's anchors (`face_detection_short_range.pbtxt` over `face_detection.pbtxt`): 128×128,
    /// scales 0.1484375…0.75, strides 8, 16, 16, 16, aspect ratio 1, interpolated ratio 1, fixed size → 896.
    public static let faceDetectionShortRange = SSDAnchorOptions(
        inputSizeWidth: 128, inputSizeHeight: 128, minScale: 0.1484375, maxScale: 0.75,
        anchorOffsetX: 0.5, anchorOffsetY: 0.5, strides: [8, 16, 16, 16], aspectRatios: [1.0], fixedAnchorSize: true,
        interpolatedScaleAspectRatio: 1.0)
}

extension DetectionDecoder {
    /// BlazeFace short range's decoding (`face_detection.pbtxt`, `face_detection_short_range.pbtxt`): 896 boxes ×
    /// 16 coords, XYWH, 6 keypoints, scales 128, sigmoid with clipping ±100.
    public static func faceDetectionShortRange(minScore: Float = 0.5) -> DetectionDecoder {
        DetectionDecoder(numBoxes: 896, numCoords: 16, numClasses: 1, boxCoordOffset: 0,
                         keypointCoordOffset: 4, numKeypoints: 6, numValuesPerKeypoint: 2,
                         xScale: 128, yScale: 128, wScale: 128, hScale: 128,
                         reverseOutputOrder: true, sigmoidScore: true,
                         scoreClippingThreshold: 100, minScoreThreshold: minScore)
    }
}
