import BlazeImage
import BlazeConverter
import BlazeModelFormat
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Resolves a task's `baseOptions.modelAssetPath` to the model files of its roles, the same way for every
/// task (see ``TaskModelRole``).
enum TaskModelLocator {
    /// The model file of each role, by name; warns once on standard error when the options ask for
    /// `Delegate.GPU` (BlazeKit runs on the CPU, with the same results).
    static func locate(_ options: TaskOptions, roles: [TaskModelRole]) throws -> [String: ModelFile] {
        if options.baseOptions.delegate == .GPU {
            let warning = "BlazeKit: baseOptions.delegate is .GPU, but BlazeKit has no GPU delegate; running on the CPU (same results)\n"
            _ = warning.withCString { write(2, $0, strlen($0)) }
        }
        var models: [String: ModelFile] = [:]
        guard let path = options.baseOptions.modelAssetPath else {
            for role in roles { models[role.name] = try role.builtin.load() }
            return models
        }
        guard let isDirectory = fileIsDirectory(atPath: path) else {
            throw TaskError.modelNotFound(path: path, reason: "no such file or directory")
        }
        if isDirectory {
            let dir = URL(fileURLWithPath: path)
            let files = roles.map { dir.appendingPathComponent($0.builtin.fileName).path }
            for p in files where !FileManager.default.fileExists(atPath: p) {
                throw TaskError.modelNotFound(path: path, reason: "the directory has no \(URL(fileURLWithPath: p).lastPathComponent)")
            }
            for (role, file) in zip(roles, files) { models[role.name] = try ModelFile(path: file) }
        } else if path.lowercased().hasSuffix(".task") {
            for role in roles { models[role.name] = try TaskBundleModels.convert(path, entry: role.taskBundleEntry) }
        } else if path.lowercased().hasSuffix(".tflite") {
            for role in roles { models[role.name] = role.isUserReplaceable ? try TaskBundleModels.convertFile(path) : try role.builtin.load() }
        } else {
            for role in roles { models[role.name] = role.isUserReplaceable ? try ModelFile(path: path) : try role.builtin.load() }
        }
        return models
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

    /// A MediaPipe `.tflite` landmark model (e.g. `pose_landmark_heavy.tflite`), converted in memory; its input
    /// range comes from the built-in model of its family (the converter's rule for models it does not list).
    static func convertFile(_ path: String) throws -> ModelFile {
        let url = URL(fileURLWithPath: path)
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try Data(contentsOf: url))
        } catch {
            throw TaskError.modelNotFound(path: path, reason: "cannot be read: \(readFailureDescription(error))")
        }
        let converted = try ModelConverter.convert(ConversionRequest(tflite: bytes, sourceFile: url.lastPathComponent,
                                                                     name: url.deletingPathExtension().lastPathComponent))
        return try ModelFile(bytes: converted.serialized(), name: path)
    }
}

extension Result {
    /// The error of a failure, nil on success.
    var failureError: Failure? {
        if case let .failure(e) = self { return e }
        return nil
    }
}
