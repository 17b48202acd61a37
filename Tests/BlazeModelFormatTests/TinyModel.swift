import BlazeModelFormat
import Foundation

/// A tiny valid model: input `[1,4,4,3]` → conv2d 1×1 (weight `[cout,1,1,3]`, bias `[cout]`) → output.
struct TinyModel {
    var cout = 2

    var metadata: ModelMetadata {
        ModelMetadata(name: "tiny", sourceFile: "tiny.tflite", sourceSHA256: String(repeating: "ab", count: 32),
                      converterVersion: "test",
                      input: InputContract(name: "x", shape: [1, 4, 4, 3], colorOrder: "rgb", valueRange: [0, 1]),
                      outputs: [TensorDescription(name: "y", shape: [1, 4, 4, cout])],
                      properties: ["b": "2", "a": "1", "c": "3"])
    }

    var graph: Graph {
        Graph(values: [ValueInfo(name: "x", shape: [1, 4, 4, 3]),
                       ValueInfo(name: "w", shape: [cout, 1, 1, 3], constant: 0),
                       ValueInfo(name: "b", shape: [cout], constant: 1),
                       ValueInfo(name: "y", shape: [1, 4, 4, cout])],
              nodes: [Node(op: .conv2d, name: "conv", inputs: [0, 1, 2], outputs: [3],
                           attributes: ["strides": .ints([1, 1]), "pads": .ints([0, 0, 0, 0]),
                                        "activation": .string("relu6"), "dilations": .ints([1, 1])])],
              inputs: [0], outputs: [3])
    }

    var constants: [ConstantTensor] {
        [ConstantTensor(name: "w", shape: [cout, 1, 1, 3], values: (0..<(cout * 3)).map { Float($0) * 0.25 - 1 }),
         ConstantTensor(name: "b", shape: [cout], values: (0..<cout).map { Float($0) + 0.5 })]
    }

    func bytes() throws -> [UInt8] {
        try ModelFileWriter.serialize(metadata: metadata, graph: graph, constants: constants)
    }
}

/// Little-endian field access on raw model bytes.
extension Array where Element == UInt8 {
    func u64(at o: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(self[o + $1]) << (8 * UInt64($1)) } }
    func u32(at o: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(self[o + $1]) << (8 * UInt32($1)) } }
    mutating func put(_ v: UInt64, at o: Int) { for i in 0..<8 { self[o + i] = UInt8(truncatingIfNeeded: v >> (8 * UInt64(i))) } }
    mutating func put(_ v: UInt32, at o: Int) { for i in 0..<4 { self[o + i] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(i))) } }

    /// Recomputes and stores the checksum over bytes 64..<end.
    mutating func reseal() {
        let sum = withUnsafeBytes { ModelChecksum.fnv1a64Words(UnsafeRawBufferPointer(rebasing: $0[64...])) }
        put(sum, at: 40)
    }
}

/// Assembles a model file by hand from a JSON header and a data section, so that a test can make
/// exactly one field wrong while everything else (layout, checksum) stays consistent.
func assemble(json: [UInt8], data: [UInt8]) -> [UInt8] {
    let dataOffset = (64 + json.count + 63) / 64 * 64
    var bytes = [UInt8](repeating: 0, count: dataOffset + data.count)
    bytes.replaceSubrange(0..<8, with: ModelFileFormat.magic)
    bytes.put(ModelFileFormat.formatVersion, at: 8)
    bytes.put(UInt32(1), at: 12)   // what the writer puts there for TinyModel's conv2d (``OpKind/opset``)
    bytes.put(UInt64(json.count), at: 16)
    bytes.put(UInt64(dataOffset), at: 24)
    bytes.put(UInt64(data.count), at: 32)
    bytes.replaceSubrange(64..<(64 + json.count), with: json)
    bytes.replaceSubrange(dataOffset..<(dataOffset + data.count), with: data)
    bytes.reseal()
    return bytes
}

/// The JSON header and data section of a serialized model.
func split(_ bytes: [UInt8]) -> (json: [UInt8], data: [UInt8]) {
    let hl = Int(bytes.u64(at: 16)), offset = Int(bytes.u64(at: 24))
    return (Array(bytes[64..<(64 + hl)]), Array(bytes[offset...]))
}

func encode(_ header: ModelHeader) throws -> [UInt8] {
    let e = JSONEncoder()
    e.outputFormatting = [.sortedKeys]
    return [UInt8](try e.encode(header))
}

/// The error `ModelFile(bytes:name:)` throws for `bytes`; nil when it accepts them. A thrown error
/// that is not a ``ModelFormatError`` comes back as a `badHeader` with an impossible path.
func rejection(_ bytes: [UInt8], name: String = "tiny.bkm") -> ModelFormatError? {
    do {
        _ = try ModelFile(bytes: bytes, name: name)
        return nil
    } catch let e as ModelFormatError {
        return e
    } catch {
        return .badHeader(path: "<not a ModelFormatError>", reason: "\(error)")
    }
}
