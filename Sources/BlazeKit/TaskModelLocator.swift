import BlazeImage
import BlazeConverter
import BlazeModelFormat
import Foundation

/// Resolves a task's `baseOptions.modelAssetPath` to its detector and landmark model files, the
/// same way for every landmarker:
/// - nil: the built-in models;
/// - a directory: the built-in file names inside it;
/// - an official MediaPipe Tasks `.task` bundle: its two entries, converted in memory;
/// - any other file: a converted landmark model, used with the built-in detector.
enum TaskModelLocator {
    /// The two model files for `options.baseOptions`; warns once on standard error when the options ask
    /// for `Delegate.GPU` (BlazeKit runs on the CPU, with the same results).
    static func locate(_ options: TaskOptions, detector: BuiltinModel, landmarks: BuiltinModel) throws -> (detector: ModelFile, landmarks: ModelFile) {
        if options.baseOptions.delegate == .GPU {
            FileHandle.standardError.write(Data(("BlazeKit: baseOptions.delegate is .GPU, but BlazeKit has no GPU delegate; "
                + "running on the CPU (same results)\n").utf8))
        }
        guard let path = options.baseOptions.modelAssetPath else { return (try detector.load(), try landmarks.load()) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw TaskError.modelNotFound(path: path, reason: "no such file or directory")
        }
        if isDirectory.boolValue {
            let dir = URL(fileURLWithPath: path)
            let files = [detector, landmarks].map { dir.appendingPathComponent($0.fileName).path }
            for p in files where !FileManager.default.fileExists(atPath: p) {
                throw TaskError.modelNotFound(path: path, reason: "the directory has no \(URL(fileURLWithPath: p).lastPathComponent)")
            }
            return (try ModelFile(path: files[0]), try ModelFile(path: files[1]))
        }
        if path.lowercased().hasSuffix(".task") {
            return (try TaskBundleModels.convert(path, entry: detector.taskBundleEntryName),
                    try TaskBundleModels.convert(path, entry: landmarks.taskBundleEntryName))
        }
        return (try detector.load(), try ModelFile(path: path))
    }
}

/// Checks shared by the landmark tasks: option ranges, running modes and image orientation.
enum TaskOptionChecks {
    /// Throws ``TaskError/runningModeMismatch(method:expected:actual:)`` unless `actual == expected`.
    static func mode(_ actual: RunningMode, _ expected: RunningMode, method: String) throws {
        guard actual == expected else { throw TaskError.runningModeMismatch(method: method, expected: expected, actual: actual) }
    }

    /// The image as displayed: pixels turned upright for `.down`, `.left` and `.right`, so results come out
    /// normalized to the displayed image, as iOS reports them for a `UIImage` with that orientation.
    /// Mirrored orientations throw ``TaskError/unsupportedOrientation(_:)``, as MediaPipe does.
    static func displayed(_ image: Image) throws -> Image {
        if image.orientation == .up { return image }
        guard !image.orientation.isMirrored else { throw TaskError.unsupportedOrientation(image.orientation) }
        return try image.oriented()
    }
}

/// Reads an official MediaPipe Tasks `.task` bundle (a zip of `.tflite` files) by converting the
/// named entry in memory with the same converter as `blaze-convert`.
enum TaskBundleModels {
    static func convert(_ path: String, entry: String) throws -> ModelFile {
        let bundle: TaskBundle
        do {
            bundle = try TaskBundle(url: URL(fileURLWithPath: path))
        } catch {
            throw TaskError.modelNotFound(path: path, reason: "not a readable .task bundle: \(error)")
        }
        guard let found = try? bundle.select(entry).first else {
            throw TaskError.modelNotFound(path: path,
                reason: "the bundle has no \(entry).tflite; it holds \(bundle.entries.map(\.path).joined(separator: ", "))")
        }
        let converted = try ModelConverter.convert(ConversionRequest(
            tflite: found.bytes, sourceFile: found.path, name: entry,
            properties: ["task.bundle": URL(fileURLWithPath: path).lastPathComponent, "task.entry": found.path]))
        return try ModelFile(bytes: converted.serialized(), name: "\(path):\(found.path)")
    }
}

extension Result {
    /// The error of a failure, nil on success.
    var failureError: Failure? {
        if case let .failure(e) = self { return e }
        return nil
    }
}
