import BlazeModelFormat
import Foundation
import Testing

/// The float16 variant (`BLZKM16`): float16 only where exact, widened at load to the float32 file's bits.
@Suite struct Float16VariantTests {
    let tiny = TinyModel()

    func halfBytes(_ constants: [ConstantTensor]? = nil) throws -> [UInt8] {
        try ModelFileWriter.serialize(metadata: tiny.metadata, graph: tiny.graph, constants: constants ?? tiny.constants,
                                      weights: .float16WhereExact)
    }

    @Test func loadsToTheFloat32FilesBits() throws {
        let full = try ModelFile(bytes: try tiny.bytes(), name: "tiny.bkm")
        let bytes = try halfBytes()
        #expect(Array(bytes[0..<8]) == ModelFileFormat.float16Magic)
        let half = try ModelFile(bytes: bytes, name: "tiny16.bkm")
        #expect(half.header.tensors.map(\.dtype) == ["float16", "float16"])
        #expect(half.header.tensors.map(\.byteCount) == [12, 4])
        #expect(half.metadata == full.metadata && half.graph == full.graph)
        for i in 0..<tiny.constants.count {
            #expect(half.constant(i).map(\.bitPattern) == full.constant(i).map(\.bitPattern))
        }
        #expect(try halfBytes() == bytes)
    }

    @Test func inexactTensorsStayFloat32() throws {
        var constants = tiny.constants
        // 0.1 has no binary16 twin; a NaN payload and -0 do not round-trip or do.
        constants[0].values = [0.1, -0.0, 1, 65504, Float(bitPattern: 0x7fc0_0001), 5.960_464_5e-8]
        constants[1].values = [-0.0, 5.960_464_5e-8]   // -0 and the smallest binary16 subnormal are exact
        let file = try ModelFile(bytes: try halfBytes(constants), name: "mixed.bkm")
        #expect(file.header.tensors.map(\.dtype) == ["float32", "float16"])
        for i in 0..<2 {
            #expect(file.constant(i).map(\.bitPattern) == constants[i].values.map(\.bitPattern))
        }
    }

    @Test func float16TensorsOnlyInTheVariant() throws {
        var bytes = try halfBytes()
        bytes.replaceSubrange(0..<8, with: ModelFileFormat.magic)
        let sum = bytes.withUnsafeBytes { ModelChecksum.fnv1a64Words(UnsafeRawBufferPointer(rebasing: $0[64...])) }
        bytes.put(sum, at: 40)
        expectRejection(bytes, "badTensor", mentioning: ["'w'", "expected float32", "found float16"])
    }
}
