import BlazeModelFormat
import Testing
@testable import BlazeConverter

@Suite("Padding")
struct PaddingTests {
    @Test(arguments: [
        // input, kernel, stride, dilation → before, after
        (224, 3, 2, 1, 0, 1), (225, 3, 2, 1, 1, 1), (7, 3, 1, 1, 1, 1), (8, 3, 1, 1, 1, 1),
        (8, 5, 1, 1, 2, 2), (8, 5, 2, 1, 1, 2), (9, 5, 2, 1, 2, 2), (6, 3, 2, 1, 0, 1),
        (8, 3, 1, 2, 2, 2), (4, 1, 1, 1, 0, 0), (3, 2, 2, 1, 0, 1), (5, 4, 3, 1, 1, 1),
    ])
    func sameAxis(_ c: (Int, Int, Int, Int, Int, Int)) {
        let p = SpatialPadding.sameAxis(input: c.0, kernel: c.1, stride: c.2, dilation: c.3)
        #expect(p.before == c.4 && p.after == c.5, "in \(c.0) k \(c.1) s \(c.2) d \(c.3)")
        // SAME keeps out = ceil(in / stride).
        let out = SpatialPadding.outputSize(input: c.0, kernel: c.1, stride: c.2, dilation: c.3, before: p.before, after: p.after)
        #expect(out == (c.0 + c.2 - 1) / c.2)
    }

    @Test func padsOrderIsTopLeftBottomRight() {
        #expect(SpatialPadding.pads(.same, inputH: 224, inputW: 225, kernelH: 3, kernelW: 3, strideH: 2, strideW: 2) == [0, 1, 1, 1])
        #expect(SpatialPadding.pads(.valid, inputH: 224, inputW: 225, kernelH: 3, kernelW: 3, strideH: 2, strideW: 2) == [0, 0, 0, 0])
    }
}

@Suite("Densify")
struct DensifyTests {
    @Test func csrMatrix() throws {
        // TFLite's SimpleTestD0S1 example: 3x4, rows dense, columns CSR.
        let sparsity = SparsityParameters(traversalOrder: [0, 1], blockMap: [], dimMetadata: [
            DimensionMetadata(format: .dense, denseSize: 3),
            DimensionMetadata(format: .sparseCSR, segments: [0, 3, 3, 5], indices: [0, 2, 3, 0, 3]),
        ])
        let dense = try SparseDensifier.densify(values: [6, 9, 8, 5, 7] as [Float], zero: 0, shape: [3, 4],
                                                sparsity: sparsity, tensor: "t")
        #expect(dense == [6, 0, 9, 8, 0, 0, 0, 0, 5, 0, 0, 7])
    }

    @Test func blockSparseMatrix() throws {
        // TFLite's BlockTestD0S11 example: 4x4 in 2x2 blocks, block rows dense, block columns CSR.
        let sparsity = SparsityParameters(traversalOrder: [0, 1, 2, 3], blockMap: [0, 1], dimMetadata: [
            DimensionMetadata(format: .dense, denseSize: 2),
            DimensionMetadata(format: .sparseCSR, segments: [0, 2, 3], indices: [0, 1, 1]),
            DimensionMetadata(format: .dense, denseSize: 2),
            DimensionMetadata(format: .dense, denseSize: 2),
        ])
        let dense = try SparseDensifier.densify(values: [1, 0, 0, 4, 2, 3, 0, 0, 5, 0, 0, 6] as [Float], zero: 0,
                                                shape: [4, 4], sparsity: sparsity, tensor: "t")
        #expect(dense == [1, 0, 2, 3, 0, 4, 0, 0, 0, 0, 5, 0, 0, 0, 0, 6])
    }

    @Test func transposedTraversal() throws {
        // Column-major traversal: columns dense, rows CSR.
        let sparsity = SparsityParameters(traversalOrder: [1, 0], blockMap: [], dimMetadata: [
            DimensionMetadata(format: .dense, denseSize: 3),
            DimensionMetadata(format: .sparseCSR, segments: [0, 1, 1, 3], indices: [1, 0, 1]),
        ])
        let dense = try SparseDensifier.densify(values: [1, 2, 3] as [Float], zero: 0, shape: [2, 3],
                                                sparsity: sparsity, tensor: "t")
        #expect(dense == [0, 0, 2, 1, 0, 3])
    }

