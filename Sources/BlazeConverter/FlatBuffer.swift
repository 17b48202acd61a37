/// Why a FlatBuffer could not be read: the table and field being read, the byte offset and
/// what was wrong there.
public struct FlatBufferError: Error, Equatable, CustomStringConvertible, Sendable {
    /// `Table.field` (or `root`) that was being read.
    public var location: String
    /// The byte offset at which the problem was found.
    public var offset: Int
    public var reason: String

    public init(location: String, offset: Int, reason: String) {
        self.location = location
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        "corrupt or truncated FlatBuffer: \(location) at offset \(offset): \(reason)"
    }
}

/// A bounds-checked view of FlatBuffer bytes. Every read checks its range first and throws
/// ``FlatBufferError`` instead of trapping, so a truncated or hostile file is rejected cleanly.
public struct FlatBuffer: Sendable {
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    public var count: Int { bytes.count }

    /// Throws unless `offset ..< offset + size` lies inside the buffer.
    func check(_ offset: Int, _ size: Int, _ location: @autoclosure () -> String) throws {
        guard offset >= 0, size >= 0, offset <= bytes.count, size <= bytes.count - offset else {
            throw FlatBufferError(location: location(), offset: offset,
                                  reason: "\(size) bytes needed, the buffer has \(bytes.count)")
        }
    }

    /// A little-endian integer at `offset`.
    func read<T: FixedWidthInteger>(_ type: T.Type, at offset: Int, _ location: @autoclosure () -> String) throws -> T {
        let size = MemoryLayout<T>.size
        try check(offset, size, location())
        var v: T = 0
        for i in 0..<size { v |= T(truncatingIfNeeded: bytes[offset + i]) << (8 * i) }
        return v
    }

    /// The root table (the `uoffset` at byte 0), typed `typeName` for messages.
    public func rootTable(_ typeName: String) throws -> FlatBufferTable {
        let rel = try read(UInt32.self, at: 0, "\(typeName) root offset")
        return try FlatBufferTable(buffer: self, typeName: typeName, position: Int(rel))
    }

    /// Follows the `uoffset` stored at `position` and returns the absolute target position.
    func follow(_ position: Int, _ location: @autoclosure () -> String) throws -> Int {
        let rel = try read(UInt32.self, at: position, location())
        let target = position + Int(rel)
        guard target < bytes.count else {
            throw FlatBufferError(location: location(), offset: position,
                                  reason: "offset points to \(target), past the end of the \(bytes.count)-byte buffer")
        }
        return target
    }

    /// Reads a vector header at `position`: its element start and checked element count.
    func vector(at position: Int, elementSize: Int, _ location: @autoclosure () -> String) throws -> (start: Int, count: Int) {
        let n = Int(try read(UInt32.self, at: position, location()))
        let start = position + 4
        let (bytesNeeded, overflow) = n.multipliedReportingOverflow(by: elementSize)
        guard !overflow else {
            throw FlatBufferError(location: location(), offset: position, reason: "vector length \(n) overflows")
        }
        do {
            try check(start, bytesNeeded, location())
        } catch {
            throw FlatBufferError(location: location(), offset: position,
                                  reason: "vector of \(n) elements of \(elementSize) bytes runs past the end of the \(bytes.count)-byte buffer")
        }
        return (start, n)
    }
}

/// One FlatBuffer table: a position and its validated vtable.
public struct FlatBufferTable: Sendable {
    public let buffer: FlatBuffer
    /// The schema type name, used in error messages.
    public let typeName: String
    public let position: Int
    let vtable: Int
    let vtableSize: Int
    let tableSize: Int

    init(buffer: FlatBuffer, typeName: String, position: Int) throws {
        self.buffer = buffer
        self.typeName = typeName
        self.position = position
        let soffset = Int(try buffer.read(Int32.self, at: position, "\(typeName) vtable offset"))
        let vtable = position - soffset
        self.vtable = vtable
        let vtableSize = Int(try buffer.read(UInt16.self, at: vtable, "\(typeName) vtable size"))
        let tableSize = Int(try buffer.read(UInt16.self, at: vtable + 2, "\(typeName) table size"))
        guard vtableSize >= 4, vtableSize % 2 == 0 else {
            throw FlatBufferError(location: "\(typeName) vtable", offset: vtable,
                                  reason: "vtable size \(vtableSize) is not an even number of at least 4")
        }
        try buffer.check(vtable, vtableSize, "\(typeName) vtable")
        guard tableSize >= 4 else {
            throw FlatBufferError(location: "\(typeName) table", offset: position, reason: "table size \(tableSize) is below 4")
        }
        try buffer.check(position, tableSize, "\(typeName) table")
        self.vtableSize = vtableSize
        self.tableSize = tableSize
    }

