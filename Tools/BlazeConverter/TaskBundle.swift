import Foundation
import ZIPFoundation

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

    /// Reads every `.tflite` entry of the bundle at `url`, in archive order.
    public init(url: URL) throws {
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw ConverterError.bundle("\(url.path) is not a readable zip archive: \(error)")
        }
        var entries: [Entry] = []
        for entry in archive where entry.type == .file && entry.path.lowercased().hasSuffix(".tflite") {
            var data = Data()
            do {
                _ = try archive.extract(entry, skipCRC32: false) { data.append($0) }
            } catch {
                throw ConverterError.bundle("cannot extract '\(entry.path)' from \(url.path): \(error)")
            }
            entries.append(Entry(path: entry.path, bytes: [UInt8](data)))
        }
        guard !entries.isEmpty else { throw ConverterError.bundle("\(url.path) holds no .tflite entries") }
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
