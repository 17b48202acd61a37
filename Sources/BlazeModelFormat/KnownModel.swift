/// One of the eleven MediaPipe networks that BlazeKit ships converted, with the facts that the
/// converter, the runtime, `Models/README.md` and the scripts under `Tools/` and `Benchmarks/` share.
///
/// ``all`` is the one place these facts are written down. The converter takes a known model's input
/// range from it, `BuiltinModel` in BlazeKit its file names and `.task` entry, and
/// `Tools/models/builtin_models.json` (what the Python and shell scripts read) is its output
/// (`blaze-convert models --json`); tests compare that file and the table in `Models/README.md` with it.
public struct KnownModel: Codable, Sendable, Hashable {
    /// The model's name, the stem of both its source and its converted file, e.g. `pose_landmark_full`.
    public let name: String
    /// Lowercase hex SHA-256 of the original `.tflite` as Google publishes it.
    public let sourceSHA256: String
    /// The NHWC shape of the image input, e.g. `[1, 256, 256, 3]`.
    public let inputShape: [Int]
    /// The float range `[lo, hi]` that pixel values 0…255 map to (the model's NormalizationOptions:
    /// mean 127.5 and std 127.5 give `[-1, 1]`, mean 0 and std 255 give `[0, 1]`).
    public let inputRange: [Float]
    /// The path of the model's entry in MediaPipe's official `.task` bundles: `pose_detector.tflite`
    /// and `pose_landmarks_detector.tflite` in `pose_landmarker_*.task`, `hand_detector.tflite` and
    /// `hand_landmarks_detector.tflite` in `hand_landmarker.task` (the names `pose_landmarker_graph.cc`
    /// and `hand_landmarker_graph.cc` under `mediapipe/tasks/cc/vision/` look up); for the Holistic
    /// networks, the names `holistic_landmarker_graph.cc` looks up (`face_detector.tflite`,
    /// `face_landmarks_detector.tflite`, `hand_roi_refinement.tflite`). The full and lite variants of a
    /// network, and both face meshes, share their role's entry name.
    public let taskBundleEntry: String

    /// Creates the facts of one model.
    public init(name: String, sourceSHA256: String, inputShape: [Int], inputRange: [Float], taskBundleEntry: String) {
        self.name = name
        self.sourceSHA256 = sourceSHA256
        self.inputShape = inputShape
        self.inputRange = inputRange
        self.taskBundleEntry = taskBundleEntry
    }

    /// A row of ``all``: a square RGB input of `side` × `side` pixels.
    private init(_ name: String, sha256: String, side: Int, range: [Float], entry: String) {
        self.init(name: name, sourceSHA256: sha256, inputShape: [1, side, side, 3], inputRange: range, taskBundleEntry: entry)
    }

    /// The original file name, e.g. `pose_landmark_full.tflite`.
    public var sourceFile: String { name + ".tflite" }
    /// The converted file name, e.g. `pose_landmark_full.bkm`.
    public var fileName: String { name + "." + ModelFileFormat.fileExtension }
    /// ``taskBundleEntry`` without its extension, e.g. `pose_landmarks_detector`: the model name the
    /// converter gives a `.task` entry.
    public var taskBundleEntryName: String {
        taskBundleEntry.hasSuffix(".tflite") ? String(taskBundleEntry.dropLast(".tflite".count)) : taskBundleEntry
    }
    /// The network family the model belongs to: its name without the `_full`/`_lite` variant suffix,
    /// e.g. `pose_landmark`.
    public var family: String {
        for suffix in ["_full", "_lite"] where name.hasSuffix(suffix) { return String(name.dropLast(suffix.count)) }
        return name
    }

    /// The eleven built-in models: the pose and hand networks (detectors before landmark models, pose
    /// before hand), then the networks Holistic adds (face detector, both face meshes, the hand re-crop).
    public static let all: [KnownModel] = [
        KnownModel("pose_detection", sha256: "9ba9dd3d42efaaba86b4ff0122b06f29c4122e756b329d89dca1e297fd8f866c", side: 224, range: [-1, 1], entry: "pose_detector.tflite"),
        KnownModel("pose_landmark_full", sha256: "e9a5c5cb17f736fafd4c2ec1da3b3d331d6edbe8a0d32395855aeb2cdfd64b9f", side: 256, range: [0, 1], entry: "pose_landmarks_detector.tflite"),
        KnownModel("pose_landmark_lite", sha256: "f17bfbecadb61c3be1baa8b8d851cc6619c870a87167b32848ad20db306b9d61", side: 256, range: [0, 1], entry: "pose_landmarks_detector.tflite"),
        KnownModel("palm_detection_full", sha256: "1b14e9422c6ad006cde6581a46c8b90dd573c07ab7f3934b5589e7cea3f89a54", side: 192, range: [0, 1], entry: "hand_detector.tflite"),
        KnownModel("palm_detection_lite", sha256: "e9a4aaddf90dda56a87235303cf00e4c2d3fb28725f68fd88772997dac905c18", side: 192, range: [0, 1], entry: "hand_detector.tflite"),
        KnownModel("hand_landmark_full", sha256: "11c272b891e1a99ab034208e23937a8008388cf11ed2a9d776ed3d01d0ba00e3", side: 224, range: [0, 1], entry: "hand_landmarks_detector.tflite"),
        KnownModel("hand_landmark_lite", sha256: "048edd3645c9bf7397d19a9f6e3a42957d6e414c9bea6598030a2e9b624156e6", side: 224, range: [0, 1], entry: "hand_landmarks_detector.tflite"),
        KnownModel("face_detection_short_range", sha256: "bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8", side: 128, range: [-1, 1], entry: "face_detector.tflite"),
        KnownModel("face_landmark", sha256: "1055cb9d4a9ca8b8c688902a3a5194311138ba256bcc94e336d8373a5f30c814", side: 192, range: [0, 1], entry: "face_landmarks_detector.tflite"),
        KnownModel("face_landmark_with_attention", sha256: "e06a804e0144f9929eda782122916b35d60c697c3c9344013ca2bbe76a6ce2b4", side: 192, range: [0, 1], entry: "face_landmarks_detector.tflite"),
        KnownModel("hand_recrop", sha256: "67d996ce96f9d36fe17d2693022c6da93168026ab2f028f9e2365398d8ac7d5d", side: 256, range: [0, 1], entry: "hand_roi_refinement.tflite"),
    ]

    /// The built-in model called exactly `name`, e.g. `palm_detection_lite`.
    public static func named(_ name: String) -> KnownModel? {
        all.first { $0.name == name }
    }

    /// The first built-in model that `name` stands for: the model of that name, else the first model
    /// whose `.task` entry has that name (`hand_detector` → `palm_detection_full`), else the first
    /// model of a family `name` starts with (`pose_landmark_heavy` → `pose_landmark_full`). Models that
    /// share an entry or a family share their input shape and range.
    public static func matching(_ name: String) -> KnownModel? {
        named(name)
            ?? all.first { $0.taskBundleEntryName == name || $0.taskBundleEntry == name }
            ?? all.first { name.hasPrefix($0.family) }
    }
}
