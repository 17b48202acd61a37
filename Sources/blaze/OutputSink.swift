import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where one input's JSON lines go: standard output, or with `--output-dir` a file written under a
/// temporary name and renamed into place when the input is done, so a file that exists is complete.
/// Every line is written with one `write(2)` as soon as it is made: a killed run keeps what it wrote.
final class OutputSink: @unchecked Sendable {   // immutable; the CLI writes from one thread
    private let handle: FileHandle
    private let temporaryPath: String?
    private let finalPath: String?

    static let standardOutput = OutputSink()

    private init() {
        handle = FileHandle.standardOutput
        temporaryPath = nil
        finalPath = nil
    }

    /// A sink for `path`, written as `.<name>.partial` beside it until ``commit()``.
    init(atomicFileAt path: String) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial").path
        // open(2) rather than FileManager.createFile, which writes through a temporary `.dat.nosync…` file of
        // its own that a killed run would leave behind.
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CLIError.cannotWrite(path: temporary, reason: String(cString: strerror(errno)))
        }
        self.handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        temporaryPath = temporary
        finalPath = path
    }

    /// Writes `value` as one JSON line (keys sorted, so output is byte-for-byte reproducible).
    func write<T: Encodable>(_ value: T) throws {
        try handle.write(contentsOf: Self.line(value))
    }

    /// Writes bytes already laid out as lines (a table's header or rows).
    func write(bytes: [UInt8]) throws {
        try handle.write(contentsOf: bytes)
    }

    /// `value`'s JSON line, newline included: written directly for a ``JSONLine``, else by `JSONEncoder`
    /// (also for a line with a non-finite float, which `JSONEncoder` refuses in its own words).
    static func line<T: Encodable>(_ value: T) throws -> [UInt8] {
        if let record = value as? any JSONLine {
            var json = JSONBytes()
            do {
                try record.write(to: &json)
                json.endLine()
                return json.bytes
            } catch is JSONBytes.NonFinite {}
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try encoder.encode(value)) + [0x0A]
    }

    /// Closes a file sink and renames it into place (nothing for standard output).
    func commit() throws {
        guard let temporaryPath, let finalPath else { return }
        try handle.close()
        guard rename(temporaryPath, finalPath) == 0 else {
            throw CLIError.cannotWrite(path: finalPath, reason: String(cString: strerror(errno)))
        }
    }
}

enum CLIError: Error, CustomStringConvertible {
    case cannotWrite(path: String, reason: String)
    case notMedia(path: String, looksLike: String, detail: String?)
    case notForThisCommand(path: String, reason: String)

    var description: String {
        switch self {
        case let .cannotWrite(path, reason): return "\(path): cannot write: \(reason)"
        case let .notMedia(path, looksLike, detail):
            return "\(path): neither an image (PNG, JPEG) nor a video BlazeKit can read: it looks like \(looksLike)"
                + (detail.map { " (\($0))" } ?? "")
        case let .notForThisCommand(path, reason): return "\(path): \(reason)"
        }
    }
}

/// Progress on standard error, only when it is a terminal and `--quiet` is not given: inputs done of
/// total, and within a video frames done of total, frames per second and the time left.
final class ProgressLine {
    let enabled: Bool
    private var start = Date()
    private var lastDraw = Date.distantPast

    init(quiet: Bool) {
        enabled = !quiet && isatty(STDERR_FILENO) != 0
    }

    /// Starts timing a new item (an input, or a video's frames).
    func restart() { start = Date() }

    /// Redraws at most 10 times a second (and always for the last item).
    func update(done: Int, total: Int?, label: String, unit: String) {
        guard enabled else { return }
        let now = Date()
        let last = total.map { done >= $0 } ?? false
        guard last || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let elapsed = max(now.timeIntervalSince(start), 1e-6)
        let rate = Double(done) / elapsed
        var text = "\(label): \(done)"
        if let total { text += "/\(total)" }
        text += " \(unit)"
        if done > 0 { text += String(format: ", %.1f/s", rate) }
        if let total, done > 0, done < total, rate > 0 { text += ", ETA " + Self.duration(Double(total - done) / rate) }
        FileHandle.standardError.write("\r\u{1B}[K\(text)".data(using: .utf8)!)
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write("\r\u{1B}[K".data(using: .utf8)!)
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }
}

/// A message on standard error.
func warn(_ message: String) {
    FileHandle.standardError.write("warning: \(message)\n".data(using: .utf8)!)
}
