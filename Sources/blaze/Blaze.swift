import ArgumentParser
import BlazeKit
import Foundation

@main
struct Blaze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blaze",
        abstract: "Pose and hand landmarks from photos, as MediaPipe Tasks computes them.",
        subcommands: [PoseCommand.self, HandCommand.self])
}

/// Options every landmark subcommand shares.
struct InputOptions: ParsableArguments {
    @Argument(help: "PNG files, or directories of them (searched one level deep, in name order).")
    var inputs: [String]

    @Option(help: "Threads per inference (1...64).")
    var threads = 1

    /// Decodes each input in order and calls `body(image, fileName, stem)`; an input that fails
    /// (unreadable file, corrupt PNG, or an error from `body`) gets an error record and the run goes
    /// on. Ends with exit status 1 when any input failed.
    func forEachImage(_ body: (Image, String, String) throws -> Void) throws {
        let files = try self.files()
        let progress = Progress(total: files.count)
        var failed = false
        for (i, file) in files.enumerated() {
            let name = URL(fileURLWithPath: file).lastPathComponent
            let stem = URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent
            do {
                try body(try Image(contentsOfPNGFile: file), name, stem)
            } catch {
                failed = true
                try JSONLines.write(ErrorRecord(image: name, error: "\(error)"))
            }
            progress.update(i + 1, name)
        }
        if failed { throw ExitCode(1) }
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

/// Progress on stderr, only when stderr is a terminal.
struct Progress {
    let total: Int
    let enabled = isatty(STDERR_FILENO) != 0

    func update(_ done: Int, _ name: String) {
        guard enabled, total > 1 else { return }
        FileHandle.standardError.write("\r\u{1B}[K[\(done)/\(total)] \(name)".data(using: .utf8)!)
        if done == total { FileHandle.standardError.write("\n".data(using: .utf8)!) }
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
