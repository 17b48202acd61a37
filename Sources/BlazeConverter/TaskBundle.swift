#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A MediaPipe `.task` bundle: a zip archive holding one or more `.tflite` models.
public struct TaskBundle {
    /// One `.tflite` entry: its path inside the archive and its bytes.
    public struct Entry: Sendable {
        public var path: String
        public var bytes: [UInt8]
        /// The entry's file stem, used as the model name.
        public var name: String { ModelConverter.fileStem(path) }
    }

    public let entries: [Entry]

    /// Largest bundle file read (`.task` bundles are tens of megabytes).
    public static let maxFileBytes = 1 << 30

    /// Reads every `.tflite` entry of the bundle at `url`, in archive order.
    ///
    /// - Throws: ``ConverterError/bundle(_:)`` naming the file (and entry) at fault: unreadable, larger than
    ///   ``maxFileBytes``, not a zip, no `.tflite` entry, or an entry that fails ``init(bytes:name:)``'s checks.
    public init(url: URL) throws {
        guard let size = itemSize(atPath: url.path) else { throw ConverterError.bundle("\(url.path) cannot be read") }
        guard size <= TaskBundle.maxFileBytes else {
            throw ConverterError.bundle("\(url.path) is \(size) bytes, more than the \(TaskBundle.maxFileBytes) a bundle may have")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ConverterError.bundle("\(url.path) cannot be read: \(readFailureDescription(error))")
        }
        try self.init(bytes: [UInt8](data), name: url.path)
    }

    /// Reads every `.tflite` entry of a bundle held in memory; `name` stands for the file in errors.
    ///
    /// Entries are inflated from their own compressed bytes only, into at most their declared size (at
    /// most 512 MiB each and 1 GiB in all), with their CRC-32 checked: a truncated or corrupt stream, one
    /// that inflates beyond its declared size (a zip bomb) or declared sizes beyond the caps are errors
    /// before the memory is spent.
    public init(bytes: [UInt8], name: String) throws {
        let archive = try ZipArchive(bytes: bytes, name: name)
        let models = archive.entries.filter { !$0.isDirectory && $0.path.lowercased().hasSuffix(".tflite") }
        // Every declared size is checked before the first entry is inflated.
        var total = 0
        for entry in models {
            total = total.addingReportingOverflow(entry.uncompressedSize).partialValue
            guard total >= 0, total <= archive.limits.totalBytes else {
                throw ConverterError.bundle("\(name): its .tflite entries declare more than \(archive.limits.totalBytes) bytes in all")
            }
        }
        let entries = try models.map { Entry(path: $0.path, bytes: try archive.extract($0)) }
        guard !entries.isEmpty else { throw ConverterError.bundle("\(name) holds no .tflite entries") }
        self.entries = entries
    }

    /// The entries to convert: all of them, or the one whose stem or path is `name`.
    public func select(_ name: String?) throws -> [Entry] {
        guard let name else { return entries }
        let matches = entries.filter { $0.name == name || $0.path == name || ModelConverter.fileStem($0.path) == ModelConverter.fileStem(name) }
        guard let first = matches.first else {
            throw ConverterError.bundle("no entry '\(name)'; the bundle holds \(entries.map(\.path).joined(separator: ", "))")
        }
        return [first]
    }
}
