import BlazeModelFormat
import Foundation
import Testing
@testable import BlazeConverter

/// The lowerings of op set 2: RELU, MUL, STRIDED_SLICE, and the FlexBuffer options of MediaPipe's custom
/// operators (read from the bytes `face_landmark_with_attention.tflite` holds).
@Suite struct HolisticOpConverterTests {
    func convert(_ m: TinyTFLite) throws -> ConvertedModel {
        try ModelConverter.convert(ConversionRequest(tflite: m.build(), sourceFile: "tiny.tflite", name: "tiny", inputRange: [0, 1]))
    }

    @Test func lowersReluMulAndStridedSlice() throws {
        var m = TinyTFLite()
        let x = m.tensor("x", [1, 4, 4, 3])
        let r = m.tensor("relu", [1, 4, 4, 3])
        m.op(19, [x], [r])
        let k = m.tensor("k", [1], data: floatBytes([0.5]))
        let y = m.tensor("mul", [1, 4, 4, 3])
        m.op(18, [r, k], [y], optionsType: 21, options: FBTable([(0, .i8(3))]))   // RELU6
        let begin = m.tensor("begin", [4], type: 2, data: int32Bytes([0, -3, 1, 0]))
        let end = m.tensor("end", [4], type: 2, data: int32Bytes([1, 4, 0, 3]))
        let strides = m.tensor("strides", [4], type: 2, data: int32Bytes([1, 2, 2, 1]))
        let s = m.tensor("slice", [1, 2, 2, 3])
        // end mask on axis 2: its end is the axis length.
        m.op(45, [y, begin, end, strides], [s], optionsType: 32, options: FBTable([(1, .i32(4))]))
        m.inputs = [x]; m.outputs = [s]
        let g = try convert(m).lowered.graph
        #expect(g.nodes.map(\.op) == [.relu, .mul, .stridedSlice])
        #expect(g.nodes[1].attributes["activation"] == .string("relu6"))
        #expect(g.values[g.nodes[1].inputs[1]].shape == [1])
        #expect(g.nodes[2].attributes["begin"] == .ints([0, 1, 1, 0]) && g.nodes[2].attributes["strides"] == .ints([1, 2, 2, 1]))
    }

    @Test func rejectsWhatTheKernelsDoNotDo() throws {
        var m = TinyTFLite()
        let x = m.tensor("x", [1, 4, 4, 3]), other = m.tensor("other", [1, 1, 4, 3])
        let y = m.tensor("mul", [1, 4, 4, 3])
        m.op(18, [x, other], [y], optionsType: 21, options: FBTable([(0, .i8(0))]))
        let begin = m.tensor("begin", [4], type: 2, data: int32Bytes([0, 0, 0, 0]))
        let end = m.tensor("end", [4], type: 2, data: int32Bytes([1, 4, 4, 3]))
        let strides = m.tensor("strides", [4], type: 2, data: int32Bytes([1, -1, 1, 1]))
        let s = m.tensor("slice", [1, 4, 4, 3])
        m.op(45, [y, begin, end, strides], [s], optionsType: 32, options: FBTable([(0, .i32(0))]))
        let shrunk = m.tensor("shrunk", [4, 4, 3])
        m.op(45, [s, begin, end, strides], [shrunk], optionsType: 32, options: FBTable([(4, .i32(1))]))
        m.inputs = [x]; m.outputs = [shrunk]
        do {
            _ = try convert(m)
            Issue.record("expected errors")
        } catch ConverterError.unsupportedOperators(let ops) {
            #expect(ops.map(\.op) == ["MUL", "STRIDED_SLICE", "STRIDED_SLICE"])
            #expect(ops[0].reason.contains("single-element"))
            #expect(ops[1].reason.contains("positive strides"))
            #expect(ops[2].reason.contains("shrink axis mask 1"))
        }
    }

    /// `TransformTensorBilinear`'s options in the attention face mesh.
    @Test func readsAFlexBufferMapOfIntegers() throws {
        let bytes = Array("output_height\0output_width\0".utf8) + [0x02, 0x1c, 0x0f, 0x02, 0x01, 0x02, 0x10, 0x10, 0x04, 0x04, 0x04, 0x24, 0x01]
        let m = try FlexBufferMap(bytes: bytes)
        #expect(m.values == ["output_height": .int(16), "output_width": .int(16)])
        for cut in [1, 3, 10, bytes.count - 1] {
            #expect(throws: FlatBufferError.self, "cut to \(cut) bytes") { try FlexBufferMap(bytes: Array(bytes.suffix(cut))) }
        }
    }

    /// `Landmarks2TransformMatrix` options as the attention face mesh holds them: integers, floats and a typed
    /// vector of uint16 landmark indices (the model's own, with 71 or 80 indices, are read when it is converted).
    @Test func readsTheLandmarkMatrixOptions() throws {
        let keys = ["left_rotation_idx", "output_height", "output_width", "right_rotation_idx", "scale_x", "scale_y",
                    "subset_idxs", "target_rotation_radians"]
        let built = Self.landmarkOptions(subset: [33, 7, 163], keys: keys)
        let m = try FlexBufferMap(bytes: built)
        #expect(m.int("left_rotation_idx") == 33 && m.int("right_rotation_idx") == 133)
        #expect(m.float("scale_x") == 1.5 && m.float("target_rotation_radians") == 0)
        #expect(m.ints("subset_idxs") == [33, 7, 163])
    }

    /// A FlexBuffer map laid out as flatbuffers' builder lays out these options: keys, then the typed index
    /// vector (uint16), then the keys vector and the values (4 bytes wide) with their type bytes.
    static func landmarkOptions(subset: [Int], keys: [String]) -> [UInt8] {
        var b: [UInt8] = []
        var keyAt: [Int] = []
        for k in keys { keyAt.append(b.count); b += Array(k.utf8) + [0] }
        if b.count % 2 == 1 { b.append(0) }
        b += [UInt8(subset.count), 0]
        let vectorAt = b.count
        for v in subset { b += [UInt8(v & 0xff), UInt8(v >> 8)] }
        while b.count % 4 != 0 { b.append(0) }
        b += [UInt8(keys.count), 0, 0, 0]
        let keysVectorAt = b.count
        for (i, at) in keyAt.enumerated() { b += le32(keysVectorAt + 4 * i - at) }
        b += le32(b.count - keysVectorAt)   // offset to the keys vector, from this field
        b += le32(4)                         // key width
        b += le32(keys.count)
        let mapAt = b.count
        let values: [(UInt32, UInt8)] = [
            (33, 1 << 2 | 2), (16, 1 << 2 | 2), (16, 1 << 2 | 2), (133, 1 << 2 | 2),
            (Float(1.5).bitPattern, 3 << 2 | 2), (Float(1.5).bitPattern, 3 << 2 | 2),
            (UInt32(mapAt + 24 - vectorAt), 12 << 2 | 1), (Float(0).bitPattern, 3 << 2 | 2),
        ]
        for (v, _) in values { b += le32(Int(v)) }
        for (_, t) in values { b.append(t) }
        let rootAt = b.count
        b += [UInt8(rootAt - mapAt), 9 << 2 | 2, 1]
        return b
    }

    static func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
}
