import BlazeModelFormat
import Foundation
import Testing
@testable import BlazeConverter

/// The facts of the eleven built-in models are written once, in `KnownModel.all`; these tests hold the
/// repository's other statements of them to that table: `Tools/models/builtin_models.json` (what the scripts
/// read), the provenance table of `Models/README.md`, and the scripts under `Tools/` and `Benchmarks/`.
@Suite struct KnownModelTests {
    /// The package root, from this file's path (the files checked here are read from the checkout).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func read(_ relativePath: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
    }

    @Test func theTableIsWellFormed() {
        let all = KnownModel.all
        #expect(all.count == 11)
        #expect(Set(all.map(\.name)).count == all.count, "names repeat: \(all.map(\.name))")
        #expect(Set(all.map(\.sourceSHA256)).count == all.count, "a SHA-256 repeats")
        let hex = Set("0123456789abcdef")
        for m in all {
            #expect(m.sourceSHA256.count == 64 && m.sourceSHA256.allSatisfy(hex.contains),
                    "\(m.name): sourceSHA256 '\(m.sourceSHA256)' is not 64 lowercase hex digits")
            #expect(m.inputShape.count == 4 && m.inputShape[0] == 1 && m.inputShape[3] == 3 && m.inputShape[1] == m.inputShape[2],
                    "\(m.name): inputShape \(m.inputShape), expected a square RGB image [1, S, S, 3]")
            #expect(m.inputRange == [-1, 1] || m.inputRange == [0, 1], "\(m.name): inputRange \(m.inputRange)")
            #expect(m.taskBundleEntry.hasSuffix(".tflite") && m.taskBundleEntryName + ".tflite" == m.taskBundleEntry,
                    "\(m.name): taskBundleEntry '\(m.taskBundleEntry)'")
            #expect(m.sourceFile == m.name + ".tflite" && m.fileName == m.name + ".bkm")
            #expect(KnownModel.named(m.name) == m)
        }
        // Models that share a .task entry or a family share their input; `matching` relies on it.
        for a in all {
            for b in all where a.taskBundleEntry == b.taskBundleEntry || a.family == b.family {
                #expect(a.inputShape == b.inputShape && a.inputRange == b.inputRange,
                        "\(a.name) and \(b.name) share an entry or family but not their input")
            }
        }
    }

    @Test func matchingFindsAModelByNameEntryOrFamily() {
        #expect(KnownModel.matching("palm_detection_lite")?.name == "palm_detection_lite")
        #expect(KnownModel.matching("pose_detector")?.name == "pose_detection")
        #expect(KnownModel.matching("hand_detector.tflite")?.name == "palm_detection_full")
        #expect(KnownModel.matching("pose_landmarks_detector")?.name == "pose_landmark_full")
        #expect(KnownModel.matching("pose_landmark_heavy")?.name == "pose_landmark_full")
        #expect(KnownModel.matching("face_detector")?.name == "face_detection_short_range")
        #expect(KnownModel.matching("face_landmarks_detector")?.name == "face_landmark")
        #expect(KnownModel.matching("hand_roi_refinement.tflite")?.name == "hand_recrop")
        #expect(KnownModel.matching("face_landmark_with_attention")?.name == "face_landmark_with_attention")
        for name in ["mystery", "pose", "hand", "landmark_full", ""] {
            #expect(KnownModel.matching(name) == nil, "'\(name)' should match no model")
        }
        // The converter's known input ranges are the table's.
        for m in KnownModel.all {
            #expect(ModelConverter.knownInputRange(m.name) == m.inputRange, "\(m.name)")
            #expect(ModelConverter.knownInputRange(m.taskBundleEntryName) == m.inputRange, "\(m.taskBundleEntryName)")
        }
        #expect(ModelConverter.knownInputRange("mystery") == nil)
    }

    @Test func theScriptsJSONIsTheTable() throws {
        let text = try Self.read(KnownModelsFile.path)
        #expect(text == KnownModelsFile.render(),
                "\(KnownModelsFile.path) differs from KnownModel.all; rewrite it with `\(KnownModelsFile.command)`")
        struct File: Decodable { var models: [KnownModel] }
        let decoded = try JSONDecoder().decode(File.self, from: Data(text.utf8))
        #expect(decoded.models == KnownModel.all)
    }

    /// Every row of the provenance table names the model's source file, SHA-256, input size and range
    /// and `.task` entry exactly as the table does, and every model has one row.
    @Test func modelsReadmeAgreesWithTheTable() throws {
        let lines = try Self.read("Models/README.md").split(separator: "\n").map(String.init)
        func cells(_ line: String) -> [String] {
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let headerIndex = try #require(lines.firstIndex { $0.hasPrefix("| model |") }, "Models/README.md has no '| model |' table")
        let header = cells(lines[headerIndex])
        func column(_ title: String) throws -> Int {
            try #require(header.firstIndex(of: title), "Models/README.md: no column '\(title)' in \(header)")
        }
        let (name, file, sha, input, entry) = (try column("model"), try column("source file"), try column("sha256 of the source"),
                                               try column("input, value range"), try column("`.task` entry"))
        let rows = lines[(headerIndex + 2)...].prefix { $0.hasPrefix("|") }.map(cells)
        #expect(rows.map { $0[name] } == KnownModel.all.map(\.name), "Models/README.md rows vs KnownModel.all")
        for row in rows {
            guard row.count == header.count else {
                Issue.record("Models/README.md: row \(row) has \(row.count) cells, expected \(header.count)")
                continue
            }
            guard let m = KnownModel.named(row[name]) else { continue }
            let range = m.inputRange.map { String(Int($0)) }.joined(separator: ", ")
            #expect(row[file] == "`\(m.sourceFile)`", "\(m.name): source file")
            #expect(row[sha] == "`\(m.sourceSHA256)`", "\(m.name): sha256")
            #expect(row[input] == "\(m.inputShape[1])×\(m.inputShape[2]), [\(range)]", "\(m.name): input")
            #expect(row[entry] == "`\(m.taskBundleEntry)`", "\(m.name): .task entry")
        }
    }

    /// The Python and shell scripts under `Tools/` and `Benchmarks/` take the facts from
    /// `Tools/models/builtin_models.json` (through `Tools/models/builtin_models.py`) instead of restating them: none
    /// holds a model's SHA-256, no line pairs a model name with an input range or a normalization, and
    /// every `.tflite`/`.bkm` file of a Blaze network they name is a known source file, converted file
    /// or `.task` entry.
    @Test func scriptsTakeTheFactsFromTheJSON() throws {
        let fm = FileManager.default
        var scripts: [String] = []
        for dir in ["Tools", "Benchmarks"] {
            let enumerator = try #require(fm.enumerator(atPath: Self.root.appendingPathComponent(dir).path))
            for case let path as String in enumerator where path.hasSuffix(".py") || path.hasSuffix(".sh") {
                scripts.append(dir + "/" + path)
            }
        }
        #expect(scripts.contains("Tools/models/convert-models.sh") && scripts.contains("Benchmarks/compare_litert.py"),
                "found scripts \(scripts)")
        let knownFiles = Set(KnownModel.all.flatMap { [$0.sourceFile, $0.fileName, $0.taskBundleEntry] })
        let rangeLiterals = ["-1.0, 1.0", "-1, 1", "0.0, 1.0", "0, 1", "127.5", "255.0"]
        let fileName = try Regex(#"\b((?:pose|palm|hand)_[a-z_]+\.(?:tflite|bkm))\b"#)
        for script in scripts {
            let text = try Self.read(script)
            for m in KnownModel.all where text.contains(m.sourceSHA256) {
                Issue.record("\(script) restates the SHA-256 of \(m.name); read it from Tools/models/builtin_models.json")
            }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let named = KnownModel.all.filter { line.contains("'\($0.name)'") || line.contains("\"\($0.name)\"") || line.contains("[\($0.name)]") }
                for literal in rangeLiterals where !named.isEmpty && line.contains(literal) {
                    Issue.record("\(script):\(number + 1) pairs \(named[0].name) with '\(literal)'; take input ranges from Tools/models/builtin_models.json")
                }
                for match in line.matches(of: fileName) {
                    let file = String(line[match.range])
                    #expect(knownFiles.contains(file), "\(script):\(number + 1) names \(file), which is no known model file or .task entry")
                }
            }
        }
    }
}