    @Test func inconsistentSparsityThrows() {
        let bad: [SparsityParameters] = [
            SparsityParameters(traversalOrder: [0, 1], blockMap: [], dimMetadata: [
                DimensionMetadata(format: .dense, denseSize: 3),
                DimensionMetadata(format: .sparseCSR, segments: [0, 3, 9, 5], indices: [0, 2, 3, 0, 3]),
            ]),
            SparsityParameters(traversalOrder: [0, 1], blockMap: [], dimMetadata: [
                DimensionMetadata(format: .dense, denseSize: 3),
                DimensionMetadata(format: .sparseCSR, segments: [0, 3, 3, 5], indices: [0, 2, 4, 0, 3]),
            ]),
            SparsityParameters(traversalOrder: [0, 1], blockMap: [], dimMetadata: [
                DimensionMetadata(format: .dense, denseSize: 7),
                DimensionMetadata(format: .sparseCSR, segments: [0, 3, 3, 5], indices: [0, 2, 3, 0, 3]),
            ]),
            SparsityParameters(traversalOrder: [1, 1], blockMap: [], dimMetadata: [
                DimensionMetadata(format: .dense, denseSize: 3), DimensionMetadata(format: .dense, denseSize: 4),
            ]),
            SparsityParameters(traversalOrder: [0, 1], blockMap: [], dimMetadata: [
                DimensionMetadata(format: .dense, denseSize: 3),
                DimensionMetadata(format: .sparseCSR, segments: [0, 3], indices: [0, 2, 3]),
            ]),
        ]
        for s in bad {
            #expect(throws: ConverterError.self) {
                try SparseDensifier.densify(values: [6, 9, 8, 5, 7] as [Float], zero: 0, shape: [3, 4], sparsity: s, tensor: "t")
            }
        }
    }

    @Test func densifyPassFoldsSparseConstant() throws {
        var graph = try ImportGraph(model: TFLiteModel(bytes: tinyModel().build()))
        let folded = try DensifyPass.run(&graph)
        #expect(folded == 1)
        #expect(!graph.operators.contains { $0.builtin == .densify })
        let t = try #require(graph.tensors.first { $0.name == "dw/w16" })
        guard case .float16(let bits)? = t.data else { Issue.record("not float16"); return }
        let expected = (0..<36).map { i -> UInt16 in
            let cell = i / 4, c = i % 4
            return (cell + c) % 2 == 0 ? float16Bits(cell * 4 + c + 1) : 0
        }
        #expect(bits == expected)
    }
}

@Suite("Float16 folding")
struct Float16Tests {
    @Test func conversions() {
        let cases: [(UInt16, Float)] = [
            (0x0000, 0), (0x3c00, 1), (0xc000, -2), (0x3555, 0.333251953125), (0x7bff, 65504),
            (0x0001, 0x1p-24), (0x03ff, 0x1.ff8p-15), (0x0400, 0x1p-14), (0x8001, -0x1p-24),
            (0x7c00, .infinity), (0xfc00, -.infinity),
        ]
        for (bits, value) in cases {
            #expect(Float16Conversion.float(fromBits: bits) == value, "0x\(String(bits, radix: 16))")
        }
        #expect(Float16Conversion.float(fromBits: 0x8000).bitPattern == (-0.0 as Float).bitPattern)
        #expect(Float16Conversion.float(fromBits: 0x7e00).isNaN)
        #expect(Float16Conversion.float(fromBits: 0xfe01).isNaN)
        // Every finite half converts exactly (round-trips through the platform's Float16 where available).
        #if arch(x86_64) || arch(arm64)
        if #available(macOS 11, iOS 14, *) {
            for bits in UInt16.min...UInt16.max {
                let mine = Float16Conversion.float(fromBits: bits)
                let reference = Float(Float16(bitPattern: bits))
                #expect(mine.bitPattern == reference.bitPattern || (mine.isNaN && reference.isNaN))
                if !(mine.bitPattern == reference.bitPattern || (mine.isNaN && reference.isNaN)) { break }
            }
        }
        #endif
    }

    @Test func foldsDequantizeOfFloat16Constant() {
        var graph = ImportGraph(tensors: [
            ImportTensor(name: "w16", shape: [4], typeCode: 1, data: .float16([0x3c00, 0x0001, 0x7c00, 0xc000])),
            ImportTensor(name: "w", shape: [4], typeCode: 0),
            ImportTensor(name: "q8", shape: [2], typeCode: 9, data: .raw([1, 2])),
            ImportTensor(name: "q", shape: [2], typeCode: 0),
        ], operators: [
            ImportOperator(index: 0, code: 6, inputs: [0], outputs: [1]),
            ImportOperator(index: 1, code: 6, inputs: [2], outputs: [3]),
        ], inputs: [], outputs: [1, 3])
        #expect(DequantizeFoldingPass.run(&graph) == 1)
        #expect(graph.tensors[1].data == .float32([1, 0x1p-24, .infinity, -2]))
        // The int8 DEQUANTIZE stays, for the importer to report.
        #expect(graph.operators.map(\.index) == [1])
    }
}

