import BlazeKernels
import BlazeKit
import BlazeModelFormat
@testable import BlazeRuntime
import Testing

/// Issue #13's item 6: the convolution paths a session may choose — the AVX2 6×16 and AVX-512 8×32
/// GEMM tiles, the narrow pixel-major kernel at 8 or 16 pixels or the packed GEMM for a few outputs,
/// sparse or dense 1×1, measured or fixed plans, add and PReLU
/// inside the convolution or on their own — and the thread count change speed only, never a bit of
/// any model output.
@Suite struct ConvolutionPathTests {
    static let tiles = GEMMTile.allCases.filter(\.isSupported)

    /// The model's input range filled from a fixed xorshift sequence.
    func randomInput(_ file: ModelFile) -> [Float] {
        let shape = file.metadata.input.shape, range = file.metadata.input.valueRange
        var x: UInt32 = 0x1234_5678
        return (0..<shape.reduce(1, *)).map { _ in
            x ^= x << 13; x ^= x >> 17; x ^= x << 5
            return range[0] + (range[1] - range[0]) * Float(x >> 8) / 16_777_216
        }
    }

    @Test(arguments: BuiltinModel.allCases)
    func everyConvolutionPathGivesTheSameBits(model: BuiltinModel) throws {
        try #require(!Self.tiles.isEmpty, "this build has no packed tile (BLAZEKIT_PORTABLE on a CPU without AVX-512)")
        let file = try model.load()
        // The paths may differ in the sign of an exact-zero sum when a bias is −0 (see the note atop
        // BlazeKernels' PixelMajorConv.swift); these models have no such bias.
        for node in file.graph.nodes where node.op == .conv2d {
            let bias = try #require(file.constantData(ofValue: node.inputs[2]), "\(node.name): bias not constant")
            #expect(!bias.contains { $0 == 0 && $0.sign == .minus }, "\(model.rawValue) \(node.name): a bias of −0")
        }
        let input = randomInput(file)
        var options: [(String, RuntimeOptions)] = [("automatic", RuntimeOptions())]
        for tile in Self.tiles {
            for sparse in [SparseConvolution.dense, .sparse, .measured] {
                for threads in [1, 2, 3] {
                    options.append(("\(tile.rawValue) \(sparse) \(threads) threads",
                                    RuntimeOptions(threadCount: threads, convolutionGEMM: .packed(tile),
                                                   sparseConvolution: sparse)))
                }
            }
            // Convolutions (1×1 and k×k) of at most eight outputs through the narrow kernel or the packed GEMM, and fixed plans.
            for narrow in [true, false] {
                for threads in [1, 2] {
                    var o = RuntimeOptions(threadCount: threads, convolutionGEMM: .packed(tile))
                    o.narrowForTesting = narrow
                    options.append(("\(tile.rawValue) narrow \(narrow) \(threads) threads", o))
                }
            }
            options.append(("\(tile.rawValue) fixed plan", RuntimeOptions(convolutionGEMM: .packed(tile), planning: .fixed)))
            // Add and PReLU as passes of their own instead of inside the convolutions.
            for threads in [1, 2] {
                options.append(("\(tile.rawValue) unfused \(threads) threads",
                                RuntimeOptions(threadCount: threads, convolutionGEMM: .packed(tile),
                                               fusesEpilogues: false)))
            }
        }
        var reference: [[Float]]?
        for (name, o) in options {
            let outputs = try InferenceSession(model: file, options: o).run(input)
            #expect(outputs.allSatisfy { $0.allSatisfy(\.isFinite) }, "\(model.rawValue) \(name): non-finite output")
            guard let want = reference else { reference = outputs; continue }
            for (k, (got, exp)) in zip(outputs, want).enumerated() {
                let bad = got.indices.filter { got[$0].bitPattern != exp[$0].bitPattern }
                if let first = bad.first {
                    Issue.record("\(model.rawValue) output \(k), \(name) vs automatic: \(bad.count) of \(got.count) differ, first at \(first): \(got[first]) vs \(exp[first])")
                }
            }
        }
    }

