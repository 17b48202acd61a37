#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Constants of the BlazeKit model file format (`.bkm`).
///
/// Layout (all integers little-endian):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | magic `BLZKMDL\0` |
/// | 8 | 4 | format version |
/// | 12 | 4 | op-set version: the lowest that has every op the graph uses (``OpKind/opset``) |
/// | 16 | 8 | header length (bytes of UTF-8 JSON) |
/// | 24 | 8 | data offset (a multiple of 64) |
/// | 32 | 8 | data length (a multiple of 64) |
/// | 40 | 8 | checksum: FNV-1a-64 over the 64-bit words of bytes 64 ..< end of file |
/// | 48 | 16 | zero |
/// | 64 | header length | JSON header: metadata, graph, tensor table |
/// | … | | zero padding to the data offset |
/// | data offset | data length | tensor data, float32, each tensor 64-byte aligned |
///
/// The data section ends the file. Because tensors are 64-byte aligned from a page-aligned
/// mapping, the runtime reads weights straight from the memory-mapped file.
///
/// The float16 variant (magic `BLZKM16\0`, ``float16Magic``) has the same layout; its tensor table may
/// also hold `float16` tensors (IEEE binary16, little-endian, 2 bytes an element, still 64-byte
/// aligned). ``ModelFileWriter`` stores a tensor as float16 only when every one of its values
/// converts to binary16 and back to the same float32 bit pattern, and ``ModelFile`` widens those
/// tensors to float32 at load, so `constant(_:)` gives the same bits as the float32 file's. The
/// Python wheel ships the built-in models in this variant (half the bytes; MediaPipe's weights are
/// float16 to begin with); such tensors are copied to the heap at load instead of read in place.
public enum ModelFileFormat {
    public static let magic: [UInt8] = Array("BLZKMDL".utf8) + [0]
    /// The float16 variant's magic.
    public static let float16Magic: [UInt8] = Array("BLZKM16".utf8) + [0]
    public static let formatVersion: UInt32 = 1
    /// Bumped whenever an op's semantics or weight layout changes, or an op is added. Op set 2 added
    /// `relu`, `mul`, `strided_slice` and MediaPipe's three landmark-transform ops; files of op set 1 still load.
    public static let opsetVersion: UInt32 = 2
    public static let fixedHeaderSize = 64
    public static let alignment = 64
    public static let fileExtension = "bkm"
    /// Largest element count a tensor or value may have (guards against absurd shapes).
    public static let maxElementCount = 1 << 28
}

/// How ``ModelFileWriter`` stores tensor values.
public enum WeightStorage: Sendable, Equatable {
    /// Every tensor as float32 (magic `BLZKMDL`).
    case float32
    /// The float16 variant (magic `BLZKM16`): each tensor whose values all survive a round trip
    /// through binary16 unchanged as float16, any other as float32.
    case float16WhereExact
}

/// One entry of the tensor table.
public struct TensorRecord: Codable, Sendable, Equatable {
    public var name: String
    public var dtype: String
    public var shape: [Int]
    /// Byte offset from the start of the data section.
    public var offset: Int
    public var byteCount: Int

    public init(name: String, dtype: String = "float32", shape: [Int], offset: Int, byteCount: Int) {
        self.name = name
        self.dtype = dtype
        self.shape = shape
        self.offset = offset
        self.byteCount = byteCount
    }
}

/// The JSON header of a model file.
public struct ModelHeader: Codable, Sendable, Equatable {
    public var metadata: ModelMetadata
    public var graph: Graph
    public var tensors: [TensorRecord]
}

/// A constant tensor to be written: a name, a shape and float32 values.
public struct ConstantTensor: Sendable, Equatable {
    public var name: String
    public var shape: [Int]
    public var values: [Float]

    public init(name: String, shape: [Int], values: [Float]) {
        self.name = name
        self.shape = shape
        self.values = values
    }
}

// MARK: - Writing

