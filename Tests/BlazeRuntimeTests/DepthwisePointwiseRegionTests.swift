import BlazeKernels
import BlazeModelFormat
@testable import BlazeRuntime
import Testing

/// A depthwise convolution and the 1×1 convolutions after it, each reading the one before, run as one
/// parallel region when they split the same rows into more than one task; outputs are the same bits as each step alone (one thread, where
/// nothing is paired), with every GEMM tile, at awkward sizes.
@Suite struct DepthwisePointwiseRegionTests {
    /// x → dw 3×3 (stride `stride`, ReLU6) → 1×1 (c→40) with the residual add of a second 1×1 of the same map,
    /// then dw 3×3 → 1×1 (40→17) → 1×1 (17→24) as the output. Regions: dw + 1×1, the second 1×1 alone (it
    /// reads the depthwise output, not the 1×1 before it), dw + 1×1 + 1×1.
    func graph(h: Int, w: Int, c: Int, stride: Int) -> TinyGraph {
        var g = TinyGraph()
        let x = g.input([1, h, w, c])
        let oh = (h + 2 - 3) / stride + 1, ow = (w + 2 - 3) / stride + 1
        func depthwise(_ input: Int, _ channels: Int, _ s: Int, _ ih: Int, _ iw: Int, seed: UInt32) -> (Int, Int, Int) {
            let wv = g.constant([3, 3, channels], pseudoRandom(9 * channels, seed: seed, in: -0.5...0.5))
            let bv = g.constant([channels], pseudoRandom(channels, seed: seed + 1, in: -0.5...0.5))
            let h2 = (ih + 2 - 3) / s + 1, w2 = (iw + 2 - 3) / s + 1
            return (g.op(.depthwiseConv2d, [input, wv, bv], [1, h2, w2, channels],
                         window(strides: s, pads: [1, 1, 1, 1], activation: "relu6")), h2, w2)
        }
        func pointwise(_ input: Int, _ cin: Int, _ cout: Int, _ ph: Int, _ pw: Int, seed: UInt32) -> Int {
            let wv = g.constant([cout, 1, 1, cin], pseudoRandom(cout * cin, seed: seed, in: -0.5...0.5))
            let bv = g.constant([cout], pseudoRandom(cout, seed: seed + 1, in: -0.5...0.5))
            return g.op(.conv2d, [input, wv, bv], [1, ph, pw, cout], window())
        }
        let (d1, _, _) = depthwise(x, c, stride, h, w, seed: 3)
        let p1 = pointwise(d1, c, 40, oh, ow, seed: 5)
        let skip = pointwise(d1, c, 40, oh, ow, seed: 7)
        let sum = g.op(.add, [p1, skip], [1, oh, ow, 40], name: "sum")
        let (d2, _, _) = depthwise(sum, 40, 1, oh, ow, seed: 9)
        let p2 = pointwise(d2, 40, 17, oh, ow, seed: 11)
        g.outputs = [pointwise(p2, 17, 24, oh, ow, seed: 13)]
        return g
    }

