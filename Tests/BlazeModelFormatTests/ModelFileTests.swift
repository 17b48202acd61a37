import BlazeModelFormat
import Foundation
import Testing

/// The enum case name of an error, e.g. `badTensor`.
func caseName(_ e: ModelFormatError) -> String {
    Mirror(reflecting: e).children.first?.label ?? "\(e)"
}

/// Expects `bytes` to be rejected with error case `kind` and a message naming the file and every
/// string of `words`.
func expectRejection(_ bytes: [UInt8], _ kind: String, mentioning words: [String] = [], name: String = "tiny.bkm",
                     sourceLocation: SourceLocation = #_sourceLocation) {
    guard let e = rejection(bytes, name: name) else {
        Issue.record("model was accepted, expected \(kind)", sourceLocation: sourceLocation)
        return
    }
    #expect(caseName(e) == kind, "\(e)", sourceLocation: sourceLocation)
    for w in [name] + words {
        #expect(e.description.contains(w), "message \"\(e)\" does not mention \"\(w)\"", sourceLocation: sourceLocation)
    }
}

@Suite struct RoundTripTests {
    @Test func serializeThenLoadGivesTheSameModel() throws {
        let tiny = TinyModel()
        let bytes = try tiny.bytes()
        let file = try ModelFile(bytes: bytes, name: "tiny.bkm")
        #expect(file.path == "tiny.bkm")
        #expect(file.formatVersion == ModelFileFormat.formatVersion)
        #expect(file.opsetVersion == 1, "a conv2d needs nothing newer than op set 1")
        #expect(file.metadata == tiny.metadata)
        #expect(file.graph == tiny.graph)
        #expect(file.header.tensors.count == 2)
        for (i, c) in tiny.constants.enumerated() {
            #expect(Array(file.constant(i)) == c.values)
            #expect(file.header.tensors[i] == TensorRecord(name: c.name, shape: c.shape, offset: 64 * i, byteCount: 4 * c.values.count))
        }
        #expect(file.constantData(ofValue: 0) == nil)
        #expect(file.constantData(ofValue: 3) == nil)
        #expect(file.constantData(ofValue: 1).map(Array.init) == tiny.constants[0].values)
        #expect(file.constantData(ofValue: 2).map(Array.init) == tiny.constants[1].values)
    }

    /// A file carries the lowest op set that has every op of its graph, so that converting a model again gives the
    /// same bytes (the committed models of op set 1 were written before op set 2) and an older reader still loads it.
    @Test func opSetIsTheLowestTheGraphNeeds() throws {
        let tiny = TinyModel()
        for (op, want) in [(OpKind.conv2d, UInt32(1)), (.prelu, 1), (.relu, 2), (.mul, 2), (.stridedSlice, 2), (.transformLandmarks, 2)] {
            var graph = tiny.graph
            graph.nodes.append(Node(op: op, name: "extra", inputs: [3], outputs: [3], attributes: [:]))
            let bytes = try ModelFileWriter.serialize(metadata: tiny.metadata, graph: graph, constants: tiny.constants)
            #expect(bytes.u32(at: 12) == want, "\(op.rawValue): op set \(bytes.u32(at: 12))")
        }
        #expect(OpKind.allCases.allSatisfy { $0.opset >= 1 && $0.opset <= ModelFileFormat.opsetVersion })
    }

    @Test func fixedHeaderFieldsFollowTheLayout() throws {
        let bytes = try TinyModel().bytes()
        #expect(Array(bytes[0..<8]) == ModelFileFormat.magic)
        #expect(bytes.u32(at: 8) == ModelFileFormat.formatVersion)
        #expect(bytes.u32(at: 12) == 1)
        let hl = Int(bytes.u64(at: 16)), offset = Int(bytes.u64(at: 24)), length = Int(bytes.u64(at: 32))
        #expect(offset % 64 == 0 && offset >= 64 + hl && offset < 64 + hl + 64)
        #expect(length == 128) // two tensors of 24 and 8 bytes, each padded to 64
        #expect(offset + length == bytes.count)
        #expect(bytes[48..<64].allSatisfy { $0 == 0 })
        #expect(bytes[(64 + hl)..<offset].allSatisfy { $0 == 0 })
        let sum = bytes.withUnsafeBytes { ModelChecksum.fnv1a64Words(UnsafeRawBufferPointer(rebasing: $0[64...])) }
        #expect(bytes.u64(at: 40) == sum)
        // The JSON header is plain, sorted-key JSON.
        let json = String(decoding: bytes[64..<(64 + hl)], as: UTF8.self)
        #expect(json.hasPrefix("{\"graph\":"))
        #expect(json.contains("\"properties\":{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\"}"))
    }

