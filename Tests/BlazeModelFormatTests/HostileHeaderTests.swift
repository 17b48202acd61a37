import BlazeModelFormat
import Foundation
import Testing

/// Hostile JSON headers in files whose fixed header, layout and checksum are all correct: only the
/// one field a test changes is wrong, so only structural validation can catch it.
@Suite struct HostileHeaderTests {
    /// The tiny model with its header changed by `mutate`, re-assembled with a correct checksum.
    func hostile(cout: Int = 2, _ mutate: (inout ModelHeader) -> Void) throws -> [UInt8] {
        let bytes = try TinyModel(cout: cout).bytes()
        var header = try ModelFile(bytes: bytes, name: "source").header
        mutate(&header)
        return assemble(json: try encode(header), data: split(bytes).data)
    }

    /// The tiny model with its JSON text changed by `edit`.
    func hostileJSON(_ edit: (String) -> String) throws -> [UInt8] {
        let bytes = try TinyModel().bytes()
        let parts = split(bytes)
        let json = edit(String(decoding: parts.json, as: UTF8.self))
        return assemble(json: Array(json.utf8), data: parts.data)
    }

    @Test func unchangedHeaderReassemblesToTheSameFile() throws {
        let bytes = try TinyModel().bytes()
        #expect(try hostile { _ in } == bytes)
        #expect(try hostileJSON { $0 } == bytes)
        #expect(rejection(try hostile { _ in }) == nil)
    }

    @Test func absurdTensorShapes() throws {
        for shape in [[1 << 40, 1 << 40], [1 << 28, 1 << 40], [1 << 20, 1 << 20], [Int.max, 2], [1 << 14, 1 << 14, 2]] {
            let bytes = try hostile { $0.tensors[0].shape = shape }
            expectRejection(bytes, "badTensor", mentioning: ["'w'", "\(shape)", "\(ModelFileFormat.maxElementCount)"])
        }
        expectRejection(try hostile { $0.tensors[0].shape = [1, 1, 1, 1, 1, 2, 3] }, "badTensor", mentioning: ["'w'", "rank 7"])
    }

    @Test func absurdValueShapes() throws {
        for shape in [[1 << 40, 1 << 40], [1, 1 << 30, 1 << 30, 3], [Int.max, Int.max]] {
            let bytes = try hostile { $0.graph.values[3].shape = shape }
            expectRejection(bytes, "badGraph", mentioning: ["value 3 'y'", "\(shape)", "\(ModelFileFormat.maxElementCount)"])
        }
        expectRejection(try hostile { $0.graph.values[0].shape = [1, 1, 1, 1, 1, 1, 48] }, "badGraph", mentioning: ["value 0 'x'", "rank 7"])
    }

    @Test func nonPositiveDimensions() throws {
        for shape in [[-2], [0], [Int.min]] {
            expectRejection(try hostile { $0.tensors[1].shape = shape }, "badTensor", mentioning: ["'b'", "\(shape)", "non-positive"])
        }
        for shape in [[1, -4, -4, 3], [1, 4, 0, 3], [-1]] {
            expectRejection(try hostile { $0.graph.values[0].shape = shape }, "badGraph", mentioning: ["value 0 'x'", "\(shape)", "non-positive"])
        }
    }

    @Test func tensorOffsetsOutsideTheDataSection() throws {
        // Data section: w at 0..<24, b at 64..<72, 128 bytes.
        expectRejection(try hostile { $0.tensors[1].offset = 192 }, "badTensor", mentioning: ["'b'", "192..<200", "128 bytes"])
        expectRejection(try hostile { $0.tensors[1].offset = 128 }, "badTensor", mentioning: ["'b'", "128..<136", "128 bytes"])
        expectRejection(try hostile { $0.tensors[1].offset = Int.max - 63 }, "badTensor", mentioning: ["'b'", "128 bytes"])
        expectRejection(try hostile { $0.tensors[0].offset = -64 }, "badTensor", mentioning: ["'w'", "-64..<-40"])
    }

