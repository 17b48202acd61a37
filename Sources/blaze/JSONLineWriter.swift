import Foundation

/// A record the CLI writes straight into bytes, without `JSONEncoder`'s intermediate tree of boxed values
/// (which took about 0.15–0.2 ms for a pose line, on the thread that runs the landmarker). The bytes are
/// exactly those of `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]`, the CLI's format, and the
/// tests compare the two on records of every kind.
protocol JSONLine: Encodable {
    func write(to json: inout JSONBytes) throws
}

/// A JSON text being written, in `JSONEncoder`'s spelling:
/// - floats as `description` without a trailing `.0` (`1e-05`, `0.5`, `3`), integers as `description`;
/// - strings escaping `"`, `\`, the control characters (`\b \f \n \r \t`, else `\u00xx` in lower-case
///   hex, NUL included) and nothing else;
/// - object members in the encoder's key order (numeric, case-insensitive, then by code points).
/// A NaN or infinite float throws ``JSONBytes/NonFinite``: `JSONEncoder` refuses those too, and the caller
/// lets it say so in its own words.
struct JSONBytes {
    struct NonFinite: Error {}

    private(set) var bytes: [UInt8] = []

    /// Ends the text with a newline, making it a JSON line.
    mutating func endLine() { bytes.append(0x0A) }

    init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    mutating func int(_ value: Int) {
        bytes.append(contentsOf: value.description.utf8)
    }

    mutating func float(_ value: Float) throws {
        guard value.isFinite else { throw NonFinite() }
        bytes.append(contentsOf: Self.spelling(value).utf8)
    }

    /// A finite float as `JSONEncoder` spells it (the CSV tables spell their numbers so too).
    static func spelling(_ value: Float) -> String {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    mutating func null() {
        bytes.append(contentsOf: "null".utf8)
    }

    mutating func floats(_ values: [Float]) throws {
        try array(values) { try $0.float($1) }
    }

    mutating func rows(_ rows: [[Float]]) throws {
        try array(rows) { try $0.floats($1) }
    }

    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
            case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case 0x00...0x1F:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 15)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// One member of an object: its key and how to write its value.
    typealias Member = (key: String, value: (inout JSONBytes) throws -> Void)

    /// An object of `members`, written in the encoder's key order.
    mutating func object(_ members: [Member]) throws {
        bytes.append(UInt8(ascii: "{"))
        for (i, member) in members.sorted(by: { Self.precedes($0.key, $1.key) }).enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            string(member.key)
            bytes.append(UInt8(ascii: ":"))
            try member.value(&self)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// `JSONEncoder`'s `.sortedKeys` order.
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.compare(b, options: [.numeric, .caseInsensitive, .forcedOrdering]) == .orderedAscending
    }

    /// An array, each element written by `element`.
    mutating func array<T>(_ elements: [T], _ element: (inout JSONBytes, T) throws -> Void) rethrows {
        bytes.append(UInt8(ascii: "["))
        for (i, e) in elements.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            try element(&self, e)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}

extension FrameOrigin {
    /// The leading members of a result's line: "image" or "video" and "frame", "timestampMs", "width", "height".
    var members: [JSONBytes.Member] {
        var members: [JSONBytes.Member] = [("width", { $0.int(width) }), ("height", { $0.int(height) })]
        if let image { members.append(("image", { $0.string(image) })) }
        if let video { members.append(("video", { $0.string(video) })) }
        if let frame { members.append(("frame", { $0.string(frame) })) }
        if let timestampMs { members.append(("timestampMs", { $0.int(timestampMs) })) }
        return members
    }
}

extension FrameRecord: JSONLine where Item: JSONLine {
    func write(to json: inout JSONBytes) throws {
        try json.object(source.members + [(key, { json in try json.array(items) { try $1.write(to: &$0) } })])
    }
}

extension PoseItem: JSONLine {
    func write(to json: inout JSONBytes) throws {
        var members: [JSONBytes.Member] = [("landmarks", { try $0.rows(landmarks) }), ("worldLandmarks", { try $0.rows(worldLandmarks) })]
        if let id { members.append(("id", { $0.int(id) })) }
        try json.object(members)
    }
}

extension HandItem: JSONLine {
    func write(to json: inout JSONBytes) throws {
        var members: [JSONBytes.Member] = [
            ("handedness", { json in
                try json.object([("categoryName", { $0.string(handedness.categoryName) }), ("score", { try $0.float(handedness.score) })])
            }),
            ("landmarks", { try $0.rows(landmarks) }), ("worldLandmarks", { try $0.rows(worldLandmarks) }),
        ]
        if let id { members.append(("id", { $0.int(id) })) }
        try json.object(members)
    }
}

extension ErrorRecord: JSONLine {
    func write(to json: inout JSONBytes) throws {
        try json.object([("image", { $0.string(image) }), ("error", { $0.string(error) })])
    }
}
