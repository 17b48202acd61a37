import BlazeKit
import BlazeModelFormat
@testable import BlazeRuntime
import Foundation
import Testing

// MARK: - Building small graphs in memory

/// A graph under construction; ``model()`` writes it with ``ModelFileWriter`` and loads it back.
struct TinyGraph {
    var values: [ValueInfo] = []
    var nodes: [Node] = []
    var constants: [ConstantTensor] = []
    var inputs: [Int] = []
    var outputs: [Int] = []

    mutating func input(_ shape: [Int], name: String = "x") -> Int {
        values.append(ValueInfo(name: name, shape: shape))
        inputs.append(values.count - 1)
        return values.count - 1
    }

    mutating func constant(_ shape: [Int], _ data: [Float]) -> Int {
        let name = "c\(constants.count)"
        constants.append(ConstantTensor(name: name, shape: shape, values: data))
        values.append(ValueInfo(name: name, shape: shape, constant: constants.count - 1))
        return values.count - 1
    }

    /// Adds a node writing one new value of `shape`; returns that value.
    @discardableResult
    mutating func op(_ kind: OpKind, _ ins: [Int], _ shape: [Int], _ attributes: [String: AttributeValue] = [:],
                     name: String? = nil) -> Int {
        let name = name ?? "n\(nodes.count)"
        values.append(ValueInfo(name: name, shape: shape))
        nodes.append(Node(op: kind, name: name, inputs: ins, outputs: [values.count - 1], attributes: attributes))
        return values.count - 1
    }

    func model(name: String = "tiny") throws -> ModelFile {
        let x = values[inputs.first ?? 0]
        let metadata = ModelMetadata(
            name: name, sourceFile: name + ".tflite", sourceSHA256: String(repeating: "0", count: 64), converterVersion: "test",
            input: InputContract(name: x.name, shape: x.shape, colorOrder: "rgb", valueRange: [0, 1]),
            outputs: outputs.map { TensorDescription(name: values[$0].name, shape: values[$0].shape) })
        let graph = Graph(values: values, nodes: nodes, inputs: inputs, outputs: outputs)
        let bytes = try ModelFileWriter.serialize(metadata: metadata, graph: graph, constants: constants)
        return try ModelFile(bytes: bytes, name: name + ".bkm")
    }

    func session(threads: Int = 1) throws -> InferenceSession {
        try InferenceSession(model: model(), options: RuntimeOptions(threadCount: threads))
    }
}

let window1x1: [String: AttributeValue] = ["strides": .ints([1, 1]), "pads": .ints([0, 0, 0, 0])]

func window(strides: Int = 1, pads: [Int] = [0, 0, 0, 0], activation: String = "none") -> [String: AttributeValue] {
    ["strides": .ints([strides, strides]), "pads": .ints(pads), "activation": .string(activation)]
}

/// Deterministic pseudo-random values in `lo..<hi` (xorshift32).
func pseudoRandom(_ count: Int, seed: UInt32 = 0x9E37_79B9, in range: ClosedRange<Float> = 0...1) -> [Float] {
    var x = seed
    return (0..<count).map { _ in
        x ^= x << 13; x ^= x >> 17; x ^= x << 5
        return range.lowerBound + (range.upperBound - range.lowerBound) * Float(x >> 8) / 16_777_216
    }
}

/// Small integers (exact in float32 sums of any order).
func smallInts(_ count: Int, seed: UInt32 = 12345, span: Int = 7) -> [Float] {
    var x = seed
    return (0..<count).map { _ in
        x ^= x << 13; x ^= x >> 17; x ^= x << 5
        return Float(Int(x % UInt32(2 * span + 1)) - span)
    }
}

// MARK: - Reference twins: plain loops (NHWC, batch 1), one per op, named `<op>Reference`

func convReference(_ x: [Float], h: Int, w: Int, cin: Int, weights: [Float], bias: [Float], cout: Int, k: Int,
                   stride: Int, padTop: Int, padLeft: Int, oh: Int, ow: Int, lo: Float = -.infinity, hi: Float = .infinity) -> [Float] {
    var out = [Float](repeating: 0, count: oh * ow * cout)
    for oy in 0..<oh { for ox in 0..<ow { for o in 0..<cout {
        var s = bias[o]
        for ky in 0..<k { for kx in 0..<k {
            let iy = oy * stride - padTop + ky, ix = ox * stride - padLeft + kx
            guard iy >= 0, iy < h, ix >= 0, ix < w else { continue }
            for c in 0..<cin { s += x[(iy * w + ix) * cin + c] * weights[((o * k + ky) * k + kx) * cin + c] }
        } }
        out[(oy * ow + ox) * cout + o] = min(max(s, lo), hi)
    } } }
    return out
}

func depthwiseReference(_ x: [Float], h: Int, w: Int, c: Int, weights: [Float], bias: [Float], k: Int,
                        stride: Int, padTop: Int, padLeft: Int, oh: Int, ow: Int) -> [Float] {
    var out = [Float](repeating: 0, count: oh * ow * c)
    for oy in 0..<oh { for ox in 0..<ow { for ch in 0..<c {
        var s = bias[ch]
        for ky in 0..<k { for kx in 0..<k {
            let iy = oy * stride - padTop + ky, ix = ox * stride - padLeft + kx
            guard iy >= 0, iy < h, ix >= 0, ix < w else { continue }
            s += x[(iy * w + ix) * c + ch] * weights[(ky * k + kx) * c + ch]
        } }
        out[(oy * ow + ox) * c + ch] = s
    } } }
    return out
}