    /// Maps big enough that every step splits between threads (at least 200 K flops), odd sizes among them,
    /// and one too small to split.
    @Test(arguments: [(24, 20, 32, 1), (33, 17, 24, 1), (66, 30, 24, 2), (2, 3, 19, 1)])
    func sameBitsAsTheStepsAlone(h: Int, w: Int, c: Int, stride: Int) throws {
        let model = try graph(h: h, w: w, c: c, stride: stride).model()
        let input = pseudoRandom(h * w * c, seed: 21, in: -1...1)
        for tile in GEMMTile.allCases.filter(\.isSupported) {
            var reference: [[Float]]?
            for threads in [1, 2, 3, 8] {
                let session = try InferenceSession(model: model, options: RuntimeOptions(threadCount: threads, convolutionGEMM: .packed(tile)))
                let steps = session.kernelNames.count
                if threads == 1 || h < 24 { #expect(session.regionCount == steps) }
                if threads > 1 && h >= 24 {
                    // Six steps in three regions.
                    #expect(steps == 6 && session.regionCount == 3, "\(session.regionCount) regions for \(steps) steps, \(threads) threads")
                }
                let out = try session.run(input)
                guard let want = reference else { reference = out; continue }
                let bad = out[0].indices.filter { out[0][$0].bitPattern != want[0][$0].bitPattern }
                #expect(bad.isEmpty, "\(tile.rawValue), \(threads) threads: \(bad.count) of \(out[0].count) differ")
            }
        }
    }

    /// Tasks' pixel shares cover the map once, in order, each starting on a multiple of 8 (a 7×7 map: 24 : 25).
    @Test func pixelSharesAreWholeTiles() {
        #expect(partition(49, 2, 0, multipleOf: 8) == 0..<24 && partition(49, 2, 1, multipleOf: 8) == 24..<49)
        for count in [0, 1, 5, 8, 9, 49, 196, 785, 3136] {
            for tasks in 1...5 {
                let shares = (0..<tasks).map { partition(count, tasks, $0, multipleOf: 8) }
                #expect(shares.first?.lowerBound == 0 && shares.last?.upperBound == count, "\(count) in \(tasks): \(shares)")
                for (a, b) in zip(shares, shares.dropFirst()) { #expect(a.upperBound == b.lowerBound) }
                for share in shares.dropFirst() { #expect(share.lowerBound % 8 == 0 || share.lowerBound == count) }
            }
        }
    }

    /// A task's pieces cover its share once, in order, on multiples of 24 but at the share's end, each at most
    /// about half of what is left of the share (the last two alike: four pieces are ½, ¼, ⅛, ⅛), so the last
    /// pieces are the smallest.
    @Test func piecesHalveTowardTheEndOfEachShare() {
        #expect((0..<4).map { piece(196, tasks: 1, items: 4, item: $0, multipleOf: 1) } == [0..<98, 98..<147, 147..<172, 172..<196])
        for count in [0, 1, 23, 49, 196, 785, 3136, 12544] {
            for tasks in 1...3 {
                for per in [1, 2, 4] {
                    let items = tasks * per
                    for t in 0..<tasks {
                        let share = partition(count, tasks, t, multipleOf: 24)
                        let pieces = (0..<per).map { piece(count, tasks: tasks, items: items, item: t * per + $0, multipleOf: 24) }
                        #expect(pieces.first?.lowerBound == share.lowerBound && pieces.last?.upperBound == share.upperBound,
                                "\(count) in \(tasks) × \(per), task \(t): \(pieces) against \(share)")
                        for (a, b) in zip(pieces, pieces.dropFirst()) { #expect(a.upperBound == b.lowerBound && a.count >= 0) }
                        for p in pieces.dropFirst() where p.lowerBound != share.upperBound {
                            #expect((p.lowerBound - share.lowerBound) % 24 == 0, "\(count) in \(tasks) × \(per): \(pieces)")
                        }
                        if share.count >= 24 * 16, per > 2 {
                            #expect(pieces[0].count >= pieces[per - 1].count * 2 - 24, "\(count) in \(tasks) × \(per): \(pieces)")
                        }
                    }
                }
            }
        }
    }

    /// The element-wise, pooling, pad, resize and depthwise steps' pieces (``WorkerPool/forEachPiece(of:tasks:_:)``,
    /// ``WorkerPool/forEachVectorPiece(of:tasks:_:)``) cover every index once, on pools of more, as many and fewer threads
    /// than tasks; vector pieces start on whole vectors, and the tail of fewer than eight floats is covered too.
    @Test func stepPiecesCoverEveryIndexOnce() {
        for threads in [1, 2, 3] {
            let pool = WorkerPool(threadCount: threads)
            for count in [0, 1, 7, 8, 9, 63, 256, 1001, 12544] {
                for tasks in 1...3 {
                    for vectors in [false, true] {
                        // Pieces are disjoint, so each index and each piece's first index is written by one thread.
                        let hits = UnsafeMutablePointer<Int>.allocate(capacity: max(count, 1))
                        hits.initialize(repeating: 0, count: max(count, 1))
                        let starts = UnsafeMutablePointer<Bool>.allocate(capacity: max(count, 1))
                        starts.initialize(repeating: false, count: max(count, 1))
                        let mark: (Range<Int>) -> Void = { r in
                            for i in r { hits[i] += 1 }
                            starts[r.lowerBound] = true
                        }
                        if vectors { pool.forEachVectorPiece(of: count, tasks: tasks, mark) } else { pool.forEachPiece(of: count, tasks: tasks, mark) }
                        #expect((0..<count).allSatisfy { hits[$0] == 1 }, "\(count) on \(tasks) tasks, \(threads) threads, vectors \(vectors)")
                        if vectors {
                            #expect((0..<count).allSatisfy { !starts[$0] || $0 % 8 == 0 }, "\(count) on \(tasks) tasks: a piece starts inside a vector")
                        }
                        hits.deallocate()
                        starts.deallocate()
                    }
                }
            }
        }
    }
}
