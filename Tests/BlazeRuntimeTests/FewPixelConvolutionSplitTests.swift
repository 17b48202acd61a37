import BlazeKernels
import BlazeModelFormat
@testable import BlazeRuntime
import Testing

/// A convolution with fewer output pixels than the GEMM tile has rows (face_landmark's 3×3 → 1×1, 288 → 1404 head;
/// pose_landmark's 1×1 convolutions on 2×2 maps) shares its weight panels, not its pixels, between threads; the
/// residual add fused after it runs on each task's own channels. Outputs are the same bits at any thread count, with
/// every tile.
@Suite struct FewPixelConvolutionSplitTests {
    struct Case: CustomStringConvertible {
        var side: Int, kernel: Int, inChannels: Int, outputs: Int
        var out: Int { side - kernel + 1 }
        var description: String { "\(side)×\(side)×\(inChannels), \(kernel)×\(kernel) → \(out)×\(out)×\(outputs)" }
    }

    /// x `[1, s, s, c]` → a: k×k valid → `[1, s−k+1, s−k+1, n]` (ReLU6); b: the same shape from other weights, plus a
    /// (fused into b as its epilogue) → output.
    func graph(_ t: Case) -> TinyGraph {
        var g = TinyGraph()
        let (k, c, n) = (t.kernel, t.inChannels, t.outputs)
        let x = g.input([1, t.side, t.side, c])
        func conv(seed: UInt32) -> Int {
            g.op(.conv2d, [x, g.constant([n, k, k, c], pseudoRandom(n * k * k * c, seed: seed, in: -0.2...0.2)),
                           g.constant([n], pseudoRandom(n, seed: seed + 1, in: -0.5...0.5))],
                 [1, t.out, t.out, n], window(activation: "relu6"))
        }
        let a = conv(seed: 3), b = conv(seed: 5)
        g.outputs = [g.op(.add, [b, a], [1, t.out, t.out, n])]
        return g
    }

    /// 3×3: one pixel with 13 panels of 32 (the last of 16 columns), 4 pixels with 4 panels of 32 (7 of 16 on the
    /// 6 × 16 tile), and a map of 9 pixels, which splits its pixels as before; 1×1: a 2×2 map and a 3×3 one. Each
    /// convolution is at least 200 K flops.
    @Test(arguments: [Case(side: 3, kernel: 3, inChannels: 32, outputs: 400), Case(side: 4, kernel: 3, inChannels: 32, outputs: 100),
                      Case(side: 5, kernel: 3, inChannels: 32, outputs: 75), Case(side: 2, kernel: 1, inChannels: 288, outputs: 100),
                      Case(side: 3, kernel: 1, inChannels: 96, outputs: 150)])
    func sameBitsAtAnyThreadCount(shape: Case) throws {
        let model = try graph(shape).model()
        let input = pseudoRandom(shape.side * shape.side * shape.inChannels, seed: 21, in: -1...1)
        for tile in GEMMTile.allCases.filter(\.isSupported) {
            let one = try InferenceSession(model: model, options: RuntimeOptions(convolutionGEMM: .packed(tile), sparseConvolution: .dense))
            let want = try one.run(input)
            #expect(one.stepsSplittingOutputs.isEmpty)
            for threads in [2, 3] {
                let session = try InferenceSession(model: model, options: RuntimeOptions(threadCount: threads, convolutionGEMM: .packed(tile),
                                                                                          sparseConvolution: .dense))
                let pixels = shape.out * shape.out
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