    @Test func serializationIsDeterministic() throws {
        let tiny = TinyModel(cout: 5)
        let a = try tiny.bytes()
        let b = try tiny.bytes()
        #expect(a == b)
        // Dictionaries built in a different insertion order still give the same bytes.
        var metadata = tiny.metadata
        metadata.properties = [:]
        for k in ["c", "a", "b"] { metadata.properties[k] = tiny.metadata.properties[k] }
        var graph = tiny.graph
        graph.nodes[0].attributes = [:]
        for k in ["pads", "activation", "dilations", "strides"] { graph.nodes[0].attributes[k] = tiny.graph.nodes[0].attributes[k] }
        let c = try ModelFileWriter.serialize(metadata: metadata, graph: graph, constants: tiny.constants)
        #expect(a == c)
        // Re-serializing what was loaded reproduces the file.
        let file = try ModelFile(bytes: a, name: "a")
        let constants = tiny.constants.indices.map {
            ConstantTensor(name: file.header.tensors[$0].name, shape: file.header.tensors[$0].shape, values: Array(file.constant($0)))
        }
        #expect(try ModelFileWriter.serialize(metadata: file.metadata, graph: file.graph, constants: constants) == a)
    }

    @Test func writerRejectsValuesNotMatchingTheShape() {
        var constants = TinyModel().constants
        constants[1].values.append(9)
        #expect(throws: ModelFormatError.badTensor(path: "<writer>", tensor: "b", reason: "shape [2] holds 2 elements, values has 3")) {
            try ModelFileWriter.serialize(metadata: TinyModel().metadata, graph: TinyModel().graph, constants: constants)
        }
    }

    @Test func checksumIsFNV1aOverLittleEndianWords() {
        let basis: UInt64 = 0xcbf2_9ce4_8422_2325, prime: UInt64 = 0x0000_0100_0000_01b3
        func sum(_ b: [UInt8]) -> UInt64 { b.withUnsafeBytes { ModelChecksum.fnv1a64Words($0) } }
        #expect(sum([]) == basis)
        #expect(sum([0, 0, 0, 0, 0, 0, 0, 0]) == basis &* prime)
        #expect(sum([1, 2, 0, 0, 0, 0, 0, 0]) == (basis ^ 0x0201) &* prime)
        // A trailing partial word is zero-padded.
        #expect(sum([1, 2]) == sum([1, 2, 0, 0, 0, 0, 0, 0]))
        let w2: [UInt8] = [9, 8, 7, 6, 5, 4, 3, 2, 0xff]
        #expect(sum(w2) == ((((basis ^ 0x0203_0405_0607_0809) &* prime) ^ 0xff) &* prime))
    }
}

@Suite struct LayoutRejectionTests {
    @Test func emptyFile() {
        #expect(rejection([]) == .truncated(path: "tiny.bkm", expectedAtLeast: 64, actual: 0))
        expectRejection([], "truncated", mentioning: ["64", "found 0"])
    }

    @Test func everyTruncationIsReportedAsTruncation() throws {
        let bytes = try TinyModel().bytes()
        // Every length from 0 to 200 (fixed header, then the JSON header) and then every length
        // through the padding and the data section.
        #expect(bytes.count > 300)
        for n in 0..<bytes.count {
            let cut = Array(bytes[0..<n])
            let expected = ModelFormatError.truncated(path: "tiny.bkm", expectedAtLeast: n < 64 ? 64 : bytes.count, actual: n)
            #expect(rejection(cut) == expected, "length \(n)")
        }
        expectRejection(Array(bytes.dropLast(7)), "truncated", mentioning: ["\(bytes.count)", "\(bytes.count - 7)"])
        expectRejection(Array(bytes.prefix(150)), "truncated", mentioning: ["\(bytes.count)", "150"])
    }

    @Test func wrongMagic() throws {
        var bytes = try TinyModel().bytes()
        bytes.replaceSubrange(0..<8, with: Array("GGUF\u{1}abc".utf8))
        #expect(rejection(bytes) == .badMagic(path: "tiny.bkm", actual: "\"GGUF\\x1abc\""))
        expectRejection(bytes, "badMagic", mentioning: ["BLZKMDL", "GGUF"])
        // A text file.
        expectRejection(Array(String(repeating: "hello world\n", count: 10).utf8), "badMagic", mentioning: ["hello wo"])
    }