    /// `.sparse` sends every 1×1 convolution through the sparse kernel and `.dense` none; the k×k ones with at
    /// most 8 outputs take the narrow kernel in a fixed plan, and the narrow kernel or the packed GEMM (whichever
    /// its timing found faster) in a measured one; `.measured` tries only nodes with enough zero weights.
    @Test func theOptionsSelectTheKernels() throws {
        let tile = try #require(Self.tiles.first)
        let lanes = tile == .avx512x8x32 ? 16 : 8
        let file = try BuiltinModel.poseLandmarkFull.load()
        let g = file.graph
        func kernels(_ sparse: SparseConvolution, planning: Planning = .measured) throws -> [String: String] {
            let s = try InferenceSession(model: file, options: RuntimeOptions(convolutionGEMM: .packed(tile),
                                                                                sparseConvolution: sparse, planning: planning))
            // The kernel, without the "+add"/"+prelu" of a fused epilogue.
            return Dictionary(uniqueKeysWithValues: s.kernelNames.filter { $0.op == .conv2d }.map {
                ($0.name, String($0.kernel.prefix { $0 != "+" }))
            })
        }
        let dense = try kernels(.dense), sparse = try kernels(.sparse), measured = try kernels(.measured)
        let fixed = try kernels(.dense, planning: .fixed)
        var pointwise = 0
        for node in g.nodes where node.op == .conv2d {
            let w = g.values[node.inputs[1]].shape
            let isPointwise = w[1] == 1 && w[2] == 1 && (try? node.ints("strides", count: 2, nodeIndex: 0)) == [1, 1]
            if isPointwise { pointwise += 1 }
            #expect(dense[node.name] != "sparse-\(lanes)px", "\(node.name)")
            if isPointwise {
                #expect(sparse[node.name] == "sparse-\(lanes)px", "\(node.name)")
            } else if w[0] <= 8 {
                // Timed in each session: either candidate, whichever ran faster there.
                #expect(fixed[node.name] == "narrow-\(lanes)px", "\(node.name) \(w)")
                let candidates = ["narrow-\(lanes)px", "gemm-im2col-\(tile.rawValue)"]
                #expect(candidates.contains(dense[node.name] ?? "") && candidates.contains(sparse[node.name] ?? ""), "\(node.name) \(w)")
            } else {
                #expect(sparse[node.name] == dense[node.name], "\(node.name)")
            }
            if measured[node.name] == "sparse-\(lanes)px" {
                let count = w.reduce(1, *)
                let zeros = file.constantData(ofValue: node.inputs[1])!.filter { $0 == 0 }.count
                #expect(Double(zeros) >= SparseConvolution.measuredMinimumZeroFraction * Double(count), "\(node.name)")
            }
        }
        #expect(pointwise > 10)
    }

    /// A measured plan says which candidates it timed and how long each took (what `blaze-bench models --per-layer`
    /// prints beside the kernel); a fixed plan times nothing and says nothing.
    @Test func measuredPlansRecordTheCandidatesTimes() throws {
        let tile = try #require(Self.tiles.first, "this build has no packed tile")
        let file = try BuiltinModel.poseLandmarkFull.load()
        let measured = try InferenceSession(model: file, options: RuntimeOptions(convolutionGEMM: .packed(tile)))
        let kernels = measured.kernelNames, choices = measured.kernelChoices
        #expect(choices.count == kernels.count)
        let timed = choices.indices.filter { !choices[$0].isEmpty }
        // pose_landmark's segmentation head has 1×1 convolutions of eight outputs: narrow kernel or packed GEMM.
        #expect(!timed.isEmpty, "no timed choice in \(kernels.map(\.kernel))")
        for i in timed {
            let choice = choices[i], kernel = String(kernels[i].kernel.split(separator: "+")[0])
            let named = choice.hasPrefix("timed") && choice.contains(kernel) && choice.contains("µs")
            #expect(named, "\(kernels[i]): \(choice)")
        }
        let fixed = try InferenceSession(model: file, options: RuntimeOptions(convolutionGEMM: .packed(tile), planning: .fixed))
        let fixedChoices = fixed.kernelChoices.filter { !$0.isEmpty }
        #expect(fixedChoices.isEmpty, "\(fixedChoices)")
    }

    /// k×k convolutions of at most eight outputs (hand_recrop's 3×3 and 2×2, 8 outputs; its 2×2, 4-output head)
    /// are timed too: the narrow kernel against the packed GEMM through im2col, each over the first output rows.
    @Test(arguments: [1, 2])
    func kByKConvolutionsOfFewOutputsAreTimed(threads: Int) throws {
        let tile = try #require(Self.tiles.first, "this build has no packed tile")
        let file = try BuiltinModel.handRecrop.load()
        let session = try InferenceSession(model: file, options: RuntimeOptions(threadCount: threads, convolutionGEMM: .packed(tile)))
        let graph = file.graph, choices = session.kernelChoices
        var count = 0
        for (i, n) in session.stepNodes.enumerated() where graph.nodes[n].op == .conv2d {
            let w = graph.values[graph.nodes[n].inputs[1]].shape
            guard w[1] * w[2] > 1, w[0] <= Conv2DOp.Step.narrowOutputChannelLimit else { continue }
            count += 1
            let choice = choices[i]
            #expect(choice.hasPrefix("timed") && choice.contains("narrow-") && choice.contains("gemm-im2col-"),
                    "\(graph.nodes[n].name) \(w): \(choice)")
        }
        #expect(count >= 3, "hand_recrop has \(count) k×k convolutions of at most eight outputs")
    }
}
