/// A minimal FlatBuffer writer for tests: describes tables as trees and lays them out front
/// to back (vtable, table, then the objects it refers to), so every `uoffset` points forward.
indirect enum FBValue {
    case u8(UInt8)
    case i8(Int8)
    case u16(UInt16)
    case i32(Int32)
    case u32(UInt32)
    case u64(UInt64)
    case table(FBTable)
    case string(String)
    case bytes([UInt8])
    case ints([Int32])
    case u16s([UInt16])
    case tables([FBTable])
}

/// A table: field index → value.
struct FBTable {
    var fields: [(Int, FBValue)]
    init(_ fields: [(Int, FBValue)] = []) { self.fields = fields }
}

struct FlatBufferTestBuilder {
    private(set) var bytes: [UInt8] = []

    /// Serializes `root` with file identifier `identifier` (4 ASCII characters).
    static func build(root: FBTable, identifier: String = "TFL3") -> [UInt8] {
        var b = FlatBufferTestBuilder()
        b.bytes = [0, 0, 0, 0] + Array(identifier.utf8)
        let position = b.write(root)
        b.patch(at: 0, UInt32(position))
        return b.bytes
    }

    private mutating func align(_ n: Int) {
        while bytes.count % n != 0 { bytes.append(0) }
    }

    private mutating func append<T: FixedWidthInteger>(_ v: T) {
        for i in 0..<MemoryLayout<T>.size { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }

    private mutating func patch(at offset: Int, _ v: UInt32) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(i))) }
    }

    private static func inlineSize(_ v: FBValue) -> Int {
        switch v {
        case .u8, .i8: return 1
        case .u16: return 2
        case .i32, .u32: return 4
        case .u64: return 8
        default: return 4
        }
    }

    /// Writes a table (and everything it refers to); returns the table's position.
    mutating func write(_ table: FBTable) -> Int {
        let maxField = table.fields.map(\.0).max() ?? -1
        // Table layout: soffset, then fields each at its own 8-byte-aligned slot for simplicity.
        var fieldOffsets = [Int](repeating: 0, count: maxField + 1)
        var tableSize = 4
        for (index, value) in table.fields {
            let size = Self.inlineSize(value)
            tableSize = (tableSize + size - 1) / size * size
            fieldOffsets[index] = tableSize
            tableSize += size
        }
        align(4)
        let vtable = bytes.count
        append(UInt16(4 + 2 * (maxField + 1)))
        append(UInt16(tableSize))
        for o in fieldOffsets { append(UInt16(o)) }
        align(8)
        let tablePosition = bytes.count
        bytes += [UInt8](repeating: 0, count: tableSize)
        let soffset = Int32(tablePosition - vtable)
        for i in 0..<4 { bytes[tablePosition + i] = UInt8(truncatingIfNeeded: soffset >> (8 * Int32(i))) }
        var references: [(Int, FBValue)] = []
        for (index, value) in table.fields {
            let p = tablePosition + fieldOffsets[index]
            func put<T: FixedWidthInteger>(_ v: T) {
                for i in 0..<MemoryLayout<T>.size { bytes[p + i] = UInt8(truncatingIfNeeded: v >> (8 * i)) }
            }
            switch value {
            case .u8(let v): put(v)
            case .i8(let v): put(v)
            case .u16(let v): put(v)
            case .i32(let v): put(v)
            case .u32(let v): put(v)
            case .u64(let v): put(v)
            default: references.append((p, value))
            }
        }
        for (fieldPosition, value) in references {
            let target = writeObject(value)
            patch(at: fieldPosition, UInt32(target - fieldPosition))
        }
        return tablePosition
    }

    private mutating func writeObject(_ value: FBValue) -> Int {
        switch value {
        case .table(let t):
            return write(t)
        case .string(let s):
            align(4)
            let p = bytes.count
            append(UInt32(s.utf8.count))
            bytes += Array(s.utf8) + [0]
            return p
        case .bytes(let v):
            align(16)
            let p = bytes.count
            append(UInt32(v.count))
            bytes += v
            return p
        case .ints(let v):
            align(4)
            let p = bytes.count
            append(UInt32(v.count))
            for x in v { append(x) }
            return p
        case .u16s(let v):
            align(4)
            let p = bytes.count
            append(UInt32(v.count))
            for x in v { append(x) }
            return p
        case .tables(let ts):
            align(4)
            let p = bytes.count
            append(UInt32(ts.count))
            let slots = bytes.count
            bytes += [UInt8](repeating: 0, count: 4 * ts.count)
            for (i, t) in ts.enumerated() {
                let target = write(t)
                patch(at: slots + 4 * i, UInt32(target - (slots + 4 * i)))
            }
            return p
        default:
            fatalError("not an object")
        }
    }
}
