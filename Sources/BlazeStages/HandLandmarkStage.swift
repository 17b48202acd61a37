import BlazeImage
import BlazeModelFormat
import BlazeRuntime

/// The hand landmark stage of MediaPipe Tasks' `HandLandmarksDetectorGraph`
/// (`mediapipe/tasks/cc/vision/hand_landmarker/hand_landmarks_detector_graph.cc`): rotated 224×224 crop
/// of the ROI (stretched — `keep_aspect_ratio` unset — border replicate), the landmark network, and
/// `HandLandmarkDecoder`.
///
/// Holds a planned session and its crop buffer; one instance per thread.
public final class HandLandmarkStage {
    public let session: InferenceSession
    public let decoder: HandLandmarkDecoder
    let tensorWidth: Int, tensorHeight: Int
    let valueRange: (min: Float, max: Float)
    private var crop: [UInt8]

    /// - Throws: `RuntimeError.modelMismatch` unless the model has the hand landmark outputs
    ///   (`[1,63]`, `[1,1]`, `[1,1]`, `[1,63]`, in that order).
    public init(model: ModelFile, threadCount: Int) throws {
        session = try InferenceSession(model: model, options: RuntimeOptions(threadCount: threadCount))
        let input = model.metadata.input
        let outputs = session.outputDescriptions.map(\.shape)
        guard input.shape.count == 4, input.shape[3] == 3, input.valueRange.count == 2,
              outputs == [[1, 63], [1, 1], [1, 1], [1, 63]] else {
            throw RuntimeError.modelMismatch(model: model.path,
                reason: "expected a hand landmark model (outputs [1,63], [1,1], [1,1], [1,63]), found input \(input.shape), outputs \(outputs)")
        }
        tensorHeight = input.shape[1]
        tensorWidth = input.shape[2]
        valueRange = (input.valueRange[0], input.valueRange[1])
        var decoder = HandLandmarkDecoder()
        decoder.inputWidth = tensorWidth
        decoder.inputHeight = tensorHeight
        self.decoder = decoder
        crop = [UInt8](repeating: 0, count: tensorWidth * tensorHeight * 3)
    }

    /// One hand's result, or nil when the presence score is not above `presenceThreshold`
    /// (`min_hand_presence_confidence`). Throws `ImageToTensorGeometryError.sentinelRect` for an all-zero
    /// ROI (MediaPipe silently skips those).
    public func landmarks(in image: Image, roi: NormalizedRect, presenceThreshold: Float) throws -> HandLandmarkDecoding? {
        let geometry = try ImageToTensorGeometry(rect: roi, imageWidth: image.width, imageHeight: image.height,
                                                 tensorWidth: tensorWidth, tensorHeight: tensorHeight, keepAspectRatio: false)
        try CropSampler.sample(image, geometry: geometry, border: .replicate, into: &crop, tensor: session.input, valueRange: valueRange)
        session.run()
        let decoding = try decoder.decode(landmarks: session.output(0), presence: session.output(1),
                                          handedness: session.output(2), worldLandmarks: session.output(3),
                                          roi: roi, letterboxPadding: geometry.letterboxPadding)
        return decoding.isHandPresent(threshold: presenceThreshold) ? decoding : nil
    }
}
