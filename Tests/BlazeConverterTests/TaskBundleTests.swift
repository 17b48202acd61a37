import Foundation
import Testing
@testable import BlazeConverter

/// Writes a zip archive of stored (uncompressed) entries, enough to make `.task` bundles in tests.
func storedZip(_ entries: [(path: String, bytes: [UInt8])]) -> [UInt8] {
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
        le32(0x0403_4b50, &out); le16(20, &out); le16(0, &out); le16(0, &out); le16(0, &out); le16(0x21, &out)
        le32(crc, &out); le32(UInt32(e.bytes.count), &out); le32(UInt32(e.bytes.count), &out)
        le16(name.count, &out); le16(0, &out); out += name; out += e.bytes
        le32(0x0201_4b50, &central); le16(20, &central); le16(20, &central); le16(0, &central); le16(0, &central)
        le16(0, &central); le16(0x21, &central); le32(crc, &central); le32(UInt32(e.bytes.count), &central)
        le32(UInt32(e.bytes.count), &central); le16(name.count, &central); le16(0, &central); le16(0, &central)
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
