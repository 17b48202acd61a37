import BlazeKernels
import BlazeModelFormat
@testable import BlazeRuntime
import Testing

/// On one thread, a depthwise convolution, the convolution that makes its input (which nothing else reads) and
/// the 1×1 convolutions after it run in bands of rows through a ring (``DepthwiseBandRegion``); outputs are the
/// same bits as the steps alone, at awkward sizes.
@Suite struct DepthwiseBandRegionTests {
    struct Shape: CustomStringConvertible {
        var h: Int, w: Int, inChannels: Int, channels: Int
        var kernel: Int, stride: Int, dilation = 1, pads: [Int]
        /// The producer: a 1×1 convolution (1) or a 3×3 one, stride 1, padded (3).
        var producerKernel = 1
        /// A second reader of the producer's output (a 1×1 convolution of it, a second graph output): no region.
        var producerReadTwice = false

        var description: String {
            "\(h)×\(w)×\(inChannels)→\(channels), dw \(kernel)×\(kernel)/\(stride) dilation \(dilation) pads \(pads), "
                + "producer \(producerKernel)×\(producerKernel)\(producerReadTwice ? ", read twice" : "")"
        }
    }

    /// x → producer (inChannels → channels, ReLU6) → depthwise → 1×1 (channels → inChannels, plus x when the
    /// map keeps its size) → 1×1 (inChannels → 24) as output 0.
    func graph(_ s: Shape) -> TinyGraph {
        var g = TinyGraph()
        let x = g.input([1, s.h, s.w, s.inChannels])
        func conv(_ input: Int, _ cin: Int, _ cout: Int, _ k: Int, _ h: Int, _ w: Int, seed: UInt32, pad: Int = 0) -> Int {
            let wv = g.constant([cout, k, k, cin], pseudoRandom(cout * k * k * cin, seed: seed, in: -0.5...0.5))
            let bv = g.constant([cout], pseudoRandom(cout, seed: seed + 1, in: -0.5...0.5))
            return g.op(.conv2d, [input, wv, bv], [1, h, w, cout], window(pads: [pad, pad, pad, pad], activation: "relu6"))
        }
        let expanded = conv(x, s.inChannels, s.channels, s.producerKernel, s.h, s.w, seed: 3, pad: s.producerKernel / 2)
        let span = (s.kernel - 1) * s.dilation + 1
        let oh = (s.h + s.pads[0] + s.pads[2] - span) / s.stride + 1, ow = (s.w + s.pads[1] + s.pads[3] - span) / s.stride + 1
        var attributes = window(strides: s.stride, pads: s.pads, activation: "relu6")
        attributes["dilations"] = .ints([s.dilation, s.dilation])
        let dw = g.op(.depthwiseConv2d, [expanded,
                                         g.constant([s.kernel, s.kernel, s.channels],
                                                    pseudoRandom(s.kernel * s.kernel * s.channels, seed: 5, in: -0.5...0.5)),
                                         g.constant([s.channels], pseudoRandom(s.channels, seed: 6, in: -0.5...0.5))],
                      [1, oh, ow, s.channels], attributes)
        var projected = conv(dw, s.channels, s.inChannels, 1, oh, ow, seed: 7)
        if oh == s.h && ow == s.w {
            projected = g.op(.add, [projected, x], [1, oh, ow, s.inChannels])
        }
        g.outputs = [conv(projected, s.inChannels, 24, 1, oh, ow, seed: 9)]
        if s.producerReadTwice { g.outputs.append(conv(expanded, s.channels, 5, 1, s.h, s.w, seed: 11)) }
        return g
    }

    static let shapes: [Shape] = [
        Shape(h: 33, w: 17, inChannels: 5, channels: 19, kernel: 3, stride: 1, pads: [1, 1, 1, 1]),
        Shape(h: 40, w: 23, inChannels: 8, channels: 24, kernel: 3, stride: 2, pads: [0, 0, 1, 1]),
        Shape(h: 30, w: 18, inChannels: 6, channels: 32, kernel: 5, stride: 2, pads: [1, 1, 2, 2]),
        Shape(h: 29, w: 21, inChannels: 3, channels: 16, kernel: 5, stride: 1, pads: [2, 2, 2, 2], producerKernel: 3),
        Shape(h: 26, w: 19, inChannels: 4, channels: 17, kernel: 3, stride: 1, dilation: 2, pads: [2, 2, 2, 2]),
        Shape(h: 31, w: 16, inChannels: 7, channels: 20, kernel: 3, stride: 2, pads: [1, 1, 1, 1], producerReadTwice: true),
        // Unpadded, stride 2 over an even height: the last input row is read by no output.
        Shape(h: 20, w: 9, inChannels: 4, channels: 8, kernel: 3, stride: 2, pads: [0, 0, 0, 0]),
        Shape(h: 20, w: 9, inChannels: 4, channels: 8, kernel: 3, stride: 2, pads: [0, 0, 0, 0], producerReadTwice: true),
    ]