public enum ModelFileWriter {
    /// Serializes a model. `constants[i]` is tensor `i`, referred to by ``ValueInfo/constant``.
    /// The output is a pure function of the arguments (sorted JSON keys, zero padding), so
    /// the same model always gives byte-identical files.
    /// With `weights: .float16WhereExact` it writes the float16 variant, which loads to the same
    /// float32 bits.
    public static func serialize(metadata: ModelMetadata, graph: Graph, constants: [ConstantTensor],
                                 weights: WeightStorage = .float32) throws -> [UInt8] {
        let align = ModelFileFormat.alignment
        var records: [TensorRecord] = []
        var offset = 0
        for t in constants {
            let count = t.shape.reduce(1, *)
            guard count == t.values.count else {
                throw ModelFormatError.badTensor(path: "<writer>", tensor: t.name,
                    reason: "shape \(t.shape) holds \(count) elements, values has \(t.values.count)")
            }
            let half = weights == .float16WhereExact && t.values.allSatisfy { Float(Float16($0)).bitPattern == $0.bitPattern }
            let width = half ? 2 : 4
            records.append(TensorRecord(name: t.name, dtype: half ? "float16" : "float32", shape: t.shape,
                                        offset: offset, byteCount: count * width))
            offset = roundUp(offset + count * width, align)
        }
        let dataLength = max(offset, 0)
        let header = ModelHeader(metadata: metadata, graph: graph, tensors: records)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = [UInt8](try encoder.encode(header))
        let dataOffset = roundUp(ModelFileFormat.fixedHeaderSize + json.count, align)

        var bytes = [UInt8](repeating: 0, count: dataOffset + dataLength)
        bytes.replaceSubrange(0..<8, with: weights == .float32 ? ModelFileFormat.magic : ModelFileFormat.float16Magic)
        put(UInt32(ModelFileFormat.formatVersion), at: 8, in: &bytes)
        put(graph.nodes.map(\.op.opset).max() ?? 1, at: 12, in: &bytes)
        put(UInt64(json.count), at: 16, in: &bytes)
        put(UInt64(dataOffset), at: 24, in: &bytes)
        put(UInt64(dataLength), at: 32, in: &bytes)
        bytes.replaceSubrange(64..<(64 + json.count), with: json)
        for (t, r) in zip(constants, records) {
            var p = dataOffset + r.offset
            if r.dtype == "float16" {
                for v in t.values {
                    let b = Float16(v).bitPattern.littleEndian
                    bytes[p] = UInt8(truncatingIfNeeded: b)
                    bytes[p + 1] = UInt8(truncatingIfNeeded: b >> 8)
                    p += 2
                }
                continue
            }
            for v in t.values {
                let b = v.bitPattern.littleEndian
                bytes[p] = UInt8(truncatingIfNeeded: b)
                bytes[p + 1] = UInt8(truncatingIfNeeded: b >> 8)
                bytes[p + 2] = UInt8(truncatingIfNeeded: b >> 16)
                bytes[p + 3] = UInt8(truncatingIfNeeded: b >> 24)
                p += 4
            }
        }
        let sum = bytes.withUnsafeBytes { ModelChecksum.fnv1a64Words(UnsafeRawBufferPointer(rebasing: $0[64...])) }
        put(sum, at: 40, in: &bytes)
        return bytes
    }

    private static func put<T: FixedWidthInteger>(_ v: T, at offset: Int, in bytes: inout [UInt8]) {
        let le = v.littleEndian
        for i in 0..<MemoryLayout<T>.size {
            bytes[offset + i] = UInt8(truncatingIfNeeded: le >> (8 * i))
        }
    }
}

@inline(__always) func roundUp(_ x: Int, _ a: Int) -> Int { (x + a - 1) / a * a }

// MARK: - Checksum

public enum ModelChecksum {
    /// FNV-1a (64-bit) over little-endian 64-bit words; a trailing partial word is zero-padded.
    public static func fnv1a64Words(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        let prime: UInt64 = 0x0000_0100_0000_01b3
        let words = bytes.count / 8
        var i = 0
        if let base = bytes.baseAddress {
            while i < words {
                let w = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))
                h = (h ^ w) &* prime
                i += 1
            }
        }
        let rest = bytes.count - words * 8
        if rest > 0 {
            var w: UInt64 = 0
            for j in 0..<rest { w |= UInt64(bytes[words * 8 + j]) << (8 * UInt64(j)) }
            h = (h ^ w) &* prime
        }
        return h
    }
}