/// Max pooling where padded cells are ignored.
func maxPoolReference(_ x: [Float], h: Int, w: Int, c: Int, k: Int, stride: Int, pad: Int, oh: Int, ow: Int) -> [Float] {
    var out = [Float](repeating: 0, count: oh * ow * c)
    for oy in 0..<oh { for ox in 0..<ow { for ch in 0..<c {
        var m = -Float.infinity
        for ky in 0..<k { for kx in 0..<k {
            let iy = oy * stride - pad + ky, ix = ox * stride - pad + kx
            guard iy >= 0, iy < h, ix >= 0, ix < w else { continue }
            m = max(m, x[(iy * w + ix) * c + ch])
        } }
        out[(oy * ow + ox) * c + ch] = m
    } } }
    return out
}

func depthToSpaceReference(_ x: [Float], h: Int, w: Int, c: Int, block b: Int) -> [Float] {
    let oc = c / (b * b)
    var out = [Float](repeating: 0, count: x.count)
    for oy in 0..<(h * b) { for ox in 0..<(w * b) { for ch in 0..<oc {
        out[(oy * w * b + ox) * oc + ch] = x[((oy / b) * w + ox / b) * c + ((oy % b) * b + ox % b) * oc + ch]
    } } }
    return out
}

// MARK: - Registry and options

@Suite struct RegistryAndOptionTests {
    @Test func everyOpHasAPlanner() {
        #expect(OpRegistry.unregistered.isEmpty, "no planner for \(OpRegistry.unregistered)")
        #expect(OpRegistry.planners.count == OpKind.allCases.count)
        for (kind, planner) in OpRegistry.planners { #expect(planner.kind == kind) }
    }

    @Test(arguments: [0, 65, -1, Int.min, 1000])
    func threadCountOutOfRangeIsRejected(_ n: Int) throws {
        var g = TinyGraph()
        let x = g.input([1, 2, 2, 3])
        g.outputs = [g.op(.logistic, [x], [1, 2, 2, 3])]
        let model = try g.model()
        #expect(throws: RuntimeError.invalidOption(name: "threadCount", expected: "1...64", actual: "\(n)")) {
            try InferenceSession(model: model, options: RuntimeOptions(threadCount: n))
        }
        let e = RuntimeError.invalidOption(name: "threadCount", expected: "1...64", actual: "\(n)")
        #expect(e.description.contains("threadCount") && e.description.contains("\(n)"))
    }

    @Test func threadCountBoundsAreAccepted() throws {
        var g = TinyGraph()
        let x = g.input([1, 2, 2, 3])
        g.outputs = [g.op(.logistic, [x], [1, 2, 2, 3])]
        for n in [1, 64] {
            let s = try g.session(threads: n)
            #expect(s.options.threadCount == n)
            #expect(try s.run([Float](repeating: 0, count: 12))[0] == [Float](repeating: 0.5, count: 12))
        }
    }

    @Test func wrongInputLengthIsRejected() throws {
        var g = TinyGraph()
        let x = g.input([1, 2, 2, 3], name: "image")
        g.outputs = [g.op(.logistic, [x], [1, 2, 2, 3])]
        let s = try g.session()
        for n in [0, 11, 13, 48] {
            #expect(throws: RuntimeError.invalidInput(name: "image", expected: "12 floats for shape [1, 2, 2, 3]", actual: "\(n)")) {
                try s.run([Float](repeating: 1, count: n))
            }
        }
        // The session still works afterwards.
        #expect(try s.run([Float](repeating: 0, count: 12))[0] == [Float](repeating: 0.5, count: 12))
    }

    @Test func twoGraphInputsAreAModelMismatch() throws {
        var g = TinyGraph()
        let a = g.input([1, 2, 2, 1], name: "a")
        let b = g.input([1, 2, 2, 1], name: "b")
        g.outputs = [g.op(.add, [a, b], [1, 2, 2, 1])]
        let e = #expect(throws: RuntimeError.self) { try g.session() }
        guard case .modelMismatch(let model, let reason)? = e else { Issue.record("\(String(describing: e))"); return }
        #expect(model == "tiny.bkm")
        #expect(reason.contains("exactly one graph input, found 2"))
    }
}

// MARK: - Planning errors

@Suite struct PlanningErrorTests {
    /// A graph whose node 0 is a valid logistic on `[1,4,4,3]` and whose node 1 is built by `bad`
    /// from that logistic's output; expects planning to fail naming node 1, `op` and `problem`.
    func expectPlanningError(_ op: OpKind, _ problem: String, sourceLocation: SourceLocation = #_sourceLocation,
                             _ bad: (inout TinyGraph, Int) -> Int) throws {
        var g = TinyGraph()
        let x = g.input([1, 4, 4, 3])
        let h = g.op(.logistic, [x], [1, 4, 4, 3], name: "ok")
        g.outputs = [bad(&g, h)]
        #expect(g.nodes.count == 2 && g.nodes[1].op == op, sourceLocation: sourceLocation)
        let model = try g.model()
        do {
            _ = try InferenceSession(model: model, options: RuntimeOptions())
            Issue.record("planned without error, expected: \(problem)", sourceLocation: sourceLocation)
        } catch let e as RuntimeError {
            guard case .invalidNode(let index, let opName, let name, let reason) = e else {
                Issue.record("expected invalidNode, found \(e)", sourceLocation: sourceLocation)
                return
            }
            #expect(index == 1 && opName == op.rawValue && name == "bad", "\(e)", sourceLocation: sourceLocation)
            #expect(reason.contains(problem), "\(e)", sourceLocation: sourceLocation)
            #expect(e.description.hasPrefix("node 1 (\(op.rawValue) 'bad'): "), "\(e)", sourceLocation: sourceLocation)
        } catch let e as ModelFormatError {
            // Attribute errors are reported by the format layer, still naming the node.
            guard case .badAttribute(let node, let opName, let name, _, _, _) = e else {
                Issue.record("expected badAttribute, found \(e)", sourceLocation: sourceLocation)
                return
            }
            #expect(node == 1 && opName == op.rawValue && name == "bad", "\(e)", sourceLocation: sourceLocation)
            #expect(e.description.hasPrefix("node 1 (\(op.rawValue) 'bad'): "), "\(e)", sourceLocation: sourceLocation)
            #expect(e.description.contains(problem), "\(e)", sourceLocation: sourceLocation)
        }
    }

