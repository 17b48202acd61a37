// Where a landmarker's networks come from: the built-in models next to the library, a bundle, a directory, or
// one converted landmark model (a path or a buffer) paired with the built-in networks.
import BlazeConverter
import BlazeKit
import CBlazeKit
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Models

/// The file names of a task's networks, as the built-in models and model directories name them: the landmark
/// network a caller may replace with a single model, and the built-in networks that run with it.
struct ModelNames {
    var landmarks: String
    var builtins: [String]

    init(landmarks: String, builtins: [String]) { (self.landmarks, self.builtins) = (landmarks, builtins) }

    /// A task's roles: the one a caller may replace, the others built in.
    init(roles: [TaskModelRole]) {
        landmarks = roles.first(where: \.isUserReplaceable)?.builtin.fileName ?? ""
        builtins = roles.filter { !$0.isUserReplaceable }.map(\.builtin.fileName)
    }
}

/// The directory holding the built-in converted models, found next to this library (the package's
/// resource bundle sits beside libblazekit.so in the build folder; the Python wheel puts it there too), or
/// next to the executable. Resolved here rather than through BlazeKit's resource lookup, which stops the
/// process when the bundle is missing (a library copied elsewhere).
private let builtinModelDirectory: String? = {
    var candidates: [String] = []
    if let name = blazekit_internal_library_path() {
        candidates.append(URL(fileURLWithPath: String(cString: name)).deletingLastPathComponent().path)
    }
    var executable = [CChar](repeating: 0, count: Int(PATH_MAX))
    let length = readlink("/proc/self/exe", &executable, executable.count)
    if length > 0 {
        let path = String(decoding: executable[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        candidates.append(URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }
    for dir in candidates {
        let bkm = "\(dir)/BlazeKit_BlazeModels.resources/bkm"
        if FileManager.default.fileExists(atPath: "\(bkm)/pose_detection.bkm") { return bkm }
    }
    return nil
}()

/// The model named by the C options, as a path BlazeKit's task API takes without looking for its own
/// resources: a `.task` bundle or a directory as given; the built-in models' directory; or, for a single
/// landmark model (a converted model as a path or a buffer, or a MediaPipe `.tflite` path, converted into a
/// private temporary file), a private temporary directory linking it and the other
/// built-in networks of the task under their built-in names. A buffer is first written to a private temporary file. Whatever was
/// made is removed once the landmarker is created (a converted model stays mapped; a bundle is read in full).
final class ModelSource {
    private(set) var path: String = ""
    private var temporaryFiles: [String] = []
    private var temporaryDirectory: String?
    /// What error messages call the model: the caller's path, or `<model_asset_buffer>`.
    private var shownName: String?

    init(path given: UnsafePointer<CChar>?, buffer: UnsafeRawPointer?, size: Int, names: ModelNames) throws {
        do {
            try resolve(path: given.map { String(cString: $0) }, buffer: buffer, size: size, names: names)
        } catch {
            cleanUp()
            throw error
        }
    }

    private func resolve(path given: String?, buffer: UnsafeRawPointer?, size: Int, names: ModelNames) throws {
        var landmarkFile: String
        if let buffer {
            guard size > 0 else { throw option("model_asset_buffer_size", expected: "> 0 with a model_asset_buffer", found: "0") }
            guard size <= 1 << 31 else {
                throw option("model_asset_buffer_size", expected: "at most \(1 << 31) bytes", found: "\(size)")
            }
            let bytes = UnsafeRawBufferPointer(start: buffer, count: size)
            let isZip = size >= 4 && bytes[0] == 0x50 && bytes[1] == 0x4B && bytes[2] == 3 && bytes[3] == 4
            let file = try writeTemporary(bytes, suffix: isZip ? ".task" : ".bkm")
            shownName = "<model_asset_buffer>"
            if isZip { path = file; return }
            landmarkFile = file
        } else if size != 0 {
            throw option("model_asset_buffer", expected: "a buffer when model_asset_buffer_size is \(size)", found: "NULL")
        } else if let given {
            guard let isDirectory = fileIsDirectory(atPath: given) else {
                throw CFailure(BLAZEKIT_ERROR_MODEL, "model \(given): no such file or directory")
            }
            path = given
            if isDirectory || given.lowercased().hasSuffix(".task") { return }
            shownName = given
            landmarkFile = given.lowercased().hasSuffix(".tflite") ? try converted(given) : given
        } else {
            guard let builtin = builtinModelDirectory else { throw Self.noBuiltins() }
            path = builtin
            return
        }
        // A single converted landmark model: pair it with the built-in detector in a directory of links.
        guard let builtin = builtinModelDirectory else { throw Self.noBuiltins() }
        var template = Array("\(Self.temporaryRoot)/blazekit-models-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw CFailure(BLAZEKIT_ERROR_MODEL, "cannot create a temporary directory in \(Self.temporaryRoot): \(String(cString: strerror(errno)))")
        }
        let dir = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        temporaryDirectory = dir
        if !landmarkFile.hasPrefix("/") { landmarkFile = FileManager.default.currentDirectoryPath + "/" + landmarkFile }
        for (target, name) in names.builtins.map({ ("\(builtin)/\($0)", $0) }) + [(landmarkFile, names.landmarks)] {
            guard symlink(target, "\(dir)/\(name)") == 0 else {
                throw CFailure(BLAZEKIT_ERROR_MODEL, "cannot link \(name) in \(dir): \(String(cString: strerror(errno)))")
            }
            temporaryFiles.append("\(dir)/\(name)")
        }
        path = dir
    }

    private static func noBuiltins() -> CFailure {
        CFailure(BLAZEKIT_ERROR_MODEL, "the built-in models were not found (BlazeKit_BlazeModels.resources/bkm next to libblazekit.so); "
                 + "give model_asset_path or model_asset_buffer a MediaPipe .task bundle or a directory of converted models")
    }

    private static var temporaryRoot: String {
        ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// A MediaPipe `.tflite` landmark model (e.g. `pose_landmark_heavy.tflite`) converted as BlazeKit's task API
    /// converts one (its input range from the built-in model of its family), in a private temporary `.bkm`.
    private func converted(_ file: String) throws -> String {
        let name = URL(fileURLWithPath: file).lastPathComponent
        let bytes: [UInt8]
        do {
            guard let data = FileManager.default.contents(atPath: file) else { throw CFailure(BLAZEKIT_ERROR_MODEL, "cannot be read") }
            bytes = try ModelConverter.convert(ConversionRequest(tflite: [UInt8](data), sourceFile: name,
                                                                 name: URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent)).serialized()
        } catch {
            throw CFailure(BLAZEKIT_ERROR_MODEL, "model \(file): cannot be converted: \((error as? CFailure)?.message ?? "\(error)")")
        }
        return try bytes.withUnsafeBytes { try writeTemporary($0, suffix: ".bkm", for: "model_asset_path") }
    }

    private func writeTemporary(_ bytes: UnsafeRawBufferPointer, suffix: String, for what: String = "model_asset_buffer") throws -> String {
        let dir = Self.temporaryRoot
        var template = Array("\(dir)/blazekit-model-XXXXXX\(suffix)".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, Int32(suffix.utf8.count)) }
        guard fd >= 0 else {
            throw CFailure(BLAZEKIT_ERROR_MODEL, "\(what): cannot create a temporary file in \(dir): \(String(cString: strerror(errno)))")
        }
        let file = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        temporaryFiles.append(file)
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw CFailure(BLAZEKIT_ERROR_MODEL, "\(what): cannot write a temporary copy in \(dir): \(String(cString: strerror(errno)))")
            }
            offset += n
        }
        return file
    }

    /// Removes what was made (links first, then the directory).
    func cleanUp() {
        for file in temporaryFiles.reversed() { unlink(file) }
        temporaryFiles = []
        if let temporaryDirectory { rmdir(temporaryDirectory) }
        temporaryDirectory = nil
    }

    /// `message` with temporary names replaced by what the caller gave.
    func describe(_ message: String) -> String {
        guard let shownName else { return message }
        var message = message
        if let temporaryDirectory { message = message.replacing(temporaryDirectory, with: shownName) }
        for file in temporaryFiles { message = message.replacing(file, with: shownName) }
        return message
    }
}