// MARK: - Reading

/// A validated, memory-mapped model file. Weights are read in place from the mapping.
public final class ModelFile: @unchecked Sendable {
    public let path: String
    public let formatVersion: UInt32
    public let opsetVersion: UInt32
    public let header: ModelHeader
    private let storage: FileBytes

    public var metadata: ModelMetadata { header.metadata }
    public var graph: Graph { header.graph }

    /// Maps and validates the file at `path`.
    public convenience init(path: String) throws {
        try self.init(storage: FileBytes(mapping: path), path: path)
    }

    /// Validates a model held in memory (e.g. read out of a bundle). `name` is used in errors.
    public convenience init(bytes: [UInt8], name: String) throws {
        try self.init(storage: FileBytes(copying: bytes), path: name)
    }

    private init(storage: FileBytes, path: String) throws {
        self.storage = storage
        self.path = path
        let bytes = UnsafeRawBufferPointer(start: storage.base, count: storage.count)
        let size = bytes.count
        let fixed = ModelFileFormat.fixedHeaderSize
        guard size >= fixed else { throw ModelFormatError.truncated(path: path, expectedAtLeast: fixed, actual: size) }
        let magic = Array(bytes[0..<8])
        guard magic == ModelFileFormat.magic || magic == ModelFileFormat.float16Magic else {
            let shown = bytes[0..<8].map { (0x20..<0x7f).contains($0) ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }
            throw ModelFormatError.badMagic(path: path, actual: "\"" + shown.joined() + "\"")
        }
        func u32(_ o: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: o, as: UInt32.self)) }
        func u64(_ o: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: o, as: UInt64.self)) }
        formatVersion = u32(8)
        guard formatVersion == ModelFileFormat.formatVersion else {
            throw ModelFormatError.unsupportedFormatVersion(path: path, fileVersion: formatVersion,
                                                            supported: ModelFileFormat.formatVersion)
        }
        opsetVersion = u32(12)
        guard opsetVersion >= 1, opsetVersion <= ModelFileFormat.opsetVersion else {
            throw ModelFormatError.unsupportedOpset(path: path, fileOpset: opsetVersion,
                                                    supported: ModelFileFormat.opsetVersion)
        }
        guard bytes[48..<fixed].allSatisfy({ $0 == 0 }) else {
            throw ModelFormatError.badLayout(path: path, field: "reserved bytes 48..<64", expected: "all zero",
                actual: bytes[48..<fixed].map { String($0, radix: 16) }.joined(separator: " "))
        }
        let headerLength = u64(16), dataOffset = u64(24), dataLength = u64(32), stored = u64(40)
        let limit = UInt64(size)
        // Consistent layout fields that describe more bytes than the file holds: the file was cut short.
        let (end, endOverflow) = dataOffset.addingReportingOverflow(dataLength)
        if !endOverflow, end > limit, dataOffset % UInt64(ModelFileFormat.alignment) == 0,
           dataOffset >= UInt64(fixed), headerLength <= dataOffset - UInt64(fixed) {
            throw ModelFormatError.truncated(path: path, expectedAtLeast: Int(clamping: end), actual: size)
        }
        guard headerLength <= limit - UInt64(fixed) else {
            throw ModelFormatError.badLayout(path: path, field: "header length",
                expected: "at most \(size - fixed) (file size \(size))", actual: "\(headerLength)")
        }
        guard dataOffset % UInt64(ModelFileFormat.alignment) == 0, dataOffset >= UInt64(fixed) + headerLength,
              dataOffset <= limit else {
            throw ModelFormatError.badLayout(path: path, field: "data offset",
                expected: "a multiple of 64 in \(UInt64(fixed) + headerLength)...\(size)", actual: "\(dataOffset)")
        }
        guard dataLength == limit - dataOffset else {
            if dataLength > limit - dataOffset {
                throw ModelFormatError.truncated(path: path, expectedAtLeast: Int(clamping: dataOffset &+ dataLength),
                                                 actual: size)
            }
            throw ModelFormatError.badLayout(path: path, field: "data length",
                expected: "\(limit - dataOffset) (file size minus data offset)", actual: "\(dataLength)")
        }
        let computed = ModelChecksum.fnv1a64Words(UnsafeRawBufferPointer(rebasing: bytes[fixed...]))
        guard computed == stored else {
            throw ModelFormatError.checksumMismatch(path: path, expected: stored, actual: computed)
        }
        let json = Data(bytes[fixed..<(fixed + Int(headerLength))])
        do {
            header = try JSONDecoder().decode(ModelHeader.self, from: json)
        } catch {
            throw ModelFormatError.badHeader(path: path, reason: "\(error)")
        }
        try ModelFile.validate(header: header, dataLength: Int(dataLength), path: path,
                               allowsFloat16: magic == ModelFileFormat.float16Magic)
        dataStart = storage.base! + Int(dataOffset)
        widened = ModelFile.widen(header.tensors, data: dataStart)
    }

    private let dataStart: UnsafeRawPointer
    /// The float16 tensors of the float16 variant, widened to float32 (exactly) at load; nil for float32 tensors.
    private let widened: [UnsafeMutableBufferPointer<Float>?]

    deinit {
        for w in widened { w?.deallocate() }
    }

    private static func widen(_ tensors: [TensorRecord], data: UnsafeRawPointer) -> [UnsafeMutableBufferPointer<Float>?] {
        tensors.map { r in
            guard r.dtype == "float16" else { return nil }
            let count = r.byteCount / 2
            let raw = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * 4, alignment: ModelFileFormat.alignment)
            let out = raw.bindMemory(to: Float.self, capacity: max(count, 1))
            let src = data + r.offset
            for i in 0..<count {
                out[i] = Float(Float16(bitPattern: UInt16(littleEndian: src.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))))
            }
            return UnsafeMutableBufferPointer(start: out, count: count)
        }
    }

    /// The float32 values of tensor-table entry `index` (validated at load).
    public func constant(_ index: Int) -> UnsafeBufferPointer<Float> {
        if let w = widened[index] { return UnsafeBufferPointer(w) }
        let r = header.tensors[index]
        let p = (dataStart + r.offset).assumingMemoryBound(to: Float.self)
        return UnsafeBufferPointer(start: p, count: r.byteCount / 4)
    }

    /// The constant data of graph value `valueID`, or nil when the value is not a constant.
    public func constantData(ofValue valueID: Int) -> UnsafeBufferPointer<Float>? {
        guard let c = header.graph.values[valueID].constant else { return nil }
        return constant(c)
    }

    /// Checks every structural invariant the runtime relies on; reports the first violation.
    static func validate(header: ModelHeader, dataLength: Int, path: String, allowsFloat16: Bool = false) throws {
        /// Why `shape` is unusable, or nil.
        func shapeProblem(_ shape: [Int]) -> String? {
            guard shape.count <= 6 else { return "has rank \(shape.count), at most 6 is supported" }
            var n = 1
            for d in shape {
                guard d > 0 else { return "has shape \(shape) with a non-positive dimension" }
                let (m, o) = n.multipliedReportingOverflow(by: d)
                guard !o, m <= ModelFileFormat.maxElementCount else {
                    return "has shape \(shape), more than \(ModelFileFormat.maxElementCount) elements"
                }
                n = m
            }
            return nil
        }
        func checkShape(_ shape: [Int], _ what: String) throws {
            if let p = shapeProblem(shape) { throw ModelFormatError.badGraph(path: path, reason: "\(what) \(p)") }
        }
        for t in header.tensors {
            guard t.dtype == "float32" || (allowsFloat16 && t.dtype == "float16") else {
                throw ModelFormatError.badTensor(path: path, tensor: t.name,
                    reason: "dtype expected " + (allowsFloat16 ? "float32 or float16" : "float32") + ", found \(t.dtype)")
            }
            if let p = shapeProblem(t.shape) { throw ModelFormatError.badTensor(path: path, tensor: t.name, reason: p) }
            let count = t.shape.reduce(1, *)
            let width = t.dtype == "float16" ? 2 : 4
            guard t.byteCount == count * width else {
                throw ModelFormatError.badTensor(path: path, tensor: t.name,
                    reason: "byte count expected \(count * width) for shape \(t.shape), found \(t.byteCount)")
            }
            guard t.offset >= 0, t.offset % ModelFileFormat.alignment == 0, t.offset <= dataLength,
                  t.byteCount <= dataLength - t.offset else {
                throw ModelFormatError.badTensor(path: path, tensor: t.name,
                    reason: "bytes \(t.offset)..<\(t.offset &+ t.byteCount) expected 64-byte aligned inside the data section of \(dataLength) bytes")
            }
        }
        let g = header.graph
        var defined = [Bool](repeating: false, count: g.values.count)
        for (i, v) in g.values.enumerated() {
            try checkShape(v.shape, "value \(i) '\(v.name)'")
            if let c = v.constant {
                guard c >= 0, c < header.tensors.count else {
                    throw ModelFormatError.badGraph(path: path,
                        reason: "value \(i) '\(v.name)' refers to tensor \(c), the table has \(header.tensors.count)")
                }
                guard header.tensors[c].shape.reduce(1, *) == v.elementCount else {
                    throw ModelFormatError.badGraph(path: path,
                        reason: "value \(i) '\(v.name)' has shape \(v.shape) but tensor \(c) has shape \(header.tensors[c].shape)")
                }
                defined[i] = true
            }
        }
        guard !g.inputs.isEmpty, !g.outputs.isEmpty else {
            throw ModelFormatError.badGraph(path: path, reason: "expected at least one input and one output, found \(g.inputs.count) and \(g.outputs.count)")
        }
        for i in g.inputs {
            guard i >= 0, i < g.values.count, !defined[i] else {
                throw ModelFormatError.badGraph(path: path, reason: "graph input \(i) is out of range or a constant")
            }
            defined[i] = true
        }
        for (n, node) in g.nodes.enumerated() {
            for i in node.inputs {
                guard i >= 0, i < g.values.count, defined[i] else {
                    throw ModelFormatError.badGraph(path: path,
                        reason: "node \(n) (\(node.op.rawValue) '\(node.name)') reads value \(i), which is out of range or not yet computed")
                }
            }
            for o in node.outputs {
                guard o >= 0, o < g.values.count, !defined[o] else {
                    throw ModelFormatError.badGraph(path: path,
                        reason: "node \(n) (\(node.op.rawValue) '\(node.name)') writes value \(o), which is out of range or already defined")
                }
                defined[o] = true
            }
        }
        for o in g.outputs {
            guard o >= 0, o < g.values.count, defined[o] else {
                throw ModelFormatError.badGraph(path: path, reason: "graph output \(o) is out of range or never computed")
            }
        }
    }
}

