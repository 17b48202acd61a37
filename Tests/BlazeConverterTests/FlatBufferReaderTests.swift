import Testing
import BlazeTestSupport
@testable import BlazeConverter

@Suite("FlatBuffer reader")
struct FlatBufferReaderTests {
    @Test func decodesHandBuiltModel() throws {
        let model = try TFLiteModel(bytes: tinyModel().build())
        #expect(model.version == 3)
        #expect(model.description == "tiny test model")
        #expect(model.subgraphs.count == 1)
        let g = model.subgraphs[0]
        #expect(g.name == "main")
        #expect(g.inputs == [0])
        #expect(g.tensors[0].name == "input")
        #expect(g.tensors[0].shape == [1, 6, 6, 3])
        #expect(g.tensors[1].type == .int32)
        #expect(model.buffers[g.tensors[1].buffer] == int32Bytes([0, 0, 1, 1, 1, 1, 0, 0]))
        #expect(model.operatorCodes.map(\.name) == ["PAD", "DEQUANTIZE", "CONV_2D", "DENSIFY", "DEPTHWISE_CONV_2D", "ADD", "LOGISTIC"])
        let conv = g.operators[2]
        #expect(conv.options == .conv2d(padding: 1, strideW: 1, strideH: 1, activation: 3, dilationW: 1, dilationH: 1))
        let dw = g.operators[5]
        #expect(dw.options == .depthwiseConv2d(padding: 0, strideW: 2, strideH: 2, depthMultiplier: 1, activation: 0,
                                                dilationW: 1, dilationH: 1))
        let sparsity = try #require(g.tensors.first { $0.name == "dw/sparse" }?.sparsity)
        #expect(sparsity.traversalOrder == [0, 1, 2, 3])
        #expect(sparsity.dimMetadata.map(\.format) == [.dense, .dense, .dense, .sparseCSR])
        #expect(sparsity.dimMetadata[3].segments.count == 10)
    }

    @Test func builtinCodeIsMaxOfDeprecatedAndNewField() throws {
        var m = TinyTFLite()
        let x = m.tensor("x", [1, 4])
        let y = m.tensor("y", [1, 4])
        m.op(150, [x], [y])  // GELU: deprecated field holds 127, builtin_code 150
        m.inputs = [x]; m.outputs = [y]
        let model = try TFLiteModel(bytes: m.build())
        #expect(model.operatorCodes[0].builtinCode == 150)
        #expect(model.operatorCodes[0].name == "GELU")
    }

    @Test func rejectsWrongIdentifier() {
        let bytes = FlatBufferTestBuilder.build(root: FBTable([(0, .u32(3))]), identifier: "BKM1")
        #expect(throws: ConverterError.self) { try TFLiteModel(bytes: bytes) }
    }

    @Test func everyTruncationThrows() {
        let bytes = tinyModel().build()
        for length in 0..<bytes.count {
            let prefix = Array(bytes[0..<length])
            #expect(throws: (any Error).self, "prefix of \(length) bytes") {
                _ = try ModelConverter.convert(ConversionRequest(tflite: prefix, sourceFile: "tiny.tflite", inputRange: [0, 1]))
            }
        }
    }

    @Test func truncationErrorNamesTableFieldAndOffset() {
        let bytes = tinyModel().build()
        do {
            _ = try TFLiteModel(bytes: Array(bytes.prefix(bytes.count / 2)))
            Issue.record("expected an error")
        } catch let error as FlatBufferError {
            #expect(error.location.contains("."))
            #expect(error.description.contains("at offset"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func flippedBytesNeverCrash() {
        let bytes = tinyModel().build()
        var generator = SplitMix64(seed: 42)
        for position in 0..<bytes.count {
            for pattern: UInt8 in [0xff, 0x80, 0x01, UInt8(truncatingIfNeeded: generator.next())] {
                var hostile = bytes
                hostile[position] ^= pattern
                // Either a clean error or a (possibly different) valid model; never a trap.
                _ = try? ModelConverter.convert(ConversionRequest(tflite: hostile, sourceFile: "tiny.tflite", inputRange: [0, 1]))
            }
        }
        // Random multi-byte corruption.
        for _ in 0..<300 {
            var hostile = bytes
            for _ in 0..<8 {
                hostile[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            _ = try? ModelConverter.convert(ConversionRequest(tflite: hostile, sourceFile: "tiny.tflite", inputRange: [0, 1]))
        }
    }

    @Test func hugeVectorLengthIsRejected() throws {
        // A vector claiming 2^30 elements inside a tiny buffer.
        var bytes = FlatBufferTestBuilder.build(root: FBTable([(0, .u32(3)), (1, .tables([]))]))
        // The operator_codes vector length is the last 4 bytes written.
        let n = bytes.count
        bytes[n - 4] = 0; bytes[n - 3] = 0; bytes[n - 2] = 0; bytes[n - 1] = 0x40
        #expect(throws: FlatBufferError.self) { try TFLiteModel(bytes: bytes) }
    }
}
