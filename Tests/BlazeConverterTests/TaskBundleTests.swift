import CZlib
import Foundation
import Testing
@testable import BlazeConverter

/// Raw deflate (no zlib header) of `bytes`, as zip entries hold it.
func rawDeflate(_ bytes: [UInt8]) -> [UInt8] {
    var stream = z_stream()
    precondition(deflateInit2_(&stream, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                               Int32(MemoryLayout<z_stream>.size)) == Z_OK)
    defer { deflateEnd(&stream) }
    var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 16)
    var input = bytes
    let produced = input.withUnsafeMutableBufferPointer { inp in
        output.withUnsafeMutableBufferPointer { out -> Int in
            stream.next_in = inp.baseAddress; stream.avail_in = UInt32(inp.count)
            stream.next_out = out.baseAddress; stream.avail_out = UInt32(out.count)
            precondition(deflate(&stream, Z_FINISH) == Z_STREAM_END)
            return out.count - Int(stream.avail_out)
        }
    }
    return Array(output.prefix(produced))
}

/// Writes a zip archive of stored (uncompressed) entries, enough to make `.task` bundles in tests.
func storedZip(_ entries: [(path: String, bytes: [UInt8])]) -> [UInt8] {
    zipArchive(entries.map { ($0.path, $0.bytes, false, nil) })
}

/// Writes a zip archive; each entry stored or deflated, with its true size or `declaredSize` recorded.
func zipArchive(_ entries: [(path: String, bytes: [UInt8], deflate: Bool, declaredSize: UInt32?)]) -> [UInt8] {
    func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for b in data {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
        }
        return ~crc
    }
    var out: [UInt8] = [], central: [UInt8] = []
    func le16(_ v: Int, _ a: inout [UInt8]) { a += [UInt8(v & 0xff), UInt8((v >> 8) & 0xff)] }
    func le32(_ v: UInt32, _ a: inout [UInt8]) { for i in 0..<4 { a.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) } }
    for e in entries {
        let name = Array(e.path.utf8), crc = crc32(e.bytes), offset = UInt32(out.count)
        let data = e.deflate ? rawDeflate(e.bytes) : e.bytes, method = e.deflate ? 8 : 0
        let size = e.declaredSize ?? UInt32(e.bytes.count)
        le32(0x0403_4b50, &out); le16(20, &out); le16(0, &out); le16(method, &out); le16(0, &out); le16(0x21, &out)
        le32(crc, &out); le32(UInt32(data.count), &out); le32(size, &out)
        le16(name.count, &out); le16(0, &out); out += name; out += data
        le32(0x0201_4b50, &central); le16(20, &central); le16(20, &central); le16(0, &central); le16(method, &central)
        le16(0, &central); le16(0x21, &central); le32(crc, &central); le32(UInt32(data.count), &central)
        le32(size, &central); le16(name.count, &central); le16(0, &central); le16(0, &central)
        le16(0, &central); le16(0, &central); le32(0, &central); le32(offset, &central); central += name
    }
    let centralOffset = UInt32(out.count)
    out += central
    le32(0x0605_4b50, &out); le16(0, &out); le16(0, &out); le16(entries.count, &out); le16(entries.count, &out)
    le32(UInt32(central.count), &out); le32(centralOffset, &out); le16(0, &out)
    return out
}

@Suite("Task bundles")
struct TaskBundleTests {
    @Test func deflatedEntriesAreInflatedAndChecked() throws {
        let model = tinyModel().build()
        let bytes = zipArchive([("pose_detector.tflite", model, true, nil), ("pose_landmarks_detector.tflite", model, false, nil)])
        let bundle = try TaskBundle(bytes: bytes, name: "pose.task")
        #expect(bundle.entries.map(\.bytes) == [model, model])
        // A flipped byte inside the deflated data: a zlib error or a CRC-32 mismatch, never wrong bytes.
        var flipped = bytes
        flipped[60] ^= 0x5a
        #expect(throws: ConverterError.self) { try TaskBundle(bytes: flipped, name: "pose.task") }
        // Every cut: an error naming the bundle, never a hang or a crash.
        for cut in 0..<bytes.count {
            do {
                _ = try TaskBundle(bytes: Array(bytes[0..<cut]), name: "cut.task")
                Issue.record("a bundle cut at \(cut) of \(bytes.count) bytes was accepted")
            } catch let error as ConverterError {
                #expect("\(error)".contains("cut.task"))
            }
        }
    }

    /// ZIPFoundation 0.9.20 spun forever on this bundle (found by `Tools/fuzzing/fuzz.sh task`): a deflated entry whose
    /// stored block claims 65535 bytes more than the file holds. Each entry is now inflated from its own bytes.
    @Test func aDeflateStreamLongerThanItsEntryIsAnErrorNotAHang() throws {
        let hang: [UInt8] = [
            0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00, 0xc2, 0x41,
            0x24, 0x35, 0x08, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x68, 0x61,
            0x6e, 0x64, 0x5f, 0x64, 0x65, 0x74, 0x65, 0x63, 0x74, 0x6f, 0x72, 0x2e, 0x74, 0x66, 0x6c, 0x69,
            0x74, 0x65, 0x00, 0xff, 0xff, 0x00, 0x00, 0x61, 0x62, 0x63, 0x50, 0x4b, 0x01, 0x02, 0x14, 0x00,
            0x14, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00, 0xc2, 0x41, 0x24, 0x35, 0x08, 0x00,
            0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x68, 0x61, 0x6e, 0x64, 0x5f, 0x64, 0x65, 0x74,
            0x65, 0x63, 0x74, 0x6f, 0x72, 0x2e, 0x74, 0x66, 0x6c, 0x69, 0x74, 0x65, 0x50, 0x4b, 0x05, 0x06,
            0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x42, 0x00, 0x00, 0x00, 0x3a, 0x00, 0x00, 0x00,
            0x00, 0x00,
        ]
        #expect(hang.count == 146)
        do {
            _ = try TaskBundle(bytes: hang, name: "hang.task")
            Issue.record("accepted")
        } catch let error as ConverterError {
            #expect("\(error)".contains("hand_detector.tflite") && "\(error)".contains("ends early"), "\(error)")
        }
    }