    private func where_(_ field: String) -> String { "\(typeName).\(field)" }

    /// The absolute position of field `index`, or nil when the field is absent.
    func fieldPosition(_ index: Int, _ field: String, size: Int) throws -> Int? {
        let entry = 4 + 2 * index
        guard entry + 2 <= vtableSize else { return nil }
        let rel = Int(try buffer.read(UInt16.self, at: vtable + entry, where_(field)))
        guard rel != 0 else { return nil }
        guard rel + size <= tableSize else {
            throw FlatBufferError(location: where_(field), offset: position + rel,
                                  reason: "field of \(size) bytes at \(rel) lies outside the \(tableSize)-byte table")
        }
        return position + rel
    }

    /// A scalar field, or `defaultValue` when absent.
    public func scalar<T: FixedWidthInteger>(_ index: Int, _ field: String, default defaultValue: T) throws -> T {
        guard let p = try fieldPosition(index, field, size: MemoryLayout<T>.size) else { return defaultValue }
        return try buffer.read(T.self, at: p, where_(field))
    }

    /// A bool field, or `defaultValue` when absent.
    public func bool(_ index: Int, _ field: String, default defaultValue: Bool = false) throws -> Bool {
        try scalar(index, field, default: UInt8(defaultValue ? 1 : 0)) != 0
    }

    /// A sub-table field, or nil when absent.
    public func table(_ index: Int, _ field: String, type: String) throws -> FlatBufferTable? {
        guard let p = try fieldPosition(index, field, size: 4) else { return nil }
        let target = try buffer.follow(p, where_(field))
        return try FlatBufferTable(buffer: buffer, typeName: type, position: target)
    }

    /// A string field (UTF-8, invalid sequences repaired), or nil when absent.
    public func string(_ index: Int, _ field: String) throws -> String? {
        guard let range = try byteRange(index, field) else { return nil }
        return String(decoding: buffer.bytes[range], as: UTF8.self)
    }

    /// The byte range of a `[ubyte]` (or string) field, or nil when absent.
    public func byteRange(_ index: Int, _ field: String) throws -> Range<Int>? {
        guard let p = try fieldPosition(index, field, size: 4) else { return nil }
        let target = try buffer.follow(p, where_(field))
        let (start, n) = try buffer.vector(at: target, elementSize: 1, where_(field))
        return start..<(start + n)
    }

    /// A vector of scalars, or nil when absent.
    public func vector<T: FixedWidthInteger>(_ index: Int, _ field: String, of type: T.Type) throws -> [T]? {
        guard let p = try fieldPosition(index, field, size: 4) else { return nil }
        let target = try buffer.follow(p, where_(field))
        let size = MemoryLayout<T>.size
        let (start, n) = try buffer.vector(at: target, elementSize: size, where_(field))
        var out: [T] = []
        out.reserveCapacity(n)
        for i in 0..<n { out.append(try buffer.read(T.self, at: start + i * size, where_(field))) }
        return out
    }

    /// A vector of tables (empty when absent).
    public func tables(_ index: Int, _ field: String, type: String) throws -> [FlatBufferTable] {
        guard let p = try fieldPosition(index, field, size: 4) else { return [] }
        let target = try buffer.follow(p, where_(field))
        let (start, n) = try buffer.vector(at: target, elementSize: 4, where_(field))
        var out: [FlatBufferTable] = []
        out.reserveCapacity(n)
        for i in 0..<n {
            let element = try buffer.follow(start + 4 * i, "\(where_(field))[\(i)]")
            out.append(try FlatBufferTable(buffer: buffer, typeName: type, position: element))
        }
        return out
    }
}