    @Test func convWeightInputChannelsMismatch() throws {
        try expectPlanningError(.conv2d, "weight expected OHWI [Cout, KH, KW, 3], found [2, 1, 1, 4]") { g, h in
            let w = g.constant([2, 1, 1, 4], [Float](repeating: 1, count: 8)), b = g.constant([2], [0, 0])
            return g.op(.conv2d, [h, w, b], [1, 4, 4, 2], window1x1, name: "bad")
        }
    }

    @Test func convStoredOutputShapeDisagrees() throws {
        try expectPlanningError(.conv2d, "output shape expected [1, 4, 4, 2], found [1, 4, 4, 3]") { g, h in
            let w = g.constant([2, 1, 1, 3], [Float](repeating: 1, count: 6)), b = g.constant([2], [0, 0])
            return g.op(.conv2d, [h, w, b], [1, 4, 4, 3], window1x1, name: "bad")
        }
        try expectPlanningError(.conv2d, "output shape expected [1, 2, 2, 2], found [1, 4, 4, 2]") { g, h in
            let w = g.constant([2, 3, 3, 3], [Float](repeating: 1, count: 54)), b = g.constant([2], [0, 0])
            return g.op(.conv2d, [h, w, b], [1, 4, 4, 2], window(strides: 2, pads: [0, 0, 1, 1]), name: "bad")
        }
    }

    @Test func convWindowLargerThanTheInput() throws {
        try expectPlanningError(.conv2d, "empty output") { g, h in
            let w = g.constant([1, 5, 5, 3], [Float](repeating: 1, count: 75)), b = g.constant([1], [0])
            return g.op(.conv2d, [h, w, b], [1, 1, 1, 1], window1x1, name: "bad")
        }
        try expectPlanningError(.conv2d, "strides/dilations in 1...16") { g, h in
            let w = g.constant([1, 1, 1, 3], [1, 1, 1]), b = g.constant([1], [0])
            return g.op(.conv2d, [h, w, b], [1, 4, 4, 1], window(strides: 0), name: "bad")
        }
    }

    @Test func convMissingAttributeOrBadActivation() throws {
        try expectPlanningError(.conv2d, "attribute 'strides' expected 2 ints, found absent") { g, h in
            let w = g.constant([1, 1, 1, 3], [1, 1, 1]), b = g.constant([1], [0])
            return g.op(.conv2d, [h, w, b], [1, 4, 4, 1], ["pads": .ints([0, 0, 0, 0])], name: "bad")
        }
        try expectPlanningError(.conv2d, "attribute 'activation' expected one of") { g, h in
            let w = g.constant([1, 1, 1, 3], [1, 1, 1]), b = g.constant([1], [0])
            return g.op(.conv2d, [h, w, b], [1, 4, 4, 1], window(activation: "gelu"), name: "bad")
        }
    }

    @Test func convInputMustBeAnActivationAndWeightsConstant() throws {
        try expectPlanningError(.conv2d, "input 0 must be an activation") { g, _ in
            let c = g.constant([1, 4, 4, 3], [Float](repeating: 1, count: 48))
            let w = g.constant([1, 1, 1, 3], [1, 1, 1]), b = g.constant([1], [0])
            return g.op(.conv2d, [c, w, b], [1, 4, 4, 1], window1x1, name: "bad")
        }
        try expectPlanningError(.conv2d, "bias (input 2) must be a constant") { g, h in
            let w = g.constant([3, 1, 1, 3], [Float](repeating: 1, count: 9))
            // The bias is an activation (the logistic's output).
            return g.op(.conv2d, [h, w, h], [1, 4, 4, 3], window1x1, name: "bad")
        }
    }

    @Test func depthwiseWithANonConstantWeight() throws {
        // The weight is the logistic's output [1,4,4,3], a valid 4×4 depthwise weight shape, but an activation.
        try expectPlanningError(.depthwiseConv2d, "weight (input 1) must be a constant") { g, h in
            let b = g.constant([3], [0, 0, 0])
            return g.op(.depthwiseConv2d, [h, h, b], [1, 1, 1, 3], window1x1, name: "bad")
        }
        try expectPlanningError(.depthwiseConv2d, "weight expected [KH, KW, 3], found [3, 3, 2]") { g, h in
            let w = g.constant([3, 3, 2], [Float](repeating: 1, count: 18)), b = g.constant([3], [0, 0, 0])
            return g.op(.depthwiseConv2d, [h, w, b], [1, 4, 4, 3], window(pads: [1, 1, 1, 1]), name: "bad")
        }
    }

