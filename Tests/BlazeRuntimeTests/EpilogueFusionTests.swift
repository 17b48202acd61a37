import BlazeKernels
import BlazeModelFormat
@testable import BlazeRuntime
import Testing

/// Issue #13's item 4: a convolution absorbs the residual `add` and the `prelu` after it only where the
/// graph allows, and fused or not the outputs are the same bits.
@Suite struct EpilogueFusionTests {
    /// x → a = conv 1×1 (13→21) → b = conv 3×3 (21→21); add(a, b) with ReLU6 → prelu → output 0;
    /// c = conv 1×1 (13→21) read twice (by the add with b's twin and by output 1), so it cannot absorb it.
    func residualGraph() -> TinyGraph {
        var g = TinyGraph()
        let shape = [1, 9, 7, 21]
        let x = g.input([1, 9, 7, 13])
        func conv(_ input: Int, _ cin: Int, k: Int, seed: UInt32) -> Int {
            let w = g.constant([21, k, k, cin], pseudoRandom(21 * k * k * cin, seed: seed, in: -0.5...0.5))
            let b = g.constant([21], pseudoRandom(21, seed: seed + 1, in: -0.5...0.5))
            return g.op(.conv2d, [input, w, b], shape, window(pads: k == 3 ? [1, 1, 1, 1] : [0, 0, 0, 0]))
        }
        let a = conv(x, 13, k: 1, seed: 3)
        let b = conv(a, 21, k: 3, seed: 5)
        let sum = g.op(.add, [a, b], shape, ["activation": .string("relu6")], name: "sum")
        let alpha = g.constant([21], pseudoRandom(21, seed: 9, in: -0.5...0.5))
        let y = g.op(.prelu, [sum, alpha], shape, name: "prelu")
        let c = conv(x, 13, k: 1, seed: 11)
        let d = conv(c, 21, k: 3, seed: 13)
        let z = g.op(.add, [d, c], shape, name: "sum2")
        g.outputs = [y, z, c]
        return g
    }

