import BlazeModelFormat
import Foundation
import Testing
@testable import BlazeConverter

@Suite("Converter")
struct ConverterTests {
    func convert(_ m: TinyTFLite, name: String = "tiny", range: [Float]? = [0, 1]) throws -> ConvertedModel {
        try ModelConverter.convert(ConversionRequest(tflite: m.build(), sourceFile: "\(name).tflite", inputRange: range))
    }

    @Test func convertsTinyModel() throws {
        let model = try convert(tinyModel())
        let g = model.lowered.graph
        // PAD fused into the conv, DEQUANTIZE/DENSIFY folded.
        #expect(g.nodes.map(\.op) == [.conv2d, .depthwiseConv2d, .add, .logistic])
        let conv = g.nodes[0]
        #expect(conv.name == "conv")
        #expect(conv.attributes["pads"] == .ints([1, 1, 1, 1]))  // VALID + fused PAD
        #expect(conv.attributes["strides"] == .ints([1, 1]))
        #expect(conv.attributes["dilations"] == .ints([1, 1]))
        #expect(conv.attributes["activation"] == .string("relu6"))
        #expect(g.values[conv.inputs[0]].name == "input")
        let w = g.values[conv.inputs[1]]
        #expect(w.name == "conv/w" && w.shape == [4, 3, 3, 3])
        #expect(model.lowered.constants[w.constant!].values == (0..<108).map { Float($0 % 7 - 3) })
        let dw = g.nodes[1]
        #expect(dw.attributes["pads"] == .ints([0, 0, 1, 1]))  // SAME, 6 → 3 with stride 2
        let dwWeights = g.values[dw.inputs[1]]
        #expect(dwWeights.shape == [3, 3, 4])
        #expect(model.lowered.constants[dwWeights.constant!].values == (0..<36).map { i in
            let cell = i / 4, c = i % 4
            return (cell + c) % 2 == 0 ? Float(cell * 4 + c + 1) : 0
        })
        #expect(g.nodes[2].attributes["activation"] == .string("relu"))
        #expect(g.values.map(\.name).contains("padded") == false)
        #expect(model.metadata.name == "tiny")
        #expect(model.metadata.sourceFile == "tiny.tflite")
        #expect(model.metadata.converterVersion == "0.1.0")
        #expect(model.metadata.input == InputContract(name: "input", shape: [1, 6, 6, 3], colorOrder: "rgb", valueRange: [0, 1]))
        #expect(model.metadata.outputs == [TensorDescription(name: "output", shape: [1, 3, 3, 4])])
        #expect(model.metadata.properties["tflite.description"] == "tiny test model")
        #expect(model.metadata.properties["tflite.version"] == "3")
        #expect(model.metadata.sourceSHA256 == SHA256.hexDigest(of: tinyModel().build()))
        // The written file loads with the runtime's reader.
        let file = try ModelFile(bytes: try model.serialized(), name: "tiny")
        #expect(file.graph == g)
    }

    @Test func outputIsDeterministic() throws {
        let a = try convert(tinyModel()).serialized()
        let b = try convert(tinyModel()).serialized()
        #expect(a == b)
    }

    @Test func reportsAllUnsupportedOperators() throws {
        var m = TinyTFLite()
        let x = m.tensor("x", [1, 4, 4, 3])
        let squeezed = m.tensor("squeezed", [4, 4, 3])
        m.op(43, [x], [squeezed])                      // SQUEEZE
        let tanh = m.tensor("tanh", [4, 4, 3])
        m.op(28, [squeezed], [tanh])                   // TANH
        let gelu = m.tensor("gelu", [4, 4, 3])
        m.op(150, [tanh], [gelu])                      // GELU (code > 127)
        m.inputs = [x]; m.outputs = [gelu]
        do {
            _ = try convert(m)
            Issue.record("expected unsupported operators")
        } catch ConverterError.unsupportedOperators(let ops) {
            #expect(ops.map(\.op) == ["SQUEEZE", "TANH", "GELU"])
            #expect(ops.map(\.index) == [0, 1, 2])
            #expect(ops[0].inputs == ["x"] && ops[0].outputs == ["squeezed"])
            #expect(ops[2].inputs == ["tanh"] && ops[2].outputs == ["gelu"])
            let text = ConverterError.unsupportedOperators(ops).description
            #expect(text.contains("operator 0 SQUEEZE") && text.contains("'squeezed'"))
        }
    }

    @Test func rejectsUnsupportedConfigurations() throws {
        var m = TinyTFLite()
        let x = m.tensor("x", [1, 4, 4, 2])
        let w = m.tensor("w", [1, 3, 3, 4], data: floatBytes(.init(repeating: 1, count: 36)))
        let y = m.tensor("y", [1, 4, 4, 4])
        m.op(4, [x, w, -1], [y], optionsType: 2, options: Options.depthwise(padding: 0, stride: 1, multiplier: 2))
        let z = m.tensor("z", [1, 4, 4, 4])
        m.op(0, [y, y], [z], optionsType: 11, options: Options.add(activation: 4))  // fused TANH
        let q = m.tensor("q", [1, 4, 4, 4], type: 9)
        m.op(114, [z], [q])                                                         // QUANTIZE, int8 out
        m.inputs = [x]; m.outputs = [q]
        do {
            _ = try convert(m)
            Issue.record("expected errors")
        } catch ConverterError.unsupportedOperators(let ops) {
            #expect(ops.map(\.op) == ["DEPTHWISE_CONV_2D", "ADD", "QUANTIZE"])
            #expect(ops[0].reason.contains("depth multiplier 2"))
            #expect(ops[1].reason.contains("TANH"))
        }
    }

    @Test func lowersTheRemainingOps() throws {
        var m = TinyTFLite()
        let x = m.tensor("x", [1, 4, 4, 3])
        let alpha = m.tensor("alpha", [1, 1, 3], data: floatBytes([0.1, 0.2, 0.3]))
        let p = m.tensor("prelu", [1, 4, 4, 3])
        m.op(54, [x, alpha], [p])
        let pool = m.tensor("pool", [1, 2, 2, 3])
        m.op(17, [p], [pool], optionsType: 5, options: Options.pool(padding: 0, stride: 2, filter: 3))
        let size = m.tensor("size", [2], type: 2, data: int32Bytes([4, 4]))
        let up = m.tensor("up", [1, 4, 4, 3])
        m.op(23, [pool, size], [up], optionsType: 15, options: FBTable([(3, .u8(1))]))
        let cat = m.tensor("cat", [1, 4, 4, 12])
        m.op(2, [up, p, up, p], [cat], optionsType: 10, options: FBTable([(0, .i32(-1))]))
        let d2s = m.tensor("d2s", [1, 8, 8, 3])
        m.op(5, [cat], [d2s], optionsType: 94, options: FBTable([(0, .i32(2))]))
        let axes = m.tensor("axes", [3], type: 2, data: int32Bytes([-2, 1, 2]))
        let mean = m.tensor("mean", [1, 3])
        m.op(40, [d2s, axes], [mean], optionsType: 27, options: FBTable([(0, .u8(0))]))
        let fcW = m.tensor("fc/w", [2, 3], data: floatBytes([1, 2, 3, 4, 5, 6]))
        let fc = m.tensor("fc", [1, 2])
        m.op(9, [mean, fcW, -1], [fc], optionsType: 8, options: FBTable([(0, .i8(1))]))
        let shape = m.tensor("shape", [3], type: 2, data: int32Bytes([1, 2, 1]))
        let r = m.tensor("reshaped", [1, 2, 1])
        m.op(22, [fc, shape], [r])
        m.inputs = [x]; m.outputs = [r]
        let g = try convert(m).lowered
        #expect(g.graph.nodes.map(\.op) == [.prelu, .maxPool2d, .resizeBilinear, .concatenation, .depthToSpace, .mean, .fullyConnected, .reshape])
        let n = g.graph.nodes
        #expect(g.graph.values[n[0].inputs[1]].shape == [3])
        #expect(n[1].attributes["filter"] == .ints([3, 3]) && n[1].attributes["pads"] == .ints([0, 0, 1, 1]))
        #expect(n[2].attributes["size"] == .ints([4, 4]) && n[2].attributes["half_pixel_centers"] == .int(1)
                && n[2].attributes["align_corners"] == .int(0))
        #expect(n[3].attributes["axis"] == .int(3))
        #expect(n[4].attributes["block_size"] == .int(2))
        #expect(n[5].attributes["axes"] == .ints([1, 2]))
        let bias = g.graph.values[n[6].inputs[2]]
        #expect(bias.shape == [2] && g.constants[bias.constant!].values == [0, 0])
        #expect(n[6].attributes["activation"] == .string("relu"))
        #expect(n[7].inputs.count == 1 && g.graph.values[n[7].outputs[0]].shape == [1, 2, 1])
    }

    @Test func windowShapeMismatchIsAnError() throws {
        var m = TinyTFLite()
        let x = m.tensor("x", [1, 5, 5, 1])
        let pool = m.tensor("pool", [1, 2, 2, 1])  // SAME stride 2 gives 3x3
        m.op(17, [x], [pool], optionsType: 5, options: Options.pool(padding: 0, stride: 2, filter: 2))
        m.inputs = [x]; m.outputs = [pool]
        #expect(throws: ConverterError.self) { try convert(m) }
    }

    @Test func inputRangeIsRequiredForUnknownModels() throws {
        #expect(throws: ConverterError.unknownInputRange(model: "mystery")) { try convert(tinyModel(), name: "mystery", range: nil) }
        let pose = try convert(tinyModel(), name: "pose_detection", range: nil)
        #expect(pose.metadata.input.valueRange == [-1, 1])
        let hand = try convert(tinyModel(), name: "hand_landmark_lite", range: nil)
        #expect(hand.metadata.input.valueRange == [0, 1])
    }
}

