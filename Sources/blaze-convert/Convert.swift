import ArgumentParser
import BlazeConverter
import BlazeModelFormat
import Foundation

/// `blaze-convert convert`: one `.tflite`, or the entries of a `.task` bundle, to `.bkm`.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a .tflite model or the models of a .task bundle to .bkm files.")

    @Argument(help: "The .tflite model or .task bundle to convert.")
    var input: String

    @Option(name: .shortAndLong, help: "The output .bkm file (when converting a single model).")
    var output: String?

    @Option(name: .customLong("output-dir"), help: "The directory for <name>.bkm outputs (default: the current directory).")
    var outputDirectory: String?

    @Option(help: "The model name to record (default: the file or entry stem).")
    var name: String?

    @Option(name: .customLong("input-range"), parsing: .unconditional,
            help: "The input value range LO,HI that pixel values 0…255 map to (e.g. -1,1); required for unknown models.")
    var inputRange: String?

    @Option(help: "The .task entry to convert (default: every .tflite entry).")
    var entry: String?

    func run() throws {
        do {
            try convert()
        } catch let error as ExitCode {
            throw error
        } catch {
            printError("blaze-convert: error: \(input): \(error)")
            throw ExitCode.failure
        }
    }

    private func convert() throws {
        if output != nil && outputDirectory != nil {
            throw ConverterError.invalidArgument("use either -o/--output or --output-dir, not both")
        }
        let range = try inputRange.map(parseRange)
        let url = URL(fileURLWithPath: input)
        let isBundle = url.pathExtension.lowercased() == "task"
        if !isBundle, entry != nil { throw ConverterError.invalidArgument("--entry applies to .task bundles only") }

        var jobs: [(request: ConversionRequest, defaultName: String)] = []
        if isBundle {
            let bundle = try TaskBundle(url: url)
            for e in try bundle.select(entry) {
                jobs.append((ConversionRequest(tflite: e.bytes, sourceFile: ModelConverter.fileStem(e.path) + ".tflite",
                                               name: name, inputRange: range,
                                               properties: ["task.entry": e.path, "task.bundle": url.lastPathComponent]),
                             e.name))
            }
        } else {
            let bytes = try readFile(input)
            jobs.append((ConversionRequest(tflite: bytes, sourceFile: url.lastPathComponent, name: name, inputRange: range),
                         ModelConverter.fileStem(input)))
        }
        if jobs.count > 1, output != nil || name != nil {
            throw ConverterError.invalidArgument(
                "the bundle holds \(jobs.count) models; use --output-dir (not -o/--name), or pick one with --entry")
        }
        for job in jobs {
            let model = try ModelConverter.convert(job.request)
            let bytes = try model.serialized()
            let destination = output ?? URL(fileURLWithPath: outputDirectory ?? ".")
                .appendingPathComponent((name ?? job.defaultName) + ".bkm").path
            try writeFile(bytes, to: destination)
            let histogram = model.lowered.opHistogram.map { "\($0.op) \($0.count)" }.joined(separator: ", ")
            print("\(destination): \(model.metadata.name), \(model.lowered.graph.nodes.count) nodes (\(histogram)), \(bytes.count) bytes")
        }
    }

    private func parseRange(_ text: String) throws -> [Float] {
        let parts = text.split(separator: ",").map { Float($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let lo = parts[0], let hi = parts[1], lo < hi, lo.isFinite, hi.isFinite else {
            throw ConverterError.invalidArgument("--input-range expects LO,HI with LO < HI (e.g. 0,1 or -1,1), found '\(text)'")
        }
        return [lo, hi]
    }
}

/// `blaze-convert inspect`: summary of a `.tflite` or `.bkm` file.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show inputs, outputs, op histogram, parameter count and metadata of a .tflite or .bkm file.")

    @Argument(help: "The .tflite or .bkm file.")
    var file: String

    func run() throws {
        do {
            let summary: ModelSummary
            if file.lowercased().hasSuffix("." + ModelFileFormat.fileExtension) {
                summary = ModelSummary(bkm: try ModelFile(path: file))
            } else {
                summary = try ModelSummary(tflite: try readFile(file))
            }
            print(file)
            print(summary.text)
        } catch {
            printError("blaze-convert: error: \(file): \(error)")
            throw ExitCode.failure
        }
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

func readFile(_ path: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw ConverterError.invalidArgument("cannot read '\(path)'")
    }
    return [UInt8](data)
}

func writeFile(_ bytes: [UInt8], to path: String) throws {
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    do {
        try Data(bytes).write(to: url, options: .atomic)
    } catch {
        throw ConverterError.invalidArgument("cannot write '\(path)': \(error.localizedDescription)")
    }
}