    @Test(arguments: shapes)
    func sameBitsAsTheStepsAlone(shape: Shape) throws {
        let model = try graph(shape).model()
        let input = pseudoRandom(shape.h * shape.w * shape.inChannels, seed: 21, in: -1...1)
        for tile in GEMMTile.allCases.filter(\.isSupported) {
            let alone = try InferenceSession(model: model, options: RuntimeOptions(convolutionGEMM: .packed(tile), runsDepthwiseInBands: false))
            let want = try alone.run(input)
            // Bands of one row, of a few rows, and one band of the whole map.
            for bandFloats in [1, 3 * shape.w * shape.channels * shape.stride, 1 << 30] {
                var options = RuntimeOptions(convolutionGEMM: .packed(tile))
                options.bandsForTesting = .init(minimumMapFloats: 1, bandFloats: bandFloats)
                let banded = try InferenceSession(model: model, options: options)
                #expect(banded.regionCount == alone.regionCount - (shape.producerReadTwice ? 0 : 3),
                        "\(tile.rawValue): \(banded.regionCount) regions")
                for _ in 0..<2 {   // a second run finds the ring as the first left it
                    let out = try banded.run(input)
                    for (o, w) in zip(out, want) {
                        let bad = o.indices.filter { o[$0].bitPattern != w[$0].bitPattern }
                        #expect(bad.count == 0, "\(tile.rawValue), band floats \(bandFloats): \(bad.count) of \(o.count) differ")
                    }
                }
            }
        }
    }

    /// hand_landmark's stride-2 block: x → 1×1 expansion → depthwise /2 → 1×1 projection, plus a max pool of x
    /// that the graph lists between the expansion and the depthwise convolution. On one thread the expansion
    /// moves past the pool, so that it starts a band region; the bits stay those of graph order. A pool that
    /// reads the expansion's output holds it in place.
    @Test(arguments: [false, true])
    func producerMovesPastAShortcutPool(poolReadsExpansion: Bool) throws {
        var g = TinyGraph()
        let (h, w, cin, c) = (30, 14, 8, 24)
        let x = g.input([1, h, w, cin])
        func conv(_ input: Int, _ from: Int, _ to: Int, _ oh: Int, _ ow: Int, seed: UInt32) -> Int {
            g.op(.conv2d, [input, g.constant([to, 1, 1, from], pseudoRandom(to * from, seed: seed, in: -0.5...0.5)),
                           g.constant([to], pseudoRandom(to, seed: seed + 1, in: -0.5...0.5))], [1, oh, ow, to], window(activation: "relu6"))
        }
        let expanded = conv(x, cin, c, h, w, seed: 3)
        let pooled = g.op(.maxPool2d, [poolReadsExpansion ? expanded : x], [1, h / 2, w / 2, poolReadsExpansion ? c : cin],
                          ["filter": .ints([2, 2]), "strides": .ints([2, 2]), "pads": .ints([0, 0, 0, 0])])
        let dw = g.op(.depthwiseConv2d, [expanded, g.constant([3, 3, c], pseudoRandom(9 * c, seed: 5, in: -0.5...0.5)),
                                         g.constant([c], pseudoRandom(c, seed: 6, in: -0.5...0.5))],
                      [1, h / 2, w / 2, c], window(strides: 2, pads: [0, 0, 1, 1], activation: "relu6"))
        let projected = conv(dw, c, poolReadsExpansion ? c : cin, h / 2, w / 2, seed: 7)
        g.outputs = [g.op(.add, [projected, pooled], [1, h / 2, w / 2, poolReadsExpansion ? c : cin])]
        let model = try g.model()
        let input = pseudoRandom(h * w * cin, seed: 21, in: -1...1)
        let alone = try InferenceSession(model: model, options: RuntimeOptions(runsDepthwiseInBands: false))
        var options = RuntimeOptions()
        options.bandsForTesting = .init(minimumMapFloats: 1, bandFloats: 2 * w * c)
        let banded = try InferenceSession(model: model, options: options)
        let (expansionNode, poolNode, dwNode) = (0, 1, 2)
        #expect(alone.stepNodes.prefix(3) == [expansionNode, poolNode, dwNode])
        if poolReadsExpansion {
            #expect(banded.stepNodes == alone.stepNodes)
            #expect(!banded.regionKinds.contains("bands through a ring"))
        } else {
            #expect(banded.stepNodes.prefix(3) == [poolNode, expansionNode, dwNode])
            let band = zip(banded.regionNodes, banded.regionKinds).first { $0.1 == "bands through a ring" }
            #expect(band?.0.prefix(2) == [expansionNode, dwNode])
        }
        for _ in 0..<2 {
            let got = try banded.run(input), want = try alone.run(input)
            #expect(got.map { $0.map(\.bitPattern) } == want.map { $0.map(\.bitPattern) })
        }
    }

    /// Maps under the size limit, and sessions of more than one thread, run step by step.
    @Test func smallMapsAndThreadedSessionsRunStepByStep() throws {
        let shape = Shape(h: 33, w: 17, inChannels: 5, channels: 19, kernel: 3, stride: 1, pads: [1, 1, 1, 1])
        let model = try graph(shape).model()
        let plain = try InferenceSession(model: model, options: RuntimeOptions(runsDepthwiseInBands: false))
        #expect(try InferenceSession(model: model).regionCount == plain.regionCount)
        var options = RuntimeOptions(threadCount: 2)
        options.bandsForTesting = .init(minimumMapFloats: 1, bandFloats: 1)
        let threaded = try InferenceSession(model: model, options: options)
        options.runsDepthwiseInBands = false
        #expect(try threaded.regionCount == InferenceSession(model: model, options: options).regionCount)
        #expect(try threaded.run(pseudoRandom(33 * 17 * 5, seed: 4)) == plain.run(pseudoRandom(33 * 17 * 5, seed: 4)))
    }
}
