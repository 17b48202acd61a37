@_exported import BlazeModelFormat
@_exported import BlazeRuntime
@_exported import BlazeImage
@_exported import BlazeStages
@_exported import BlazeTracking
import BlazeModels
import Foundation

/// The seven Blaze networks that ship with BlazeKit, converted from MediaPipe 0.10.14's
/// `.tflite` files (see `Models/README.md` for provenance).
public enum BuiltinModel: String, CaseIterable, Sendable, Codable {
    case poseDetection = "pose_detection"
    case poseLandmarkFull = "pose_landmark_full"
    case poseLandmarkLite = "pose_landmark_lite"
    case palmDetectionFull = "palm_detection_full"
    case palmDetectionLite = "palm_detection_lite"
    case handLandmarkFull = "hand_landmark_full"
    case handLandmarkLite = "hand_landmark_lite"

    /// The file name inside the package's model resources, e.g. `pose_landmark_full.bkm`.
    public var fileName: String { rawValue + "." + ModelFileFormat.fileExtension }

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
