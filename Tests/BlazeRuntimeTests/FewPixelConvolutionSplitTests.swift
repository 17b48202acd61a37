import BlazeKernels
import BlazeModelFormat
@testable import BlazeRuntime
import Testing

/// A k×k convolution with fewer output pixels than the GEMM tile has rows (face_landmark's 3×3 → 1×1, 288 → 1404
/// head) shares its weight panels, not its pixels, between threads; the residual add fused after it runs on each
/// task's own channels. Outputs are the same bits at any thread count, with every tile.
@Suite struct FewPixelConvolutionSplitTests {
    /// x `[1, s, s, 32]` → a: 3×3 valid → `[1, s−2, s−2, n]` (ReLU6); b: the same shape from other weights, plus a
    /// (fused into b as its epilogue) → output.
    func graph(side s: Int, outputs n: Int) -> TinyGraph {
        var g = TinyGraph()
        let x = g.input([1, s, s, 32])
        func conv(seed: UInt32) -> Int {
            g.op(.conv2d, [x, g.constant([n, 3, 3, 32], pseudoRandom(n * 9 * 32, seed: seed, in: -0.2...0.2)),
                           g.constant([n], pseudoRandom(n, seed: seed + 1, in: -0.5...0.5))],
                 [1, s - 2, s - 2, n], window(activation: "relu6"))
        }
        let a = conv(seed: 3), b = conv(seed: 5)
        g.outputs = [g.op(.add, [b, a], [1, s - 2, s - 2, n])]
        return g
    }

    /// One pixel with 13 panels of 32 (the last of 16 columns), 4 pixels with 4 panels of 32 (7 of 16 on the
    /// 6 × 16 tile), and a map of 9 pixels, which splits its pixels as before; each at least 200 K flops.
    @Test(arguments: [(3, 400), (4, 100), (5, 75)])
    func sameBitsAtAnyThreadCount(side: Int, outputs: Int) throws {
        let model = try graph(side: side, outputs: outputs).model()
        let input = pseudoRandom(side * side * 32, seed: 21, in: -1...1)
        for tile in GEMMTile.allCases.filter(\.isSupported) {
            let one = try InferenceSession(model: model, options: RuntimeOptions(convolutionGEMM: .packed(tile)))
            let want = try one.run(input)
            #expect(one.stepsSplittingOutputs.isEmpty)
            for threads in [2, 3] {
                let session = try InferenceSession(model: model, options: RuntimeOptions(threadCount: threads, convolutionGEMM: .packed(tile)))
                let pixels = (side - 2) * (side - 2)
                #expect(session.stepsSplittingOutputs == (pixels < tile.rows ? [0, 1] : []),
                        "\(tile.rawValue), \(threads) threads: \(session.stepsSplittingOutputs)")
                #expect(session.kernelNames[1].kernel.hasSuffix("+add"), "\(session.kernelNames)")
                for _ in 0..<2 {
                    let got = try session.run(input)
                    let bad = got[0].indices.filter { got[0][$0].bitPattern != want[0][$0].bitPattern }
                    #expect(bad.isEmpty, "\(tile.rawValue), \(threads) threads: \(bad.count) of \(got[0].count) differ")
                }
            }
        }
    }
}
