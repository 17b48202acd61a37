import BlazeKernels
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
    public let network: CroppedNetwork
    public let decoder: HandLandmarkDecoder
    /// Whether the crop keeps the ROI's aspect ratio: the legacy `hand_landmark_cpu.pbtxt` sets
    /// `keep_aspect_ratio`; Tasks leaves it unset (stretch). ROIs are square in pixels.
    public var keepsAspectRatio = false

    /// - Parameter planning: how the session picks among kernels that give the same bits (`RuntimeOptions.planning`).
    /// - Throws: `RuntimeError.modelMismatch` unless the model has the hand landmark outputs
    ///   (`[1,63]`, `[1,1]`, `[1,1]`, `[1,63]`, in that order).
    public init(model: ModelFile, workers: WorkerPool, planning: Planning = .measured) throws {
        network = try CroppedNetwork(model: model, workers: workers, role: "a hand landmark model",
                                     outputs: [[1, 63], [1, 1], [1, 1], [1, 63]], planning: planning)
        var decoder = HandLandmarkDecoder()
        decoder.inputWidth = network.tensorWidth
        decoder.inputHeight = network.tensorHeight
        self.decoder = decoder
    }

    /// One hand's result, or nil when the presence score is not above `presenceThreshold`
    /// (`min_hand_presence_confidence`). Throws `ImageToTensorGeometryError.sentinelRect` for an all-zero
    /// ROI (MediaPipe silently skips those).
    public func landmarks(in image: Image, roi: NormalizedRect, presenceThreshold: Float) throws -> HandLandmarkDecoding? {
        let geometry = try network.run(on: image, rect: roi, keepAspectRatio: keepsAspectRatio, border: .replicate)
        let session = network.session
        let decoding = try decoder.decode(landmarks: session.output(0), presence: session.output(1),
                                          handedness: session.output(2), worldLandmarks: session.output(3),
                                          roi: roi, letterboxPadding: geometry.letterboxPadding)
        return decoding.isHandPresent(threshold: presenceThreshold) ? decoding : nil
    }
}