@Suite("Graph passes")
struct GraphPassTests {
    /// input [1,8,8,4] → pad → consumers…
    func graph(padding pads: [Int], consumers: [OpKind], padIsOutput: Bool = false) -> LoweredGraph {
        var values = [ValueInfo(name: "x", shape: [1, 8, 8, 4])]
        let padded = [1, 8 + pads[2] + pads[3], 8 + pads[4] + pads[5], 4 + pads[6] + pads[7]]
        values.append(ValueInfo(name: "padded", shape: padded))
        values.append(ValueInfo(name: "w", shape: [4, 3, 3, 4], constant: 0))
        values.append(ValueInfo(name: "dw", shape: [3, 3, 4], constant: 1))
        values.append(ValueInfo(name: "b", shape: [4], constant: 2))
        var nodes = [Node(op: .pad, name: "padded", inputs: [0], outputs: [1], attributes: ["pads": .ints(pads)])]
        var outputs: [Int] = padIsOutput ? [1] : []
        for (i, kind) in consumers.enumerated() {
            values.append(ValueInfo(name: "y\(i)", shape: [1, 4, 4, 4]))
            let conv: [String: AttributeValue] = ["strides": .ints([2, 2]), "dilations": .ints([1, 1]),
                                                  "pads": .ints([0, 0, 1, 1]), "activation": .string("relu")]
            switch kind {
            case .conv2d: nodes.append(Node(op: .conv2d, name: "y\(i)", inputs: [1, 2, 4], outputs: [values.count - 1], attributes: conv))
            case .depthwiseConv2d: nodes.append(Node(op: .depthwiseConv2d, name: "y\(i)", inputs: [1, 3, 4], outputs: [values.count - 1], attributes: conv))
            default: nodes.append(Node(op: .maxPool2d, name: "y\(i)", inputs: [1], outputs: [values.count - 1], attributes: [
                "filter": .ints([2, 2]), "strides": .ints([2, 2]), "pads": .ints([0, 0, 0, 0]), "activation": .string("none")]))
            }
            outputs.append(values.count - 1)
        }
        let constants = [ConstantTensor(name: "w", shape: [4, 3, 3, 4], values: .init(repeating: 1, count: 144)),
                         ConstantTensor(name: "dw", shape: [3, 3, 4], values: .init(repeating: 2, count: 36)),
                         ConstantTensor(name: "b", shape: [4], values: [0, 1, 2, 3])]
        return LoweredGraph(graph: Graph(values: values, nodes: nodes, inputs: [0], outputs: outputs), constants: constants)
    }

    @Test(arguments: [OpKind.conv2d, .depthwiseConv2d])
    func fusesSpatialZeroPadIntoSingleConvConsumer(_ kind: OpKind) throws {
        var g = graph(padding: [0, 0, 1, 2, 3, 4, 0, 0], consumers: [kind])
        #expect(try PadFusionPass.run(&g) == 1)
        DeadValueElimination.run(&g)
        #expect(g.graph.nodes.map(\.op) == [kind])
        let conv = g.graph.nodes[0]
        // [top, left, bottom, right] = old [0,0,1,1] + pad H (1,2), W (3,4).
        #expect(conv.attributes["pads"] == .ints([1, 3, 3, 5]))
        #expect(g.graph.values[conv.inputs[0]].name == "x")
        #expect(!g.graph.values.contains { $0.name == "padded" })
        // The unused constant of the other conv kind is dropped, and indices stay consistent.
        #expect(g.constants.count == 2)
        for v in g.graph.values { if let c = v.constant { #expect(g.constants[c].name == v.name) } }
    }

    @Test func keepsPadsThatMustNotFuse() throws {
        let cases: [LoweredGraph] = [
            graph(padding: [0, 0, 1, 1, 1, 1, 0, 0], consumers: [.conv2d, .depthwiseConv2d]),  // two consumers
            graph(padding: [0, 0, 1, 1, 1, 1, 0, 0], consumers: [.maxPool2d]),                  // pooling
            graph(padding: [0, 0, 0, 0, 0, 0, 0, 4], consumers: [.conv2d]),                     // channel pad
            graph(padding: [0, 0, 1, 1, 1, 1, 0, 0], consumers: [.conv2d], padIsOutput: true),  // graph output
        ]
        for var g in cases {
            #expect(try PadFusionPass.run(&g) == 0)
            #expect(g.graph.nodes.first?.op == .pad)
        }
    }

    @Test func deadValueEliminationDropsUnusedNodesAndConstants() {
        var g = graph(padding: [0, 0, 1, 1, 1, 1, 0, 0], consumers: [.conv2d, .depthwiseConv2d])
        g.graph.outputs = [g.graph.outputs[0]]  // the depthwise branch is dead
        DeadValueElimination.run(&g)
        #expect(g.graph.nodes.map(\.op) == [.pad, .conv2d])
        #expect(g.graph.values.map(\.name) == ["x", "padded", "w", "b", "y0"])
        #expect(g.constants.map(\.name) == ["w", "b"])
        #expect(g.graph.nodes[1].inputs == [1, 2, 3])
    }
}
