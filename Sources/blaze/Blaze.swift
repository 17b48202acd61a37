import ArgumentParser
import BlazeKit
import Foundation

@main
struct Blaze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blaze",
        abstract: "Pose and hand landmarks from photos and videos, as MediaPipe Tasks computes them (and body joints as Vision reports them).",
        subcommands: [PoseCommand.self, HandCommand.self, BodyCommand.self])
}

/// Options every landmark subcommand shares: where frames come from and how they are timed.
struct InputOptions: ParsableArguments {
    @Argument(help: "PNG files, or directories of them (searched one level deep, in name order).")
    var inputs: [String] = []

    @Option(help: "Threads per inference (1...64).")
    var threads = 1

    @Flag(help: "Treat the inputs as the frames of one video, in order: track from frame to frame (needs --fps).")
    var video = false

    @Option(help: "Frame rate of --video input; frame i gets the timestamp round(i·1000/fps) ms.")
    var fps: Double?

    @Option(help: ArgumentHelp("Read raw RGB24 frames of this size from standard input instead of PNG files.",
                               valueName: "WIDTHxHEIGHT"))
    var raw: String?

    mutating func validate() throws {
        if video {
            guard let fps else { throw ValidationError("--video needs --fps") }
            guard fps.isFinite, fps > 0 else { throw ValidationError("--fps must be a positive number, got \(fps)") }
        } else if fps != nil {
            throw ValidationError("--fps is only used with --video")
        }
        if raw != nil {
            _ = try rawSize()
            guard inputs.isEmpty else { throw ValidationError("--raw reads standard input; do not also name input files") }
        } else if inputs.isEmpty {
            throw ValidationError("name at least one PNG file or directory, or use --raw WIDTHxHEIGHT")
        }
    }

    /// The `--raw` frame size.
    func rawSize() throws -> (width: Int, height: Int) {
        let parts = (raw ?? "").lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= 16384, h <= 16384 else {
            throw ValidationError("--raw expects WIDTHxHEIGHT with sides in 1...16384, got '\(raw ?? "")'")
        }
        return (w, h)
    }

    /// The timestamp of frame `index` in video mode: round(index·1000/fps) ms.
    func timestamp(ofFrame index: Int) -> Int? {
        guard video, let fps else { return nil }
        return Int((Double(index) * 1000 / fps).rounded())
    }

    /// Decodes each input in order and calls `body(image, fileName, stem, timestampMs)`, with a
    /// timestamp in video mode. An input that fails (unreadable file, corrupt PNG, truncated raw frame,
    /// or an error from `body`) gets an error record and the run goes on. Ends with exit status 1 when
    /// any input failed.
    func forEachImage(_ body: (Image, String, String, Int?) throws -> Void) throws {
        var failed = false
        func handle(_ index: Int, _ name: String, _ load: () throws -> Image) throws {
            let stem = URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent
            do {
                try body(try load(), name, stem, timestamp(ofFrame: index))
            } catch {
                failed = true
                try JSONLines.write(ErrorRecord(image: name, error: "\(error)"))
            }
        }
        if raw != nil {
            let (w, h) = try rawSize()
            let frameBytes = w * h * 3
            let progress = Progress(total: nil)
            var index = 0
            while true {
                let data = readStandardInput(count: frameBytes)
                if data.isEmpty { break }
                let name = String(format: "frame_%05d", index)
                try handle(index, name) {
                    guard data.count == frameBytes else {
                        throw RawInputError.truncatedFrame(index: index, expected: frameBytes, actual: data.count)
                    }
                    return try Image(rgb: [UInt8](data), width: w, height: h)
                }
                index += 1
                progress.update(index, name)
                if data.count < frameBytes { break }
            }
            progress.finish()
        } else {
            let files = try self.files()
            let progress = Progress(total: files.count)
            for (i, file) in files.enumerated() {
                let name = URL(fileURLWithPath: file).lastPathComponent
                try handle(i, name) { try Image(contentsOfPNGFile: file) }
                progress.update(i + 1, name)
            }
            progress.finish()
        }
        if failed { throw ExitCode(1) }
    }

    /// Up to `count` bytes from standard input; fewer only at its end.
    private func readStandardInput(count: Int) -> Data {
        var data = Data()
        while data.count < count {
            let chunk = FileHandle.standardInput.readData(ofLength: count - data.count)
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        return data
    }

    /// In video mode, one stderr line saying how often the detector ran.
    func reportTracking(_ statistics: (frames: Int, detectorRuns: Int), detector: String) {
        guard video else { return }
        FileHandle.standardError.write("tracking: \(statistics.frames) frames, \(detector) ran on \(statistics.detectorRuns)\n".data(using: .utf8)!)
    }

    /// The PNG files named by `inputs`, in order; directories expand to their `.png` entries sorted by name.
    func files() throws -> [String] {
        var files: [String] = []
        for path in inputs {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: path)
                    .filter { $0.lowercased().hasSuffix(".png") }.sorted()
                files += names.map { URL(fileURLWithPath: path).appendingPathComponent($0).path }
            } else {
                files.append(path)
            }
        }
        return files
    }
}

enum RawInputError: Error, CustomStringConvertible {
    case truncatedFrame(index: Int, expected: Int, actual: Int)

    var description: String {
        switch self {
        case let .truncatedFrame(index, expected, actual):
            return "raw frame \(index) is truncated: expected \(expected) bytes (WIDTH·HEIGHT·3), standard input ended after \(actual)"
        }
    }
}

/// Progress on stderr, only when stderr is a terminal.
struct Progress {
    /// The number of inputs, when known (nil for a raw stream).
    let total: Int?
    let enabled = isatty(STDERR_FILENO) != 0

    func update(_ done: Int, _ name: String) {
        guard enabled, total.map({ $0 > 1 }) ?? true else { return }
        let count = total.map { "\(done)/\($0)" } ?? "\(done)"
        FileHandle.standardError.write("\r\u{1B}[K[\(count)] \(name)".data(using: .utf8)!)
    }

    func finish() {
        guard enabled, total.map({ $0 > 1 }) ?? true else { return }
        FileHandle.standardError.write("\n".data(using: .utf8)!)
    }
}
/// Writes one JSON object per line to stdout, keys in a stable order.
enum JSONLines {
    static func write<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(0x0A)
        FileHandle.standardOutput.write(data)
    }
}

/// Creates a task, or prints why it cannot be created and exits with status 2.
func makeTask<T>(_ make: () throws -> T) throws -> T {
    do {
        return try make()
    } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        throw ExitCode(2)
    }
}

struct ErrorRecord: Encodable {
    var image: String
    var error: String
}