    /// Zip bombs: an entry that inflates beyond its declared size stops at that size; declared sizes beyond
    /// the caps are refused before anything is allocated.
    @Test func zipBombsAreRefusedBeforeTheMemoryIsSpent() throws {
        let zeros = [UInt8](repeating: 0, count: 8 << 20)
        let lying = zipArchive([("pose_detector.tflite", zeros, true, 4096)])
        #expect(lying.count < 64 << 10)
        do {
            _ = try TaskBundle(bytes: lying, name: "bomb.task")
            Issue.record("accepted")
        } catch let error as ConverterError {
            #expect("\(error)".contains("inflates beyond its declared 4096 bytes"), "\(error)")
        }
        let huge = zipArchive([("pose_detector.tflite", [1, 2, 3], true, 0x3000_0000)])
        do {
            _ = try TaskBundle(bytes: huge, name: "huge.task")
            Issue.record("accepted")
        } catch let error as ConverterError {
            #expect("\(error)".contains("declares 805306368 bytes, more than the 536870912 allowed per entry"), "\(error)")
        }
        // Within the caps, but more than deflate can make of its compressed bytes: refused before the
        // declared 100 MiB are allocated.
        let inflated = zipArchive([("pose_detector.tflite", [1, 2, 3], true, 100 << 20)])
        do {
            _ = try TaskBundle(bytes: inflated, name: "ratio.task")
            Issue.record("accepted")
        } catch let error as ConverterError {
            #expect("\(error)".contains("declares 104857600 bytes from") && "\(error)".contains("at most 1032:1"), "\(error)")
        }
        let many = zipArchive((0..<3).map { ("m\($0).tflite", [1, 2, 3], true, UInt32(0x1800_0000)) })
        do {
            _ = try TaskBundle(bytes: many, name: "many.task")
            Issue.record("accepted")
        } catch let error as ConverterError {
            #expect("\(error)".contains("declare more than 1073741824 bytes in all"), "\(error)")
        }
    }

    @Test func listsAndSelectsTFLiteEntries() throws {
        let model = tinyModel().build()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("blazekit-test-\(UUID().uuidString).task")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(storedZip([("hand_detector.tflite", model), ("metadata.json", Array("{}".utf8)),
                            ("sub/hand_landmarks_detector.tflite", model)])).write(to: url)
        let bundle = try TaskBundle(url: url)
        #expect(bundle.entries.map(\.path) == ["hand_detector.tflite", "sub/hand_landmarks_detector.tflite"])
        #expect(bundle.entries.map(\.name) == ["hand_detector", "hand_landmarks_detector"])
        #expect(bundle.entries[0].bytes == model)
        #expect(try bundle.select("hand_landmarks_detector").map(\.path) == ["sub/hand_landmarks_detector.tflite"])
        #expect(throws: ConverterError.self) { try bundle.select("palm") }
        // Known MediaPipe task entry names get their input range.
        let converted = try ModelConverter.convert(ConversionRequest(tflite: bundle.entries[0].bytes,
                                                                     sourceFile: "hand_detector.tflite",
                                                                     properties: ["task.entry": "hand_detector.tflite"]))
        #expect(converted.metadata.input.valueRange == [0, 1])
        #expect(converted.metadata.properties["task.entry"] == "hand_detector.tflite")
    }

    @Test func rejectsNonZip() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("blazekit-test-\(UUID().uuidString).task")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(tinyModel().build()).write(to: url)
        #expect(throws: ConverterError.self) { try TaskBundle(url: url) }
    }
}

extension TaskBundleTests {
    /// Resource limit: at most 4096 entries in a bundle's central directory, checked on the end record's
    /// count before the directory is walked. 4096 entries open; 4097 are refused with both numbers.
    @Test func entryCountCap() throws {
        let model = tinyModel().build()
        func bundle(_ count: Int) -> [UInt8] {
            zipArchive([("pose_detector.tflite", model, false, nil)] + (1..<count).map { ("f\($0)", [], false, nil) })
        }
        let atCap = try TaskBundle(bytes: bundle(4096), name: "full.task")
        #expect(atCap.entries.map(\.path) == ["pose_detector.tflite"])
        do {
            _ = try TaskBundle(bytes: bundle(4097), name: "crowded.task")
            Issue.record("accepted")
        } catch let error as ConverterError {
            #expect("\(error)".contains("crowded.task") && "\(error)".contains("4097 entries, more than the 4096 allowed"), "\(error)")
        }
    }
}