    @Test func addWithMismatchedShapes() throws {
        try expectPlanningError(.add, "second input shape expected [1, 4, 4, 3], found [1, 4, 4, 2]") { g, h in
            let c = g.constant([1, 4, 4, 2], [Float](repeating: 1, count: 32))
            return g.op(.add, [h, c], [1, 4, 4, 3], name: "bad")
        }
        try expectPlanningError(.add, "expected 2 inputs and 1 outputs, found 3 and 1") { g, h in
            g.op(.add, [h, h, h], [1, 4, 4, 3], name: "bad")
        }
    }

    @Test func resizeToZeroSize() throws {
        try expectPlanningError(.resizeBilinear, "size expected values in 1...16384, found [0, 0]") { g, h in
            g.op(.resizeBilinear, [h], [1, 1, 1, 3], ["size": .ints([0, 0])], name: "bad")
        }
        try expectPlanningError(.resizeBilinear, "not both 1") { g, h in
            g.op(.resizeBilinear, [h], [1, 8, 8, 3], ["size": .ints([8, 8]), "align_corners": .int(1), "half_pixel_centers": .int(1)],
                 name: "bad")
        }
    }

    @Test func padWithAWrongPadsCount() throws {
        try expectPlanningError(.pad, "attribute 'pads' expected 8 ints, found [0, 0, 1, 1, 1, 1]") { g, h in
            g.op(.pad, [h], [1, 6, 6, 3], ["pads": .ints([0, 0, 1, 1, 1, 1])], name: "bad")
        }
        try expectPlanningError(.pad, "pads expected values in 0...4096") { g, h in
            g.op(.pad, [h], [1, 2, 4, 3], ["pads": .ints([0, 0, -1, -1, 0, 0, 0, 0])], name: "bad")
        }
    }

    @Test func otherOpsRejectBadNodes() throws {
        try expectPlanningError(.maxPool2d, "filter expected sizes in 1...64, found [0, 2]") { g, h in
            g.op(.maxPool2d, [h], [1, 2, 2, 3], ["filter": .ints([0, 2]), "strides": .ints([2, 2]), "pads": .ints([0, 0, 0, 0])], name: "bad")
        }
        try expectPlanningError(.depthToSpace, "block_size expected in 1...64 dividing channels 3") { g, h in
            g.op(.depthToSpace, [h], [1, 8, 8, 1], ["block_size": .int(2)], name: "bad")
        }
        try expectPlanningError(.concatenation, "a fused activation on concatenation is not supported") { g, h in
            g.op(.concatenation, [h, h], [1, 4, 4, 6], ["axis": .int(3), "activation": .string("relu")], name: "bad")
        }
        try expectPlanningError(.concatenation, "axis expected in 0..<4, found 4") { g, h in
            g.op(.concatenation, [h, h], [1, 4, 4, 6], ["axis": .int(4)], name: "bad")
        }
        try expectPlanningError(.mean, "axes expected a sorted contiguous run") { g, h in
            g.op(.mean, [h], [1, 4], ["axes": .ints([1, 3])], name: "bad")
        }
        try expectPlanningError(.fullyConnected, "weight expected [N, K], found [2, 48, 1]") { g, h in
            let w = g.constant([2, 48, 1], [Float](repeating: 1, count: 96)), b = g.constant([2], [0, 0])
            return g.op(.fullyConnected, [h, w, b], [1, 2], name: "bad")
        }
        try expectPlanningError(.fullyConnected, "output expected 2 elements (1x2), found shape [1, 3]") { g, h in
            let w = g.constant([2, 48], [Float](repeating: 1, count: 96)), b = g.constant([2], [0, 0])
            return g.op(.fullyConnected, [h, w, b], [1, 3], name: "bad")
        }
        try expectPlanningError(.reshape, "holds 47 elements") { g, h in
            g.op(.reshape, [h], [1, 47], name: "bad")
        }
        try expectPlanningError(.prelu, "alpha expected 3 values, found 2") { g, h in
            let a = g.constant([2], [0.1, 0.2])
            return g.op(.prelu, [h, a], [1, 4, 4, 3], name: "bad")
        }
        try expectPlanningError(.logistic, "output shape expected [1, 4, 4, 3], found [1, 48]") { g, h in
            g.op(.logistic, [h], [1, 48], name: "bad")
        }
    }
}

// MARK: - Exact results on hand-computable graphs

@Suite struct HandComputedTests {
    @Test(arguments: [1, 2])
    func pointwiseConvWithRelu6(threads: Int) throws {
        var g = TinyGraph()
        let x = g.input([1, 2, 2, 3])
        let w = g.constant([2, 1, 1, 3], [1, 0.5, -1, -2, 0, 0.25]), b = g.constant([2], [0.5, 1])
        g.outputs = [g.op(.conv2d, [x, w, b], [1, 2, 2, 2], window(activation: "relu6"))]
        let out = try g.session(threads: threads).run((0..<12).map { Float($0) - 5 })
        // Pixel (-5,-4,-3): 0.5-5-2+3 = -3.5 → 0 and 1+10+0-0.75 = 10.25 → 6; pixel (-2,-1,0): -2 → 0, 5;
        // pixel (1,2,3): -0.5 → 0, -0.25 → 0; pixel (4,5,6): 1, -5.5 → 0.
        #expect(out == [[0, 6, 0, 5, 0, 0, 1, 0]])
    }