    @Test func misalignedTensorOffsets() throws {
        for offset in [4, 1, 32, 63] {
            expectRejection(try hostile { $0.tensors[0].offset = offset }, "badTensor",
                            mentioning: ["'w'", "\(offset)..<\(offset + 24)", "64-byte aligned"])
        }
    }

    @Test func tensorOverlappingTheEnd() throws {
        // cout 8: w is 96 bytes at 0, b 32 bytes at 128, the data section 192 bytes.
        expectRejection(try hostile(cout: 8) { $0.tensors[0].offset = 128 }, "badTensor", mentioning: ["'w'", "128..<224", "192 bytes"])
        expectRejection(try hostile(cout: 8) { $0.tensors[1].offset = 192 }, "badTensor", mentioning: ["'b'", "192..<224"])
    }

    @Test func byteCountNotMatchingTheShape() throws {
        for count in [20, 28, 0, -24, 96] {
            expectRejection(try hostile { $0.tensors[0].byteCount = count }, "badTensor",
                            mentioning: ["'w'", "byte count expected 24", "[2, 1, 1, 3]", "found \(count)"])
        }
    }

    @Test func dtypeNotFloat32() throws {
        for dtype in ["float16", "int8", "", "FLOAT32"] {
            expectRejection(try hostile { $0.tensors[0].dtype = dtype }, "badTensor", mentioning: ["'w'", "expected float32", "found \(dtype)"])
        }
    }

    @Test func valueReferringToATensorOutOfRange() throws {
        for index in [2, 99, -1, Int.max] {
            expectRejection(try hostile { $0.graph.values[1].constant = index }, "badGraph",
                            mentioning: ["value 1 'w'", "tensor \(index)", "has 2"])
        }
        // A value whose shape disagrees with its tensor's.
        expectRejection(try hostile { $0.graph.values[1].shape = [2, 1, 1, 4] }, "badGraph",
                        mentioning: ["value 1 'w'", "[2, 1, 1, 4]", "[2, 1, 1, 3]"])
        // The input value made a constant.
        expectRejection(try hostile { $0.graph.values[0].constant = 1 }, "badGraph",
                        mentioning: ["value 0 'x'", "[1, 4, 4, 3]", "[2]"])
    }

    @Test func nodeReadingAValueNotYetComputed() throws {
        // Reads its own output.
        expectRejection(try hostile { $0.graph.nodes[0].inputs = [3, 1, 2] }, "badGraph",
                        mentioning: ["node 0 (conv2d 'conv')", "reads value 3", "not yet computed"])
        // Reads the output of a later node.
        let bytes = try hostile { h in
            h.graph.values.append(ValueInfo(name: "z", shape: [1, 4, 4, 2]))
            h.graph.nodes.insert(Node(op: .logistic, name: "early", inputs: [4], outputs: [3]), at: 0)
            h.graph.nodes[1].outputs = [4]
        }
        expectRejection(bytes, "badGraph", mentioning: ["node 0 (logistic 'early')", "reads value 4"])
        for bad in [99, -1, 4] {
            expectRejection(try hostile { $0.graph.nodes[0].inputs = [0, 1, bad] }, "badGraph",
                            mentioning: ["node 0 (conv2d 'conv')", "reads value \(bad)", "out of range"])
        }
    }

    @Test func nodeWritingADefinedValue() throws {
        for target in [0, 1, 9, -3] {
            expectRejection(try hostile { $0.graph.nodes[0].outputs = [target] }, "badGraph",
                            mentioning: ["node 0 (conv2d 'conv')", "writes value \(target)"])
        }
        expectRejection(try hostile { $0.graph.nodes[0].outputs = [3, 3] }, "badGraph", mentioning: ["writes value 3", "already defined"])
    }

    @Test func graphOutputNeverComputed() throws {
        let bytes = try hostile { h in
            h.graph.values.append(ValueInfo(name: "z", shape: [1, 4, 4, 2]))
            h.graph.outputs = [3, 4]
        }
        expectRejection(bytes, "badGraph", mentioning: ["graph output 4", "never computed"])
        expectRejection(try hostile { $0.graph.outputs = [17] }, "badGraph", mentioning: ["graph output 17"])
        expectRejection(try hostile { $0.graph.outputs = [] }, "badGraph", mentioning: ["at least one input and one output", "1 and 0"])
    }