@Suite("SHA-256")
struct SHA256Tests {
    @Test func knownVectors() {
        #expect(SHA256.hexDigest(of: [UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hexDigest(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hexDigest(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hexDigest(of: [UInt8](repeating: 0x61, count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func incrementalUpdatesMatchOneShot() {
        let data = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for split in [0, 1, 55, 56, 63, 64, 65, 500, 999] {
            var h = SHA256()
            h.update(data[..<split])
            h.update(data[split...])
            #expect(h.finalize() == { var o = SHA256(); o.update(data); return o.finalize() }())
        }
    }
}

@Suite struct TensorShapeLimitTests {
    /// A zero-sized shape whose other dimensions are huge has no elements, but the lowering multiplies subsets
    /// of its dimensions (MEAN over the zero axis keeps the rest): such shapes are refused at import. The
    /// fuzz target `tflite` crashed on this (overflow trap); its input is the seed
    /// Tools/fuzzing/corpus/tflite/regression-mean-zero-dim.tflite.
    @Test func zeroSizedShapesWithHugeDimensionsAreRefused() throws {
        #expect(try elementCount([2, 3, 4], tensor: "t") == 24)
        #expect(try elementCount([0, 5], tensor: "t") == 0)
        #expect(throws: ConverterError.self) { try elementCount([0, 1 << 40, 1 << 40], tensor: "t") }
        #expect(throws: ConverterError.self) { try elementCount([0, 1 << 20, 1 << 20], tensor: "t") }
        #expect(throws: ConverterError.self) { try elementCount([1 << 16, 1 << 16], tensor: "t") }
    }
}

/// Inputs that crashed `Tools/fuzzing/fuzz.sh tflite` (kept as seeds in Tools/fuzzing/corpus/tflite): each now converts
/// to a clear error instead of trapping.
@Suite struct FuzzRegressionTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools/fuzzing/corpus/tflite")

    @Test(arguments: ["regression-mean-zero-dim.tflite", "regression-fc-omitted-weights.tflite"])
    func crashingInputsAreErrors(file: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.corpus.appendingPathComponent(file)))
        #expect(throws: ConverterError.self) {
            try ModelConverter.convert(ConversionRequest(tflite: bytes, sourceFile: file, inputRange: [0, 1]))
        }
    }
}