    @Test(arguments: [(2, 1), (5, 1), (5, 2), (16, 2), (3, 2)])
    func spatialConvMatchesReference(cout: Int, threads: Int) throws {
        // cout ≤ 4 runs the direct kernel, larger the im2col GEMM; 16×16×8 → 16 is large enough to split.
        let (h, w, cin) = cout == 16 ? (16, 16, 8) : (5, 6, 3)
        let stride = cout == 3 ? 2 : 1
        let oh = (h + 2 - 3) / stride + 1, ow = (w + 2 - 3) / stride + 1
        var g = TinyGraph()
        let x = g.input([1, h, w, cin])
        let weights = smallInts(cout * 9 * cin, seed: 7, span: 3), bias = smallInts(cout, seed: 9)
        let wv = g.constant([cout, 3, 3, cin], weights), bv = g.constant([cout], bias)
        g.outputs = [g.op(.conv2d, [x, wv, bv], [1, oh, ow, cout], window(strides: stride, pads: [1, 1, 1, 1], activation: "relu"))]
        let input = smallInts(h * w * cin)
        let out = try g.session(threads: threads).run(input)
        let expected = convReference(input, h: h, w: w, cin: cin, weights: weights, bias: bias, cout: cout, k: 3,
                                     stride: stride, padTop: 1, padLeft: 1, oh: oh, ow: ow, lo: 0)
        #expect(out == [expected])
        #expect(expected.contains { $0 > 0 } && expected.contains(0))
    }