/// Bytes of a model file: a read-only memory mapping, or a heap copy.
final class FileBytes: @unchecked Sendable {
    let base: UnsafeRawPointer?
    let count: Int
    private let mapped: Bool

    init(mapping path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw ModelFormatError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ModelFormatError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw ModelFormatError.cannotOpen(path: path, reason: "not a regular file")
        }
        count = Int(st.st_size)
        mapped = count > 0
        if count == 0 {
            base = nil
            return
        }
        let p = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let p, p != MAP_FAILED else {
            throw ModelFormatError.cannotOpen(path: path, reason: "mmap failed: " + String(cString: strerror(errno)))
        }
        base = UnsafeRawPointer(p)
    }

    init(copying bytes: [UInt8]) {
        let n = bytes.count
        count = n
        mapped = false
        let p = UnsafeMutableRawPointer.allocate(byteCount: max(n, 1), alignment: 4096)
        bytes.withUnsafeBytes { if n > 0 { p.copyMemory(from: $0.baseAddress!, byteCount: n) } }
        base = UnsafeRawPointer(p)
    }

    deinit {
        guard let base else { return }
        if mapped {
            munmap(UnsafeMutableRawPointer(mutating: base), count)
        } else {
            UnsafeMutableRawPointer(mutating: base).deallocate()
        }
    }
}
