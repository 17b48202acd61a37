/// A bounds-checked reader of the FlexBuffers maps that TFLite custom operators keep their options in
/// (`Operator.custom_options` with `custom_options_format` FLEXBUFFERS). It reads what the MediaPipe
/// operators use: a root map whose values are integers, floats or typed vectors of integers. Any other
/// layout, or a reference out of bounds, is a ``FlatBufferError`` naming the key.
public struct FlexBufferMap: Sendable {
    /// A map value: a scalar, a list of integers, or something this reader does not decode.
    public enum Value: Sendable, Equatable {
        case int(Int)
        case float(Double)
        case ints([Int])
        case other(type: Int)
    }

    /// The values by key.
    public let values: [String: Value]

    // FlexBuffers type codes (flexbuffers.h).
    private static let (int, uint, float, indirectInt, indirectUInt, indirectFloat, map) = (1, 2, 3, 6, 7, 8, 9)
    private static let (vectorInt, vectorUInt, bool) = (11, 12, 26)

    /// Reads the root map of `bytes`.
    public init(bytes: [UInt8]) throws {
        let buffer = FlatBuffer(bytes: bytes)
        let location = "custom_options"
        guard bytes.count >= 3 else {
            throw FlatBufferError(location: location, offset: 0, reason: "\(bytes.count) bytes is too short for a FlexBuffer")
        }
        let rootWidth = Int(bytes[bytes.count - 1])
        let rootPacked = Int(bytes[bytes.count - 2])
        guard [1, 2, 4, 8].contains(rootWidth), rootPacked >> 2 == Self.map else {
            throw FlatBufferError(location: location, offset: bytes.count - 2,
                                  reason: "the root is type \(rootPacked >> 2) of width \(rootWidth), expected a map (type 9)")
        }
        let rootPosition = bytes.count - 2 - rootWidth
        let mapStart = rootPosition - Int(try Self.unsigned(buffer, at: rootPosition, width: rootWidth, location))
        let width = 1 << (rootPacked & 3)
        let count = Int(try Self.unsigned(buffer, at: mapStart - width, width: width, location))
        let keysAt = mapStart - 3 * width
        let keysStart = keysAt - Int(try Self.unsigned(buffer, at: keysAt, width: width, location))
        let keysWidth = Int(try Self.unsigned(buffer, at: mapStart - 2 * width, width: width, location))
        guard [1, 2, 4, 8].contains(keysWidth), count <= bytes.count else {
            throw FlatBufferError(location: location, offset: mapStart, reason: "map of \(count) entries with key width \(keysWidth)")
        }
        try buffer.check(mapStart, count * width + count, location)
        var values: [String: Value] = [:]
        for i in 0..<count {
            let keyAt = keysStart + i * keysWidth
            let keyStart = keyAt - Int(try Self.unsigned(buffer, at: keyAt, width: keysWidth, location))
            try buffer.check(keyStart, 1, location)
            guard let end = bytes[keyStart...].firstIndex(of: 0) else {
                throw FlatBufferError(location: location, offset: keyStart, reason: "key \(i) has no terminating zero")
            }
            let name = String(decoding: bytes[keyStart..<end], as: UTF8.self)
            let packed = Int(bytes[mapStart + count * width + i])
            values[name] = try Self.value(buffer, at: mapStart + i * width, parentWidth: width, packed: packed, "\(location).\(name)")
        }
        self.values = values
    }

    private static func value(_ b: FlatBuffer, at p: Int, parentWidth w: Int, packed: Int, _ location: String) throws -> Value {
        let type = packed >> 2, childWidth = 1 << (packed & 3)
        func target() throws -> Int { p - Int(try unsigned(b, at: p, width: w, location)) }
        switch type {
        case int, bool: return .int(try signed(b, at: p, width: w, location))
        case uint: return .int(Int(try unsigned(b, at: p, width: w, location)))
        case float: return .float(try floating(b, at: p, width: w, location))
        case indirectInt: return .int(try signed(b, at: try target(), width: childWidth, location))
        case indirectUInt: return .int(Int(try unsigned(b, at: try target(), width: childWidth, location)))
        case indirectFloat: return .float(try floating(b, at: try target(), width: childWidth, location))
        case vectorInt, vectorUInt:
            let start = try target()
            let n = Int(try unsigned(b, at: start - childWidth, width: childWidth, location))
            try b.check(start, n * childWidth, location)
            return .ints(try (0..<n).map { i in
                type == vectorInt ? try signed(b, at: start + i * childWidth, width: childWidth, location)
                                  : Int(try unsigned(b, at: start + i * childWidth, width: childWidth, location))
            })
        default: return .other(type: type)
        }
    }

    private static func unsigned(_ b: FlatBuffer, at p: Int, width: Int, _ location: String) throws -> UInt64 {
        switch width {
        case 1: return UInt64(try b.read(UInt8.self, at: p, location))
        case 2: return UInt64(try b.read(UInt16.self, at: p, location))
        case 4: return UInt64(try b.read(UInt32.self, at: p, location))
        case 8:
            let v = try b.read(UInt64.self, at: p, location)
            guard v <= UInt64(Int32.max) else { throw FlatBufferError(location: location, offset: p, reason: "offset \(v) is too large") }
            return v
        default: throw FlatBufferError(location: location, offset: p, reason: "byte width \(width)")
        }
    }

    private static func signed(_ b: FlatBuffer, at p: Int, width: Int, _ location: String) throws -> Int {
        switch width {
        case 1: return Int(try b.read(Int8.self, at: p, location))
        case 2: return Int(try b.read(Int16.self, at: p, location))
        case 4: return Int(try b.read(Int32.self, at: p, location))
        case 8: return Int(try b.read(Int64.self, at: p, location))
        default: throw FlatBufferError(location: location, offset: p, reason: "byte width \(width)")
        }
    }

    private static func floating(_ b: FlatBuffer, at p: Int, width: Int, _ location: String) throws -> Double {
        switch width {
        case 4: return Double(Float(bitPattern: try b.read(UInt32.self, at: p, location)))
        case 8: return Double(bitPattern: try b.read(UInt64.self, at: p, location))
        default: throw FlatBufferError(location: location, offset: p, reason: "a float of \(width) bytes")
        }
    }

    /// The integer at `key`.
    public func int(_ key: String) -> Int? {
        if case .int(let v)? = values[key] { return v }
        return nil
    }

    /// The number at `key` as a float32 (an integer is converted).
    public func float(_ key: String) -> Float? {
        switch values[key] {
        case .float(let v)?: return Float(v)
        case .int(let v)?: return Float(v)
        default: return nil
        }
    }

    /// The integer list at `key`.
    public func ints(_ key: String) -> [Int]? {
        if case .ints(let v)? = values[key] { return v }
        return nil
    }
}
