import Foundation
import BlazeKit
import Testing
@testable import blaze

/// The CLI's direct JSON writer against `JSONEncoder`, byte for byte, on records of every kind it writes.
struct JSONLineTests {
    static func encoderLine<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try encoder.encode(value)) + [0x0A]
    }

    static func directLine<T: JSONLine>(_ value: T) throws -> [UInt8] {
        var json = JSONBytes()
        try value.write(to: &json)
        json.endLine()
        return json.bytes
    }

    /// Floats of every kind of spelling: integral, tiny, huge, subnormal, negative zero, and random bit patterns.
    static func floats(_ count: Int, _ rng: inout some RandomNumberGenerator) -> [Float] {
        let special: [Float] = [0, -0, 1, -3, 0.5, 1e-5, 1e-7, 123456792, 1e20, -2.5e-12, .leastNonzeroMagnitude,
                                .leastNormalMagnitude, .greatestFiniteMagnitude, 0.1, 16777216, 100]
        return (0..<count).map { i in
            if i % 3 == 0 { return special[Int.random(in: 0..<special.count, using: &rng)] }
            var v: Float
            repeat { v = Float(bitPattern: UInt32.random(in: 0...UInt32.max, using: &rng)) } while !v.isFinite
            return i % 3 == 1 ? v : Float.random(in: -1...1, using: &rng)
        }
    }

    static let names = ["clip.mp4", "a \"quoted\" name.jpg", "back\\slash/and/slash.png", "tab\tnew\nline\r\u{8}\u{C}\u{1}\u{1F}.mp4",
                        "ünïcødé 照片 😀.jpeg", "nul\u{0}after\u{7F}del", "", "frame_00012"]

    @Test func poseAndHandLinesAreJSONEncodersBytes() throws {
        var rng = SystemRandomNumberGenerator()
        for trial in 0..<200 {
            let name = Self.names[trial % Self.names.count]
            var source = FrameOrigin(width: Int.random(in: 1...8000, using: &rng), height: Int.random(in: 1...8000, using: &rng), stem: "x")
            if trial % 2 == 0 { source.image = name } else { source.video = name; source.frame = String(format: "frame_%05d", trial) }
            if trial % 3 != 0 { source.timestampMs = Int.random(in: -5...Int(Int32.max), using: &rng) }
            let poses = (0..<(trial % 3)).map { _ in
                PoseItem(landmarks: (0..<33).map { _ in Self.floats(5, &rng) }, worldLandmarks: (0..<33).map { _ in Self.floats(5, &rng) },
                         id: trial % 2 == 0 ? nil : Int.random(in: 1...Int.max, using: &rng))
            }
            let pose = FrameRecord(source: source, key: "poses", items: poses)
            #expect(try Self.directLine(pose) == Self.encoderLine(pose), "trial \(trial)")
            let hands = (0..<(trial % 3)).map { i in
                HandItem(handedness: .init(categoryName: i == 0 ? "Left" : name, score: Self.floats(1, &rng)[0]),
                         landmarks: (0..<21).map { _ in Self.floats(3, &rng) }, worldLandmarks: [],
                         id: trial % 2 == 0 ? nil : Int.random(in: 1...99, using: &rng))
            }
            let hand = FrameRecord(source: source, key: "hands", items: hands)
            #expect(try Self.directLine(hand) == Self.encoderLine(hand), "trial \(trial)")
            let error = ErrorRecord(image: name, error: "\(name): truncated after frame \(trial)")
            #expect(try Self.directLine(error) == Self.encoderLine(error))
            #expect(try OutputSink.line(pose) == Self.encoderLine(pose))
        }
    }

    /// Keys in `JSONEncoder`'s `.sortedKeys` order, whatever the item key is called.
    @Test func itemKeysSortLikeTheEncoder() throws {
        for key in ["poses", "hands", "observations", "a", "zz", "Height", "width2", "width10", "timestampms"] {
            let record = FrameRecord(source: FrameOrigin(image: "p.png", timestampMs: 5, width: 2, height: 3, stem: "p"),
                                     key: key, items: [ErrorRecord(image: "i", error: "e")])
            #expect(try Self.directLine(record) == Self.encoderLine(record), "\(key)")
        }
    }

    /// A non-finite value makes the line `JSONEncoder`'s, which refuses it with its own error.
    @Test func nonFiniteFloatsGetTheEncodersError() throws {
        let pose = FrameRecord(source: FrameOrigin(image: "p.png", width: 2, height: 3, stem: "p"), key: "poses",
                               items: [PoseItem(landmarks: [[0.5, .nan]], worldLandmarks: [])])
        var json = JSONBytes()
        #expect(throws: JSONBytes.NonFinite.self) { try pose.write(to: &json) }
        #expect(throws: EncodingError.self) { try OutputSink.line(pose) }
    }
}

/// `blaze holistic`'s lines: the direct writer against `JSONEncoder`, parts present and null.
struct HolisticLineTests {
    @Test func holisticLinesAreJSONEncodersBytes() throws {
        var rng = SystemRandomNumberGenerator()
        func part(_ count: Int, _ width: Int, world: Bool) -> HolisticRecord.Part? {
            Bool.random(using: &rng) ? nil : HolisticRecord.Part(landmarks: (0..<count).map { _ in JSONLineTests.floats(width, &rng) },
                                                                  worldLandmarks: world ? (0..<count).map { _ in JSONLineTests.floats(width, &rng) } : nil)
        }
        for trial in 0..<100 {
            let name = JSONLineTests.names[trial % JSONLineTests.names.count]
            var source = FrameOrigin(width: 640, height: 480, stem: "x")
            if trial % 2 == 0 { source.image = name } else { (source.video, source.frame, source.timestampMs) = (name, "frame_00003", 120) }
            var record = HolisticRecord(HolisticLandmarkerResult(), source: source)
            #expect([record.pose, record.face, record.leftHand, record.rightHand].allSatisfy { $0 == nil })
            (record.pose, record.face) = (part(33, 5, world: true), part(468, 3, world: false))
            (record.leftHand, record.rightHand) = (part(21, 3, world: true), part(21, 3, world: true))
            #expect(try JSONLineTests.directLine(record) == JSONLineTests.encoderLine(record), "trial \(trial)")
        }
    }
}