    @Test(arguments: [(1, 1), (2, 1), (1, 2)])
    func depthwiseMatchesReference(stride: Int, threads: Int) throws {
        let (h, w, c) = threads == 2 ? (16, 16, 48) : (7, 5, 4)
        let oh = (h + 2 - 3) / stride + 1, ow = (w + 2 - 3) / stride + 1
        var g = TinyGraph()
        let x = g.input([1, h, w, c])
        let weights = smallInts(9 * c, seed: 3, span: 2), bias = smallInts(c, seed: 5)
        let wv = g.constant([3, 3, c], weights), bv = g.constant([c], bias)
        g.outputs = [g.op(.depthwiseConv2d, [x, wv, bv], [1, oh, ow, c], window(strides: stride, pads: [1, 1, 1, 1]))]
        let input = smallInts(h * w * c)
        let out = try g.session(threads: threads).run(input)
        #expect(out == [depthwiseReference(input, h: h, w: w, c: c, weights: weights, bias: bias, k: 3,
                                           stride: stride, padTop: 1, padLeft: 1, oh: oh, ow: ow)])
    }

    @Test func addWithRelu() throws {
        var g = TinyGraph()
        let x = g.input([1, 1, 2, 3])
        let c = g.constant([1, 1, 2, 3], [1, -1, 0.5, -3, 2, 10])
        g.outputs = [g.op(.add, [x, c], [1, 1, 2, 3], ["activation": .string("relu")])]
        #expect(try g.session().run([1, 2, -3, 4, -5, 6]) == [[2, 1, 0, 1, 0, 16]])
    }

    @Test func maxPool() throws {
        var g = TinyGraph()
        let x = g.input([1, 4, 4, 1])
        g.outputs = [g.op(.maxPool2d, [x], [1, 2, 2, 1], ["filter": .ints([2, 2]), "strides": .ints([2, 2]), "pads": .ints([0, 0, 0, 0])])]
        // Rows: 0 7 14 5 / 12 3 10 1 / 8 15 6 13 / 4 11 2 9.
        let input = (0..<16).map { Float(($0 * 7) % 16) }
        #expect(try g.session().run(input) == [[12, 14, 15, 13]])
    }

    @Test func maxPoolIgnoresPaddedCells() throws {
        // All inputs negative: a padded cell counted as 0 would show up as a 0 in the output.
        var g = TinyGraph()
        let x = g.input([1, 5, 4, 2])
        g.outputs = [g.op(.maxPool2d, [x], [1, 3, 2, 2], ["filter": .ints([3, 3]), "strides": .ints([2, 2]), "pads": .ints([1, 1, 1, 1])])]
        let input = pseudoRandom(40, in: -10 ... -1)
        let out = try g.session().run(input)
        #expect(out == [maxPoolReference(input, h: 5, w: 4, c: 2, k: 3, stride: 2, pad: 1, oh: 3, ow: 2)])
        #expect(out[0].allSatisfy { $0 < 0 })
    }

    @Test func pad() throws {
        var g = TinyGraph()
        let x = g.input([1, 2, 2, 1])
        g.outputs = [g.op(.pad, [x], [1, 3, 3, 1], ["pads": .ints([0, 0, 1, 0, 0, 1, 0, 0])])]
        #expect(try g.session().run([1, 2, 3, 4]) == [[0, 0, 0, 1, 2, 0, 3, 4, 0]])
        // Channel padding and rank 2.
        var g2 = TinyGraph()
        let y = g2.input([1, 1, 1, 2])
        g2.outputs = [g2.op(.pad, [y], [1, 1, 1, 5], ["pads": .ints([0, 0, 0, 0, 0, 0, 2, 1])])]
        #expect(try g2.session().run([7, 8]) == [[0, 0, 7, 8, 0]])
        var g3 = TinyGraph()
        let z = g3.input([2, 2])
        g3.outputs = [g3.op(.pad, [z], [3, 5], ["pads": .ints([1, 0, 2, 1])])]
        #expect(try g3.session().run([1, 2, 3, 4]) == [[0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 3, 4, 0]])
    }

    @Test func depthToSpace() throws {
        var g = TinyGraph()
        let x = g.input([1, 1, 1, 4])
        g.outputs = [g.op(.depthToSpace, [x], [1, 2, 2, 1], ["block_size": .int(2)])]
        #expect(try g.session().run([1, 2, 3, 4]) == [[1, 2, 3, 4]])
        var g2 = TinyGraph()
        let y = g2.input([1, 2, 3, 8])
        g2.outputs = [g2.op(.depthToSpace, [y], [1, 4, 6, 2], ["block_size": .int(2)])]
        let input = (0..<48).map(Float.init)
        let out = try g2.session().run(input)
        // Output pixel (0,1) is input pixel (0,0), block offset dx=1: channels 2,3.
        #expect(Array(out[0][2..<4]) == [2, 3])
        // Output pixel (1,0): input pixel (0,0), dy=1: channels 4,5.
        #expect(Array(out[0][12..<14]) == [4, 5])
        #expect(out == [depthToSpaceReference(input, h: 2, w: 3, c: 8, block: 2)])
    }

    @Test func concatenation() throws {
        var g = TinyGraph()
        let x = g.input([1, 2, 2, 1])
        let c = g.constant([1, 2, 2, 2], [10, 11, 20, 21, 30, 31, 40, 41])
        g.outputs = [g.op(.concatenation, [x, c], [1, 2, 2, 3], ["axis": .int(3)])]
        #expect(try g.session().run([1, 2, 3, 4]) == [[1, 10, 11, 2, 20, 21, 3, 30, 31, 4, 40, 41]])
        // Along W, with the same input twice and a constant.
        var g2 = TinyGraph()
        let y = g2.input([1, 2, 2, 1])
        let k = g2.constant([1, 2, 1, 1], [5, 6])
        g2.outputs = [g2.op(.concatenation, [y, y, k], [1, 2, 5, 1], ["axis": .int(2)])]
        #expect(try g2.session().run([1, 2, 3, 4]) == [[1, 2, 1, 2, 5, 3, 4, 3, 4, 6]])
    }

    @Test func mean() throws {
        var g = TinyGraph()
        let x = g.input([1, 2, 2, 3])
        g.outputs = [g.op(.mean, [x], [1, 1, 1, 3], ["axes": .ints([1, 2])])]
        // Channel c: mean of c, c+3, c+6, c+9.
        #expect(try g.session().run((0..<12).map(Float.init)) == [[4.5, 5.5, 6.5]])
    }

    @Test func fullyConnected() throws {
        var g = TinyGraph()
        let x = g.input([1, 2, 2, 3])
        let flat = g.op(.reshape, [x], [1, 12])
        let w = g.constant([2, 12], [Float](repeating: 1, count: 12) + (0..<12).map { $0 % 2 == 0 ? 1 : -1 })
        let b = g.constant([2], [0.5, -0.5])
        g.outputs = [g.op(.fullyConnected, [flat, w, b], [1, 2])]
        // Row 0: 0+1+…+11 = 66; row 1: (0-1)+(2-3)+…+(10-11) = -6.
        #expect(try g.session().run((0..<12).map(Float.init)) == [[66.5, -6.5]])
    }

    /// hand_landmark's 1152 → 63 head and other widths, split between 2 and 3 threads in groups of four columns:
    /// the same bits as one thread.
    @Test(arguments: [(1152, 63), (672, 63), (1152, 1), (300, 130), (2400, 40)])
    func fullyConnectedSameBitsOnAnyThreads(k: Int, n: Int) throws {
        var g = TinyGraph()
        let x = g.input([1, k])
        let w = g.constant([n, k], pseudoRandom(n * k, seed: 5, in: -0.5...0.5))
        let b = g.constant([n], pseudoRandom(n, seed: 7, in: -0.5...0.5))
        g.outputs = [g.op(.fullyConnected, [x, w, b], [1, n])]
        let model = try g.model()
        let input = pseudoRandom(k, seed: 9, in: -1...1)
        let one = try InferenceSession(model: model, options: RuntimeOptions(threadCount: 1)).run(input)[0]
        for threads in [2, 3] {
            let out = try InferenceSession(model: model, options: RuntimeOptions(threadCount: threads)).run(input)[0]
            #expect(out.map(\.bitPattern) == one.map(\.bitPattern), "\(k) → \(n) on \(threads) threads")
        }
    }

    @Test func logistic() throws {
        var g = TinyGraph()
        let x = g.input([1, 7])
        g.outputs = [g.op(.logistic, [x], [1, 7])]
        let input: [Float] = [-20, -2, -0.5, 0, 0.5, 3, 20]
        let out = try g.session().run(input)[0]
        #expect(out[3] == 0.5)
        for (v, y) in zip(input, out) {
            let expected = 1 / (1 + exp(-Double(v)))
            #expect(abs(Double(y) - expected) <= 1e-6, "logistic(\(v)) = \(y), expected \(expected)")
        }
    }

    @Test func preluResizeAndReshape() throws {
        var g = TinyGraph()
        let x = g.input([1, 2, 2, 1])
        let r = g.op(.resizeBilinear, [x], [1, 3, 3, 1], ["size": .ints([3, 3]), "align_corners": .int(1)])
        let flat = g.op(.reshape, [r], [1, 1, 3, 3])
        let a = g.constant([3], [0.5, 0.25, 2])
        let p = g.op(.prelu, [flat, a], [1, 1, 3, 3])
        g.outputs = [r, p]
        let out = try g.session().run([0, 1, 2, 3].map { $0 - 2 })
        // Corners -2,-1,-0,1; align_corners samples at 0, 0.5, 1.
        #expect(out[0] == [-2, -1.5, -1, -1, -0.5, 0, 0, 0.5, 1])
        #expect(out[1] == [-1, -0.375, -2, -0.5, -0.125, 0, 0, 0.5, 1])
    }

    /// A diamond that keeps an early value alive across later steps (arena reuse must not clobber it).
    @Test(arguments: [1, 2])
    func chainedGraph(threads: Int) throws {
        var g = TinyGraph()
        let x = g.input([1, 4, 4, 3])
        let wv = smallInts(12, seed: 11, span: 2), bv: [Float] = [0.5, -1, 2, 0]
        let a = g.op(.conv2d, [x, g.constant([4, 1, 1, 3], wv), g.constant([4], bv)], [1, 4, 4, 4], window(activation: "relu6"))
        let p = g.op(.pad, [a], [1, 6, 6, 4], ["pads": .ints([0, 0, 1, 1, 1, 1, 0, 0])])
        let m = g.op(.maxPool2d, [p], [1, 4, 4, 4], ["filter": .ints([3, 3]), "strides": .ints([1, 1]), "pads": .ints([0, 0, 0, 0])])
        let s = g.op(.add, [a, m], [1, 4, 4, 4])
        let d = g.op(.depthToSpace, [s], [1, 8, 8, 1], ["block_size": .int(2)])
        let mean = g.op(.mean, [d], [1, 1], ["axes": .ints([1, 2])])
        g.outputs = [d, mean]
        let input = smallInts(48, seed: 99, span: 4)
        let out = try g.session(threads: threads).run(input)

        let ra = convReference(input, h: 4, w: 4, cin: 3, weights: wv, bias: bv, cout: 4, k: 1, stride: 1, padTop: 0, padLeft: 0,
                               oh: 4, ow: 4, lo: 0, hi: 6)
        var rp = [Float](repeating: 0, count: 6 * 6 * 4)
        for y in 0..<4 { for x in 0..<4 { for c in 0..<4 { rp[((y + 1) * 6 + x + 1) * 4 + c] = ra[(y * 4 + x) * 4 + c] } } }
        let rm = maxPoolReference(rp, h: 6, w: 6, c: 4, k: 3, stride: 1, pad: 0, oh: 4, ow: 4)
        let rs = zip(ra, rm).map(+)
        let rd = depthToSpaceReference(rs, h: 4, w: 4, c: 4, block: 2)
        #expect(out[0] == rd)
        #expect(out[1] == [rd.reduce(0, +) / 64])
        #expect(ra.contains(6) && ra.contains(0), "the test input should exercise both clamp bounds")
    }
}