    @Test func futureFormatVersion() throws {
        var bytes = try TinyModel().bytes()
        let future = ModelFileFormat.formatVersion + 1
        bytes.put(future, at: 8)
        #expect(rejection(bytes) == .unsupportedFormatVersion(path: "tiny.bkm", fileVersion: future, supported: ModelFileFormat.formatVersion))
        expectRejection(bytes, "unsupportedFormatVersion",
                        mentioning: ["format v\(future)", "reads v\(ModelFileFormat.formatVersion)", "update BlazeKit"])
        bytes.put(UInt32(0), at: 8)
        expectRejection(bytes, "unsupportedFormatVersion", mentioning: ["format v0", "reads v\(ModelFileFormat.formatVersion)", "re-convert"])
    }

    @Test func futureOrZeroOpset() throws {
        var bytes = try TinyModel().bytes()
        let future = ModelFileFormat.opsetVersion + 1
        bytes.put(future, at: 12)
        #expect(rejection(bytes) == .unsupportedOpset(path: "tiny.bkm", fileOpset: future, supported: ModelFileFormat.opsetVersion))
        expectRejection(bytes, "unsupportedOpset", mentioning: ["op set v\(future)", "up to v\(ModelFileFormat.opsetVersion)"])
        bytes.put(UInt32(0), at: 12)
        expectRejection(bytes, "unsupportedOpset", mentioning: ["op set v0"])
    }

    @Test func reservedBytesMustBeZero() throws {
        var bytes = try TinyModel().bytes()
        bytes[57] = 0x40
        expectRejection(bytes, "badLayout", mentioning: ["reserved", "40"])
    }

    @Test func headerLengthPastTheEnd() throws {
        var bytes = try TinyModel().bytes()
        for hl in [UInt64(bytes.count - 63), UInt64(bytes.count), UInt64.max, UInt64(1) << 63] {
            bytes.put(hl, at: 16)
            expectRejection(bytes, "badLayout", mentioning: ["header length", "\(hl)", "\(bytes.count - 64)"])
        }
    }

    @Test func dataOffsetMisalignedOrInsideTheHeader() throws {
        let good = try TinyModel().bytes()
        let offset = good.u64(at: 24), hl = good.u64(at: 16)
        for bad in [offset + 8, offset - 1, 64, 0, UInt64.max - 63] {
            var bytes = good
            bytes.put(bad, at: 24)
            expectRejection(bytes, "badLayout", mentioning: ["data offset", "multiple of 64", "\(64 + hl)", "found \(bad)"])
        }
        // An aligned data offset past the end, with a consistent header length, reads as a cut-short file.
        var beyond = good
        beyond.put(UInt64(good.count + 64), at: 24)
        #expect(rejection(beyond) == .truncated(path: "tiny.bkm", expectedAtLeast: good.count + 64 + Int(good.u64(at: 32)), actual: good.count))
        // A header length reaching past the data offset (while still inside the file).
        var bytes = good
        bytes.put(offset - 64 + 1, at: 16)
        expectRejection(bytes, "badLayout", mentioning: ["data offset", "\(offset + 1)", "found \(offset)"])
    }