    @Test func badGraphInputs() throws {
        expectRejection(try hostile { $0.graph.inputs = [1] }, "badGraph", mentioning: ["graph input 1", "a constant"])
        expectRejection(try hostile { $0.graph.inputs = [42] }, "badGraph", mentioning: ["graph input 42", "out of range"])
        expectRejection(try hostile { $0.graph.inputs = [] }, "badGraph", mentioning: ["0 and 1"])
        expectRejection(try hostile { $0.graph.inputs = [0, 0] }, "badGraph", mentioning: ["graph input 0"])
    }

    @Test func malformedJSON() throws {
        let edits: [(String, (String) -> String)] = [
            ("unknown op", { $0.replacingOccurrences(of: "\"op\":\"conv2d\"", with: "\"op\":\"conv9d\"") }),
            ("attribute with two keys", { $0.replacingOccurrences(of: "{\"s\":\"relu6\"}", with: "{\"s\":\"relu6\",\"i\":1}") }),
            ("missing metadata", { $0.replacingOccurrences(of: "\"metadata\":", with: "\"metadota\":") }),
            ("dimension beyond Int", { $0.replacingOccurrences(of: "\"shape\":[2]", with: "\"shape\":[1e30]") }),
            ("fractional dimension", { $0.replacingOccurrences(of: "\"shape\":[2]", with: "\"shape\":[2.5]") }),
            ("cut short", { String($0.dropLast()) }),
            ("trailing garbage", { $0 + "]" }),
            ("not an object", { _ in "[1,2,3]" }),
            ("empty", { _ in "" }),
        ]
        let original = try TinyModel().bytes()
        for (what, edit) in edits {
            let bytes = try hostileJSON(edit)
            #expect(bytes != original, "\(what): the edit changed nothing")
            guard let e = rejection(bytes) else {
                Issue.record("\(what): accepted")
                continue
            }
            #expect(caseName(e) == "badHeader", "\(what): \(e)")
            #expect(e.description.hasPrefix("tiny.bkm: corrupt model header: "), "\(what): \(e)")
        }
        // Invalid UTF-8.
        let parts = split(try TinyModel().bytes())
        var json = parts.json
        json[json.count / 2] = 0xff
        expectRejection(assemble(json: json, data: parts.data), "badHeader")
    }
}

extension HostileHeaderTests {
    /// Resource limit: ``ModelFileFormat/maxElementCount`` (2^28 elements, 1 GiB of float32) per constant
    /// tensor and per graph value, checked on the header before the runtime could size a buffer from it.
    /// At the cap a tensor's shape passes the element check (the tiny file is then refused for the bytes it
    /// lacks); one element over, the shape itself is refused, naming the tensor, the shape and the cap.
    @Test func elementCapBoundary() throws {
        let cap = ModelFileFormat.maxElementCount
        #expect(cap == 1 << 28)
        for shape in [[cap], [1 << 14, 1 << 14], [1, 1 << 13, 1 << 13, 4]] {
            let e = try #require(rejection(try hostile { $0.tensors[1].shape = shape }), "\(shape) accepted")
            #expect(caseName(e) == "badTensor" && e.description.contains("byte count expected \(cap * 4)")
                    && !e.description.contains("more than \(cap) elements"), "\(shape): \(e)")
        }
        for shape in [[cap + 1], [(1 << 14) + 1, 1 << 14], [1, 1 << 13, 1 << 13, 5], [1 << 30]] {
            let start = ContinuousClock.now
            expectRejection(try hostile { $0.tensors[1].shape = shape }, "badTensor",
                            mentioning: ["'b'", "\(shape)", "more than \(cap) elements"])
            #expect(ContinuousClock.now - start < .seconds(1), "\(shape) took too long")
        }
        for shape in [[1, 1 << 13, 1 << 13, 5], [1, 16385, 16384, 1]] {
            expectRejection(try hostile { $0.graph.values[3].shape = shape }, "badGraph",
                            mentioning: ["value 3 'y'", "\(shape)", "more than \(cap) elements"])
        }
    }
}