    @Test func fusesWhereTheGraphAllowsAndKeepsTheBits() throws {
        let model = try residualGraph().model()
        let input = pseudoRandom(9 * 7 * 13, seed: 21, in: -1...1)
        // Packed tiles give the same bits at every thread count; BLAS blocks differently per thread count.
        var references: [String: [[Float]]] = [:]
        for tile in [nil] + GEMMTile.allCases.filter(\.isSupported).map(Optional.some) {
            for threads in [1, 2, 3] {
                let key = tile.map(\.rawValue) ?? "blas \(threads) threads"
                for fuses in [false, true] {
                    let options = RuntimeOptions(threadCount: threads,
                                                 convolutionGEMM: tile.map { .packed($0) } ?? .blas, fusesEpilogues: fuses)
                    let session = try InferenceSession(model: model, options: options)
                    let kernels = session.kernelNames
                    if fuses {
                        // b absorbs the add and the PReLU; d absorbs sum2 (c is read twice, and is a graph output).
                        #expect(kernels.map(\.op) == [.conv2d, .conv2d, .conv2d, .conv2d], "\(kernels)")
                        #expect(kernels[1].kernel.hasSuffix("+add+prelu"), "\(kernels[1])")
                        #expect(kernels[3].kernel.hasSuffix("+add") && !kernels[2].kernel.contains("+"), "\(kernels)")
                        #expect(session.stepNodes == [0, 1, 4, 5])
                    } else {
                        #expect(kernels.map(\.op) == [.conv2d, .conv2d, .add, .prelu, .conv2d, .conv2d, .add], "\(kernels)")
                        #expect(session.stepNodes == Array(0..<7))
                    }
                    let outputs = try session.run(input)
                    guard let want = references[key] else { references[key] = outputs; continue }
                    for k in outputs.indices {
                        let bad = outputs[k].indices.filter { outputs[k][$0].bitPattern != want[k][$0].bitPattern }
                        if let first = bad.first {
                            Issue.record("output \(k), tile \(tile.map(\.rawValue) ?? "blas"), \(threads) threads, fused \(fuses): \(bad.count) differ, first at \(first): \(outputs[k][first]) vs \(want[k][first])")
                        }
                    }
                }
            }
        }
        // And the numbers are right: output 0 against plain loops.
        let want = try #require(references[GEMMTile.allCases.first(where: \.isSupported)?.rawValue ?? "blas 1 threads"])
        let g = residualGraph()
        func constant(_ id: Int) -> [Float] { g.constants[g.values[id].constant!].values }
        let convs = g.nodes.filter { $0.op == .conv2d }
        let a = convReference(input, h: 9, w: 7, cin: 13, weights: constant(convs[0].inputs[1]), bias: constant(convs[0].inputs[2]),
                              cout: 21, k: 1, stride: 1, padTop: 0, padLeft: 0, oh: 9, ow: 7)
        let b = convReference(a, h: 9, w: 7, cin: 21, weights: constant(convs[1].inputs[1]), bias: constant(convs[1].inputs[2]),
                              cout: 21, k: 3, stride: 1, padTop: 1, padLeft: 1, oh: 9, ow: 7)
        let alpha = constant(g.nodes[3].inputs[1])
        let y = (0..<a.count).map { i -> Float in
            let s = min(max(a[i] + b[i], 0), 6)
            return s < 0 ? alpha[i % 21] * s : s
        }
        for i in y.indices { #expect(abs(want[0][i] - y[i]) <= 1e-4 * max(1, abs(y[i])), "output 0 at \(i)") }
    }

    /// add(late, early): the convolution that runs last absorbs it, since the other input is ready by then;
    /// an add reading the graph input and a convolution of it fuses too, and a conv read by a later node does not.
    @Test func theLaterConvolutionAbsorbsTheAdd() throws {
        var g = TinyGraph()
        let shape = [1, 4, 4, 8]
        let x = g.input(shape)
        func conv(_ input: Int, seed: UInt32) -> Int {
            let w = g.constant([8, 1, 1, 8], pseudoRandom(64, seed: seed, in: -1...1))
            let b = g.constant([8], pseudoRandom(8, seed: seed + 1))
            return g.op(.conv2d, [input, w, b], shape, window1x1)
        }
        let early = conv(x, seed: 1)
        let late = conv(x, seed: 3)
        let s = g.op(.add, [late, early], shape, name: "s")
        let t = g.op(.add, [x, conv(s, seed: 5)], shape, name: "t")
        g.outputs = [t]
        let session = try InferenceSession(model: g.model(), options: RuntimeOptions())
        #expect(session.kernelNames.map { $0.kernel.contains("+add") } == [false, true, true], "\(session.kernelNames)")
        let unfused = try InferenceSession(model: g.model(), options: RuntimeOptions(fusesEpilogues: false))
        let input = pseudoRandom(128, seed: 8, in: -1...1)
        #expect(try session.run(input)[0].map(\.bitPattern) == unfused.run(input)[0].map(\.bitPattern))
    }

    /// Face detection's blocks: conv 1×1 (24→28) + add(pad(x) to 28 channels) → relu fuses into one step that
    /// reads x itself; a conv → relu fuses; a pad also read elsewhere, or padding more than channels, does not.
    @Test func absorbsAChannelPadAndTheReluAfter() throws {
        var g = TinyGraph()
        let x = g.input([1, 5, 6, 24])
        func conv(_ input: Int, _ cin: Int, _ cout: Int, seed: UInt32) -> Int {
            let w = g.constant([cout, 1, 1, cin], pseudoRandom(cout * cin, seed: seed, in: -1...1))
            let b = g.constant([cout], pseudoRandom(cout, seed: seed + 1))
            return g.op(.conv2d, [input, w, b], [1, 5, 6, cout], window1x1)
        }
        let wide = [1, 5, 6, 28]
        let a = g.op(.relu, [conv(x, 24, 24, seed: 1)], [1, 5, 6, 24], name: "relu0")
        let padded = g.op(.pad, [a], wide, ["pads": .ints([0, 0, 0, 0, 0, 0, 0, 4])], name: "pad")
        let sum = g.op(.add, [conv(a, 24, 28, seed: 3), padded], wide, name: "sum")
        let y = g.op(.relu, [sum], wide, name: "relu1")
        // The same block whose padded value is also an output: nothing past the conv fuses but the add.
        let padded2 = g.op(.pad, [a], wide, ["pads": .ints([0, 0, 0, 0, 0, 0, 0, 4])], name: "pad2")
        let sum2 = g.op(.add, [conv(a, 24, 28, seed: 5), padded2], wide, name: "sum2")
        // Spatial padding is not a channel pad.
        let spatial = g.op(.pad, [a], [1, 6, 6, 24], ["pads": .ints([0, 0, 1, 0, 0, 0, 0, 0])], name: "pad3")
        g.outputs = [y, sum2, padded2, spatial]
        let session = try InferenceSession(model: g.model(), options: RuntimeOptions())
        let names = session.kernelNames.map { "\($0.op.rawValue):\($0.kernel)" }
        #expect(session.kernelNames.map(\.op) == [.conv2d, .conv2d, .pad, .conv2d, .pad], "\(names)")
        #expect(session.kernelNames[0].kernel.hasSuffix("+relu") && session.kernelNames[1].kernel.hasSuffix("+pad+add+relu")
                && session.kernelNames[3].kernel.hasSuffix("+add") && !session.kernelNames[3].kernel.contains("pad"), "\(names)")
        let input = pseudoRandom(5 * 6 * 24, seed: 8, in: -1...1)
        for threads in [1, 2] {
            let fused = try InferenceSession(model: g.model(), options: RuntimeOptions(threadCount: threads))
            let unfused = try InferenceSession(model: g.model(), options: RuntimeOptions(threadCount: threads, fusesEpilogues: false))
            let got = try fused.run(input), want = try unfused.run(input)
            for k in want.indices {
                #expect(got[k].map(\.bitPattern) == want[k].map(\.bitPattern), "output \(k), \(threads) threads")
            }
        }
    }
}