    @Test func dataLengthMismatch() throws {
        let good = try TinyModel().bytes()
        let length = good.u64(at: 32)
        for shorter in [length - 64, length - 1, 0] {
            var bytes = good
            bytes.put(shorter, at: 32)
            #expect(rejection(bytes) == .badLayout(path: "tiny.bkm", field: "data length",
                                                  expected: "\(length) (file size minus data offset)", actual: "\(shorter)"))
        }
        for longer in [length + 64, length + 1, UInt64.max] {
            var bytes = good
            bytes.put(longer, at: 32)
            expectRejection(bytes, "truncated", mentioning: ["found \(good.count)"])
        }
        // Extra bytes appended to an otherwise valid file.
        var bytes = good + [UInt8](repeating: 0, count: 64)
        bytes.reseal()
        expectRejection(bytes, "badLayout", mentioning: ["data length", "\(length + 64)", "found \(length)"])
    }

    @Test func everyByteFlipIsRejected() throws {
        let good = try TinyModel().bytes()
        #expect(rejection(good) == nil)
        var accepted: [Int] = []
        for position in 0..<good.count {
            for mask: UInt8 in [0x01, 0x10, 0x80, 0xff] {
                var bytes = good
                bytes[position] ^= mask
                guard let e = rejection(bytes) else {
                    accepted.append(position)
                    continue
                }
                let kind = caseName(e)
                switch position {
                case 0..<8: #expect(kind == "badMagic", "flip at \(position): \(e)")
                case 8..<12: #expect(kind == "unsupportedFormatVersion", "flip at \(position): \(e)")
                case 12..<16: #expect(kind == "unsupportedOpset", "flip at \(position): \(e)")
                case 16..<40: #expect(["badLayout", "truncated", "badHeader"].contains(kind), "flip at \(position): \(e)")
                case 40..<48: #expect(kind == "checksumMismatch", "flip at \(position): \(e)")
                case 48..<64: #expect(kind == "badLayout", "flip at \(position): \(e)")
                default: #expect(kind == "checksumMismatch", "flip at \(position): \(e)")
                }
            }
        }
        #expect(accepted.isEmpty, "flipped bytes accepted at \(accepted)")
    }

    @Test func headerLengthCoveringThePaddingIsRejectedAsBadJSON() throws {
        // Length fields stay consistent, but the JSON now ends in NUL padding bytes.
        var bytes = try TinyModel().bytes()
        let hl = bytes.u64(at: 16), offset = bytes.u64(at: 24)
        try #require(offset - 64 > hl)
        bytes.put(offset - 64, at: 16)
        expectRejection(bytes, "badHeader")
        bytes.put(hl - 1, at: 16)
        expectRejection(bytes, "badHeader")
    }

    @Test func checksumMismatchNamesBothSums() throws {
        var bytes = try TinyModel().bytes()
        let stored = bytes.u64(at: 40)
        bytes[bytes.count - 1] ^= 1
        let actual = bytes.withUnsafeBytes { ModelChecksum.fnv1a64Words(UnsafeRawBufferPointer(rebasing: $0[64...])) }
        #expect(rejection(bytes) == .checksumMismatch(path: "tiny.bkm", expected: stored, actual: actual))
        expectRejection(bytes, "checksumMismatch", mentioning: [String(stored, radix: 16), String(actual, radix: 16)])
    }
}

@Suite struct PathLoadingTests {
    func tempDir() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bkm-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func missingFile() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("nope.bkm").path
        let e = #expect(throws: ModelFormatError.self) { try ModelFile(path: path) }
        #expect(e.map(caseName) == "cannotOpen")
        #expect(e?.description.contains(path) == true)
        #expect(e?.description.contains("No such file") == true, "\(String(describing: e))")
    }

    @Test func directory() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(throws: ModelFormatError.cannotOpen(path: dir.path, reason: "not a regular file")) { try ModelFile(path: dir.path) }
    }

    @Test func realFiles() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tiny = TinyModel(cout: 3)
        let bytes = try tiny.bytes()
        let path = dir.appendingPathComponent("tiny.bkm").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = try ModelFile(path: path)
        #expect(file.path == path)
        #expect(file.metadata == tiny.metadata)
        #expect(file.graph == tiny.graph)
        for (i, c) in tiny.constants.enumerated() { #expect(Array(file.constant(i)) == c.values) }

        let empty = dir.appendingPathComponent("empty.bkm").path
        try Data().write(to: URL(fileURLWithPath: empty))
        #expect(throws: ModelFormatError.truncated(path: empty, expectedAtLeast: 64, actual: 0)) { try ModelFile(path: empty) }

        let cut = dir.appendingPathComponent("cut.bkm").path
        try Data(bytes.prefix(bytes.count - 100)).write(to: URL(fileURLWithPath: cut))
        #expect(throws: ModelFormatError.truncated(path: cut, expectedAtLeast: bytes.count, actual: bytes.count - 100)) {
            try ModelFile(path: cut)
        }

        var flipped = bytes
        flipped[bytes.count - 3] ^= 0x20
        let bad = dir.appendingPathComponent("flipped.bkm").path
        try Data(flipped).write(to: URL(fileURLWithPath: bad))
        let e = #expect(throws: ModelFormatError.self) { try ModelFile(path: bad) }
        #expect(e.map(caseName) == "checksumMismatch")
    }
}
