import BlazeModelFormat
import BlazeModels
import BlazeRuntime
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The eleven MediaPipe networks that ship with BlazeKit, converted from MediaPipe 0.10.14's
/// `.tflite` files (see `Models/README.md` for provenance). Their facts (source hash, input shape and
/// range, `.task` entry) live in `KnownModel.all` (BlazeModelFormat), shared with the converter.
public enum BuiltinModel: String, CaseIterable, Sendable, Codable {
    /// BlazePose's person detector (224×224 input), used by both pose landmark models.
    case poseDetection = "pose_detection"
    /// BlazePose GHUM full: 33 landmarks, world landmarks and a person mask (256×256 input).
    case poseLandmarkFull = "pose_landmark_full"
    /// BlazePose GHUM lite: the same outputs for about half the compute.
    case poseLandmarkLite = "pose_landmark_lite"
    /// BlazePalm full (192×192 input), the palm detector of the full hand models.
    case palmDetectionFull = "palm_detection_full"
    /// BlazePalm lite, the palm detector of the lite hand models.
    case palmDetectionLite = "palm_detection_lite"
    /// The full hand landmark model: 21 landmarks, world landmarks, presence and handedness (224×224 input).
    case handLandmarkFull = "hand_landmark_full"
    /// The lite hand landmark model: the same outputs, smaller network.
    case handLandmarkLite = "hand_landmark_lite"
    /// BlazeFace short range (128×128 input): face boxes and six keypoints, Holistic's face detector.
    case faceDetectionShortRange = "face_detection_short_range"
    /// The face mesh: 468 landmarks and a face score (192×192 input).
    case faceLandmark = "face_landmark"
    /// The face mesh with attention: the 468 landmarks with refined lips and eyes, and 10 iris points.
    case faceLandmarkWithAttention = "face_landmark_with_attention"
    /// Holistic's hand re-crop network: from a 256×256 crop around a hand, two points that place its box.
    case handRecrop = "hand_recrop"

    /// The model's entry in the shared facts table: source file and SHA-256, input shape and range,
    /// `.task` entry.
    public var facts: KnownModel {
        guard let facts = KnownModel.named(rawValue) else {
            preconditionFailure("BuiltinModel.\(self): no KnownModel named '\(rawValue)' in KnownModel.all")
        }
        return facts
    }

    /// The file name inside the package's model resources, e.g. `pose_landmark_full.bkm`.
    public var fileName: String { facts.fileName }

    /// The name of this model's entry in MediaPipe's official `.task` bundles, without `.tflite`:
    /// `pose_detector`, `pose_landmarks_detector`, `hand_detector`, `hand_landmarks_detector`, `face_detector`,
    /// `face_landmarks_detector` or `hand_roi_refinement`.
    public var taskBundleEntryName: String { facts.taskBundleEntryName }

    /// Where the built-in file lives, found through the package's resource bundle with no configuration.
    public var url: URL {
        get throws {
            guard let dir = BuiltinModels.directory else {
                throw RuntimeError.modelMismatch(model: rawValue, reason: "the BlazeKit model resources were not found next to this executable")
            }
            let url = dir.appendingPathComponent(fileName)
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw RuntimeError.modelMismatch(model: rawValue, reason: "built-in model file missing at \(url.path)")
            }
            return url
        }
    }

    /// Maps and validates the built-in model file.
    public func load() throws -> ModelFile { try ModelFile(path: url.path) }

    /// A planned session for the built-in model.
    public func session(options: RuntimeOptions = RuntimeOptions()) throws -> InferenceSession {
        try InferenceSession(model: load(), options: options)
    }
}