// MARK: - Built-in models

func tempDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("blaze-runtime-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

@Suite struct BuiltinModelTests {
    /// Each packaged `.bkm` says in its metadata what `KnownModel.all` says of it: the files were
    /// converted from the originals the table pins, with the input the table states.
    @Test(arguments: BuiltinModel.allCases)
    func loadsWithTheExpectedContract(_ model: BuiltinModel) throws {
        let file = try model.load()
        let m = file.metadata
        let facts = model.facts
        #expect(facts.name == model.rawValue)
        #expect(m.name == model.rawValue)
        #expect(m.sourceFile == facts.sourceFile)
        #expect(m.sourceSHA256 == facts.sourceSHA256)
        #expect(m.input.colorOrder == "rgb")
        let (shape, range) = (facts.inputShape, facts.inputRange)
        #expect(m.input.shape == shape)
        #expect(m.input.valueRange == range)
        // The metadata agrees with the graph, and the graph plans.
        let g = file.graph
        #expect(g.inputs.count == 1 && g.values[g.inputs[0]].shape == shape)
        #expect(m.outputs == g.outputs.map { TensorDescription(name: g.values[$0].name, shape: g.values[$0].shape) })
        let session = try InferenceSession(model: file, options: RuntimeOptions())
        #expect(session.inputDescription.shape == shape)
        #expect(session.outputDescriptions == m.outputs)
    }

    @Test func theCasesAreTheKnownModels() {
        #expect(BuiltinModel.allCases.map(\.rawValue) == KnownModel.all.map(\.name))
        for model in BuiltinModel.allCases {
            #expect(model.fileName == model.rawValue + ".bkm")
            #expect(model.taskBundleEntryName + ".tflite" == model.facts.taskBundleEntry)
        }
    }

    /// The entry names the landmarkers look up in an official `.task` bundle.
    @Test func taskBundleEntryNamesAreMediaPipes() {
        let entries = BuiltinModel.allCases.map { ($0, $0.taskBundleEntryName) }
        let expected: [BuiltinModel: String] = [
            .poseDetection: "pose_detector", .poseLandmarkFull: "pose_landmarks_detector",
            .poseLandmarkLite: "pose_landmarks_detector", .palmDetectionFull: "hand_detector",
            .palmDetectionLite: "hand_detector", .handLandmarkFull: "hand_landmarks_detector",
            .handLandmarkLite: "hand_landmarks_detector", .faceDetectionShortRange: "face_detector",
            .faceLandmark: "face_landmarks_detector", .faceLandmarkWithAttention: "face_landmarks_detector",
            .handRecrop: "hand_roi_refinement",
        ]
        for (model, entry) in entries { #expect(entry == expected[model], "\(model)") }
    }

    @Test func truncatedCopyIsRejected() throws {
        let source = try BuiltinModel.handLandmarkLite.url
        let bytes = try Data(contentsOf: source)
        let dir = try tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for keep in [bytes.count - 1, bytes.count / 2, 5000, 100, 10] {
            let path = dir.appendingPathComponent("cut-\(keep).bkm").path
            try bytes.prefix(keep).write(to: URL(fileURLWithPath: path))
            let expectedAtLeast = keep < 64 ? 64 : bytes.count
            #expect(throws: ModelFormatError.truncated(path: path, expectedAtLeast: expectedAtLeast, actual: keep)) {
                try InferenceSession(path: path)
            }
        }
        // A flipped weight byte is caught by the checksum.
        var flipped = bytes
        flipped[bytes.count - 1000] ^= 0x04
        let path = dir.appendingPathComponent("flipped.bkm").path
        try flipped.write(to: URL(fileURLWithPath: path))
        let e = #expect(throws: ModelFormatError.self) { try InferenceSession(path: path) }
        if case .checksumMismatch(let p, _, _)? = e { #expect(p == path) } else { Issue.record("expected checksumMismatch, found \(String(describing: e))") }
        // The intact copy loads.
        let good = dir.appendingPathComponent("good.bkm").path
        try bytes.write(to: URL(fileURLWithPath: good))
        #expect(try InferenceSession(path: good).model.metadata.name == "hand_landmark_lite")
    }

    /// Sessions of one model running at the same time on different threads share only the
    /// read-only mapping: every run equals a sequential run with the same thread count. (With the packed
    /// kernels, the default, 1 and 2 threads also agree bit for bit — `ConvolutionPathTests`; with
    /// `.blas`, OpenBLAS rounds differently for different row counts, so this test compares like with like.)
    @Test func concurrentSessionsMatchASequentialRun() throws {
        let file = try BuiltinModel.handLandmarkLite.load()
        let input = pseudoRandom(224 * 224 * 3)
        let reference = try [1, 2].map {
            try InferenceSession(model: file, options: RuntimeOptions(threadCount: $0)).run(input)
        }
        #expect(reference[0].map(\.count) == [63, 1, 1, 63])
        #expect(reference[0].allSatisfy { $0.allSatisfy(\.isFinite) })
        for (a, b) in zip(reference[0].joined(), reference[1].joined()) {
            #expect(abs(a - b) <= 1e-4 * max(1, abs(a)), "1 thread \(a), 2 threads \(b)")
        }

        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var outputs: [[[[Float]]]] = Array(repeating: [], count: 4)
            var errors: [String] = []
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            do {
                let session = try InferenceSession(model: file, options: RuntimeOptions(threadCount: 1 + worker % 2))
                var runs: [[[Float]]] = []
                for _ in 0..<5 { runs.append(try session.run(input)) }
                results.lock.withLock { results.outputs[worker] = runs }
            } catch {
                results.lock.withLock { results.errors.append("worker \(worker): \(error)") }
            }
        }
        #expect(results.errors.isEmpty, "\(results.errors)")
        for (worker, runs) in results.outputs.enumerated() {
            #expect(runs.count == 5, "worker \(worker)")
            for (i, run) in runs.enumerated() where run != reference[worker % 2] {
                Issue.record("worker \(worker) (\(1 + worker % 2) threads) run \(i) differs from the sequential run")
            }
        }
    }
}

// MARK: - Computing a subset of the outputs

@Suite struct ComputedOutputsTests {
    /// x → a = logistic(x) → out0; x → b = x + x → c = logistic(b) → out1.
    func twoBranchModel() throws -> ModelFile {
        var g = TinyGraph()
        let x = g.input([1, 2, 2, 3])
        let a = g.op(.logistic, [x], [1, 2, 2, 3])
        let b = g.op(.add, [x, x], [1, 2, 2, 3])
        let c = g.op(.logistic, [b], [1, 2, 2, 3])
        g.outputs = [a, c]
        return try g.model()
    }

    @Test func leftOutOutputsAreNotRunAndTheOthersAreUnchanged() throws {
        let model = try twoBranchModel()
        let input = pseudoRandom(12, in: -2...2)
        let all = try InferenceSession(model: model, options: RuntimeOptions()).run(input)
        let onlySecond = try InferenceSession(model: model, options: RuntimeOptions(computedOutputs: [1]))
        let out = try onlySecond.run(input)
        #expect(out[1] == all[1])
        #expect(out[0].isEmpty)
        #expect(onlySecond.computes(output: 1) && !onlySecond.computes(output: 0))
        // Only the add and the second logistic are planned.
        #expect(onlySecond.profile().map(\.op) == [.add, .logistic])
        #expect(all[0] == input.map { 1 / (1 + exp(-$0)) })
    }

    @Test func anOutputIndexOutOfRangeIsAnError() throws {
        let model = try twoBranchModel()
        #expect(throws: RuntimeError.invalidOption(name: "computedOutputs", expected: "output indices in 0..<2", actual: "2")) {
            _ = try InferenceSession(model: model, options: RuntimeOptions(computedOutputs: [0, 2]))
        }
    }
}
