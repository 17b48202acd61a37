import BlazeKernels
import CBLAS
import Foundation
import Synchronization
import Testing

@Suite struct ElementwiseAndLayoutKernelTests {
    @Test(arguments: [1, 7, 8, 9, 31, 1000])
    func addMatchesReference(count: Int) {
        var rng = SeededRandom(seed: UInt64(count))
        let a = rng.array(count, -8, 8), b = rng.array(count, -8, 8)
        for clamp in [ClampBounds.none, ClampBounds(min: 0, max: 6), ClampBounds(min: -1, max: 1)] {
            var e = [Float](repeating: 0, count: count), g = [Float](repeating: .nan, count: count)
            ElementwiseKernel.addReference(a, b, &e, count: count, clamp: clamp)
            ElementwiseKernel.add(a, b, &g, range: 0..<(count / 2), clamp: clamp)
            ElementwiseKernel.add(a, b, &g, range: (count / 2)..<count, clamp: clamp)
            #expect(g == e)
        }
    }

    @Test(arguments: [(5, 1), (3, 8), (4, 17), (2, 24)])
    func preluMatchesReference(pixels: Int, channels: Int) {
        var rng = SeededRandom(seed: 11)
        let x = rng.array(pixels * channels), alpha = rng.array(channels, 0, 0.5)
        var e = [Float](repeating: 0, count: x.count), g = [Float](repeating: .nan, count: x.count)
        ElementwiseKernel.preluReference(x, alpha: alpha, &e, pixels: pixels, channels: channels)
        ElementwiseKernel.prelu(x, alpha: alpha, &g, pixels: 0..<pixels, channels: channels)
        #expect(g == e)
    }

    @Test func logisticMatchesReference() {
        let x: [Float] = [-100, -10, -1, -1e-3, 0, 1e-3, 1, 10, 100]
        var e = [Float](repeating: 0, count: x.count), g = [Float](repeating: .nan, count: x.count)
        ElementwiseKernel.logisticReference(x, &e, count: x.count)
        ElementwiseKernel.logistic(x, &g, range: 0..<x.count)
        expectClose(g, e, rtol: 1e-6, atol: 1e-7, "logistic")
    }

    /// (inH, inW, C, outH, outW, alignCorners, halfPixel). The kernel in two row pieces is close to the plain twin,
    /// and gives the bits of its any-channel path (the arithmetic the networks' outputs were fixed with) also where
    /// the channels fill whole vectors.
    @Test(arguments: [(6, 6, 8, 12, 12, false, false), (6, 6, 8, 12, 12, true, false), (6, 6, 8, 12, 12, false, true),
                      (5, 7, 3, 9, 4, false, true), (8, 8, 17, 16, 16, false, false), (1, 1, 5, 3, 3, true, false),
                      (4, 3, 9, 11, 13, true, false), (5, 7, 16, 9, 4, false, false), (3, 9, 48, 7, 17, true, false),
                      (64, 64, 8, 128, 128, false, true), (1, 1, 8, 3, 3, true, false)])
    func resizeBilinearMatchesReference(inH: Int, inW: Int, c: Int, outH: Int, outW: Int, align: Bool, half: Bool) {
        var rng = SeededRandom(seed: 5)
        let x = rng.array(inH * inW * c)
        let rows = BilinearAxis(inputSize: inH, outputSize: outH, alignCorners: align, halfPixelCenters: half)
        let cols = BilinearAxis(inputSize: inW, outputSize: outW, alignCorners: align, halfPixelCenters: half)
        var e = [Float](repeating: 0, count: outH * outW * c), g = [Float](repeating: .nan, count: e.count), any = g
        ResizeBilinearKernel.reference(input: x, output: &e, inputWidth: inW, channels: c, rows: rows, columns: cols)
        for piece in [0..<(outH / 3), (outH / 3)..<outH] {
            ResizeBilinearKernel.direct(input: x, output: &g, inputWidth: inW, channels: c, rows: rows, columns: cols, outputRows: piece)
        }
        ResizeBilinearKernel.directAnyChannels(input: x, output: &any, inputWidth: inW, channels: c, rows: rows, columns: cols,
                                               outputRows: 0..<outH)
        expectClose(g, e, rtol: 1e-5, atol: 1e-6, "resize")
        #expect(g.map(\.bitPattern) == any.map(\.bitPattern), "resize \(c) channels: vector path vs any-channel path")
    }

    @Test func bilinearAxisFollowsTFLite() {
        // 2 -> 4, half pixel: s = (o + 0.5)·0.5 − 0.5 = −0.25, 0.25, 0.75, 1.25
        let a = BilinearAxis(inputSize: 2, outputSize: 4, alignCorners: false, halfPixelCenters: true)
        #expect(a.lower == [0, 0, 0, 1])
        #expect(a.upper == [0, 1, 1, 1])
        #expect(a.fraction == [-0.25, 0.25, 0.75, 0.25])
        // align corners 3 -> 5: scale 0.5
        let b = BilinearAxis(inputSize: 3, outputSize: 5, alignCorners: true, halfPixelCenters: false)
        #expect(b.lower == [0, 0, 1, 1, 2])
        #expect(b.fraction == [0, 0.5, 0, 0.5, 0])
    }

    @Test(arguments: [([1, 5, 4, 3], [0, 0, 1, 2, 0, 1, 0, 0]), ([1, 4, 4, 5], [0, 0, 0, 0, 0, 0, 0, 3]),
                      ([1, 3, 2, 8], [0, 0, 2, 2, 2, 2, 1, 0]), ([2, 2, 2, 2], [1, 0, 0, 1, 1, 0, 0, 0])])
    func padMatchesReference(shape: [Int], pads: [Int]) {
        var rng = SeededRandom(seed: 9)
        let x = rng.array(shape.reduce(1, *))
        var out = shape
        for a in 0..<4 { out[a] += pads[2 * a] + pads[2 * a + 1] }
        var e = [Float](repeating: 0, count: out.reduce(1, *)), g = [Float](repeating: .nan, count: e.count)
        LayoutKernel.padReference(input: x, inputShape: shape, pads: pads, output: &e)
        LayoutKernel.pad(input: x, inputShape: shape, pads: pads, output: &g, rows: 0..<(out[0] * out[1]))
        #expect(g == e)
    }

    @Test(arguments: [(3, 2, 8, 2), (2, 3, 18, 3), (1, 1, 4, 2)])
    func depthToSpaceMatchesReference(h: Int, w: Int, c: Int, block: Int) {
        let x = (0..<(h * w * c)).map(Float.init)
        var e = [Float](repeating: 0, count: x.count), g = [Float](repeating: .nan, count: x.count)
        LayoutKernel.depthToSpaceReference(input: x, height: h, width: w, channels: c, blockSize: block, output: &e)
        LayoutKernel.depthToSpace(input: x, height: h, width: w, channels: c, blockSize: block, output: &g, rows: 0..<h)
        #expect(g == e)
        // Spot check against the TFLite definition: out[0, 1, c] = in[0, 0, 1·C_out + c].
        #expect(g[c / (block * block)] == x[c / (block * block)])
    }

    @Test func meanAndFullyConnectedMatchReference() {
        var rng = SeededRandom(seed: 13)
        let x = rng.array(7 * 7 * 13)
        var e = [Float](repeating: 0, count: 13), g = [Float](repeating: .nan, count: 13)
        LayoutKernel.meanReference(input: x, outer: 1, reduce: 49, inner: 13, output: &e)
        LayoutKernel.mean(input: x, outer: 1, reduce: 49, inner: 13, output: &g)
        expectClose(g, e, rtol: 1e-5, atol: 1e-6, "mean")
        for m in [1, 3] {
            let k = 19, n = 11
            let input = rng.array(m * k), w = rng.array(n * k), b = rng.array(n)
            var fe = [Float](repeating: 0, count: m * n), fg = [Float](repeating: .nan, count: m * n)
            LayoutKernel.fullyConnectedReference(input: input, weights: w, bias: b, output: &fe, rows: m, inFeatures: k,
                                                 outFeatures: n, clamp: ClampBounds(min: 0, max: 6))
            for cols in [0..<4, 4..<n] {
                LayoutKernel.fullyConnected(input: input, weights: w, bias: b, output: &fg, rows: m, inFeatures: k, outFeatures: n,
                                            columns: cols, clamp: ClampBounds(min: 0, max: 6))
            }
            expectClose(fg, fe, rtol: 1e-5, atol: 1e-5, "fully connected m=\(m)")
        }
    }

    /// The hand landmark models' fully connected shapes (672 and 1152 inputs, 63 and 1 outputs), a row too long
    /// for a 4-column block (one call then), and two rows: the calls in blocks small enough for OpenBLAS to stay on the calling
    /// thread give the bits of one call over all columns, whatever OpenBLAS's thread count.
    @Test(arguments: [(1, 672, 63), (1, 1152, 63), (1, 1152, 1), (1, 3001, 10), (2, 1152, 63), (1, 5, 40)])
    func fullyConnectedInSingleThreadedBlocksMatchesOneCall(m: Int, k: Int, n: Int) {
        var rng = SeededRandom(seed: UInt64(k * n + m))
        let input = rng.array(m * k), w = rng.array(n * k), b = rng.array(n)
        var blocks = [Float](repeating: .nan, count: m * n)
        LayoutKernel.fullyConnected(input: input, weights: w, bias: b, output: &blocks, rows: m, inFeatures: k, outFeatures: n,
                                    columns: 0..<n, clamp: .none)
        var one = [Float](repeating: 0, count: m * n)
        for r in 0..<m { for j in 0..<n { one[r * n + j] = b[j] } }
        if m == 1 {
            cblas_sgemv(CblasRowMajor, CblasNoTrans, Int32(n), Int32(k), 1, w, Int32(k), input, 1, 1, &one, 1)
        } else {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(m), Int32(n), Int32(k), 1, input, Int32(k), w, Int32(k),
                        1, &one, Int32(n))
        }
        #expect(blocks == one)
        let perCall = LayoutKernel.singleThreadedColumns(rows: m, inFeatures: k)
        let limit = m == 1 ? LayoutKernel.openBLASSingleThreadLimit.gemv : LayoutKernel.openBLASSingleThreadLimit.gemm
        if 4 * m * k < limit {
            #expect(perCall % 4 == 0 && perCall * m * k < limit && (perCall + 4) * m * k >= limit, "\(perCall) columns of \(m)×\(k)")
        } else {
            #expect(perCall == .max, "a row too long for 4 columns: one call")
        }
    }

    @Test func concatenateInterleavesRuns() {
        let a: [Float] = [1, 2, 3, 4], b: [Float] = [5, 6]
        var out = [Float](repeating: 0, count: 6)
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                LayoutKernel.concatenate(inputs: [pa.baseAddress!, pb.baseAddress!], runLengths: [2, 1], outer: 2, output: &out)
            }
        }
        #expect(out == [1, 2, 5, 3, 4, 6])
    }

    @Test(arguments: [1, 2, 3])
    func workerPoolRunsEveryIndexOnce(threads: Int) {
        let pool = WorkerPool(threadCount: threads)
        for round in 0..<200 {
            let n = round % 7 + 1
            let hits = UnsafeMutablePointer<Int>.allocate(capacity: n)
            hits.initialize(repeating: 0, count: n)
            pool.parallelFor(n) { i in hits[i] += 1 }
            #expect((0..<n).allSatisfy { hits[$0] == 1 })
            hits.deallocate()
        }
    }

    /// Back-to-back runs of varying sizes while other threads keep the cores busy, so workers wake late
    /// and the caller finishes runs without them: every index of every run still runs exactly once, and
    /// no item of one run executes the next run's job.
    @Test(arguments: [2, 3, 4])
    func workerPoolRunsEveryIndexOnceUnderContention(threads: Int) {
        let pool = WorkerPool(threadCount: threads)
        let busy = Atomic<Bool>(true)
        let spinners = (0..<2).map { _ in
            Thread { while busy.load(ordering: .relaxed) { for _ in 0..<1000 { _ = busy.load(ordering: .relaxed) } } }
        }
        spinners.forEach { $0.start() }
        defer { busy.store(false, ordering: .relaxed) }
        let maxCount = 64
        let hits = UnsafeMutablePointer<Int>.allocate(capacity: maxCount)
        defer { hits.deallocate() }
        for round in 0..<20_000 {
            let n = [1, 2, 3, 5, 8, 13, 33, 64][round % 8]
            hits.initialize(repeating: 0, count: maxCount)
            let tag = round
            pool.parallelFor(n) { i in
                precondition(tag == round)
                hits[i] += 1
            }
            if !(0..<n).allSatisfy({ hits[$0] == 1 }) || (n..<maxCount).contains(where: { hits[$0] != 0 }) {
                Issue.record("round \(round): \((0..<maxCount).map { hits[$0] })")
                return
            }
        }
    }
}

/// `WorkerPool.parallelFor(items:_:)`: the thread a call gets is below the thread count and never shared
/// by two calls running at once (steps index per-thread scratch with it); each thread takes its own run of
/// items in order; and a thread held up in its first item has the rest of its run taken by the others.
@Suite struct WorkerPoolItemTests {
    @Test(arguments: [2, 3, 4])
    func threadsAreUniqueAmongRunningCallsAndEveryItemRunsOnce(threads: Int) {
        let pool = WorkerPool(threadCount: threads)
        let inUse = UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: threads)
        for t in 0..<threads { (inUse + t).initialize(to: Atomic(0)) }
        defer { inUse.deinitialize(count: threads); inUse.deallocate() }
        for round in 0..<2000 {
            let n = [2, 3, 5, 8, 13, 33][round % 6]
            let hits = UnsafeMutablePointer<Atomic<Int>>.allocate(capacity: n)
            for i in 0..<n { (hits + i).initialize(to: Atomic(0)) }
            let bad = Atomic<Int>(0)
            pool.parallelFor(items: n) { i, thread in
                guard thread >= 0, thread < threads else { bad.wrappingAdd(1, ordering: .relaxed); return }
                if inUse[thread].wrappingAdd(1, ordering: .acquiringAndReleasing).newValue != 1 { bad.wrappingAdd(1, ordering: .relaxed) }
                hits[i].wrappingAdd(1, ordering: .relaxed)
                for _ in 0..<(i % 3) * 200 { _ = inUse[thread].load(ordering: .relaxed) }
                inUse[thread].wrappingSubtract(1, ordering: .acquiringAndReleasing)
            }
            let counts = (0..<n).map { hits[$0].load(ordering: .relaxed) }
            hits.deinitialize(count: n)
            hits.deallocate()
            if bad.load(ordering: .relaxed) != 0 || counts.contains(where: { $0 != 1 }) {
                Issue.record("round \(round), \(threads) threads: \(bad.load(ordering: .relaxed)) calls shared a thread or got one out of range; runs per item \(counts)")
                return
            }
        }
    }

    @Test func aHeldUpThreadsItemsAreTakenByTheOthers() {
        let pool = WorkerPool(threadCount: 2)
        let n = 8
        // A caller that the machine holds up between starting the loop and claiming its first item finds every item
        // taken, its own too, before it claims one (the loop is then all the worker's, which is right, but holds
        // nobody up); that needs another try. Seen once in a clean-clone CI on a loaded 2-vCPU host.
        for _ in 0..<5 {
            let done = Atomic<Int>(0)
            var ranOn = [Int](repeating: -1, count: n)
            ranOn.withUnsafeMutableBufferPointer { ranOn in
                pool.parallelFor(items: n) { i, thread in
                    ranOn[i] = thread
                    // The caller's first item waits (up to 10 s) until the other seven are done: only the worker can
                    // do them, its own run (4..<8) first, then the caller's (1..<4) from the end.
                    if i == 0 {
                        let deadline = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
                        while done.load(ordering: .acquiring) < n - 1, DispatchTime.now().uptimeNanoseconds < deadline { usleep(100) }
                    } else {
                        done.wrappingAdd(1, ordering: .releasing)
                    }
                }
            }
            if ranOn == [Int](repeating: 1, count: n) { continue }
            #expect(ranOn == [0, 1, 1, 1, 1, 1, 1, 1], "the threads the items ran on")
            return
        }
        Issue.record("in 5 loops the caller never claimed its first item before the worker had taken them all")
    }
}

/// `WorkerPool.setIdleWork`: what workers do between loops.
@Suite struct WorkerPoolIdleWorkTests {
    /// Idle work runs on the workers, one call at a time, while loops keep running every index once; after
    /// `setIdleWork(nil)` returns it is never called again. A pool of one thread never calls it.
    @Test(arguments: [1, 2, 3])
    func idleWorkRunsOneAtATimeAndStopsWhenRemoved(threads: Int) {
        let pool = WorkerPool(threadCount: threads)
        let calls = Atomic<Int>(0), inside = Atomic<Bool>(false), overlapped = Atomic<Bool>(false)
        let wanted = 200
        pool.setIdleWork {
            if inside.exchange(true, ordering: .acquiringAndReleasing) { overlapped.store(true, ordering: .relaxed) }
            defer { inside.store(false, ordering: .releasing) }
            // "Did something" for the first `wanted` calls, then nothing to do.
            return calls.wrappingAdd(1, ordering: .relaxed).newValue <= wanted
        }
        let hits = UnsafeMutablePointer<Int>.allocate(capacity: 16)
        defer { hits.deallocate() }
        for round in 0..<2_000 {
            let n = round % 16 + 1
            hits.initialize(repeating: 0, count: 16)
            pool.parallelFor(n) { i in hits[i] += 1 }
            if !(0..<n).allSatisfy({ hits[$0] == 1 }) { Issue.record("round \(round): \((0..<n).map { hits[$0] })"); return }
        }
        let deadline = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
        while threads > 1, calls.load(ordering: .relaxed) < wanted, DispatchTime.now().uptimeNanoseconds < deadline { usleep(1000) }
        pool.setIdleWork(nil)
        let afterRemoval = calls.load(ordering: .relaxed)
        for _ in 0..<200 { pool.parallelFor(4) { _ in } }
        usleep(20_000)
        if threads == 1 {
            #expect(afterRemoval == 0, "a pool without workers called the idle work")
        } else {
            #expect(afterRemoval >= wanted, "idle work called \(afterRemoval) times, expected at least \(wanted)")
        }
        let callsNow = calls.load(ordering: .relaxed)
        #expect(callsNow == afterRemoval, "idle work called after setIdleWork(nil) returned")
        let ranTogether = overlapped.load(ordering: .relaxed)
        #expect(!ranTogether, "two workers ran the idle work at once")
    }

    /// A worker held up inside a long idle call does not hold up loops: the caller runs their items itself.
    @Test func loopsFinishWhileAWorkerIsBusyWithIdleWork() {
        let pool = WorkerPool(threadCount: 2)
        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let first = Atomic<Bool>(true), inside = Atomic<Bool>(false)
        pool.setIdleWork {
            guard first.exchange(false, ordering: .relaxed) else { return false }
            inside.store(true, ordering: .releasing)
            entered.signal()
            // The test releases it after its loops; if the loops waited for this worker, only this timeout
            // would let them finish, and `inside` would be false by then.
            _ = release.wait(timeout: .now() + 10)
            inside.store(false, ordering: .releasing)
            return true
        }
        #expect(entered.wait(timeout: .now() + 10) == .success, "the worker never took up the idle work")
        var sum = 0
        let partial = UnsafeMutablePointer<Int>.allocate(capacity: 8)
        defer { partial.deallocate() }
        for _ in 0..<1_000 {
            partial.initialize(repeating: 0, count: 8)
            pool.parallelFor(8) { i in partial[i] = i + 1 }
            sum += (0..<8).reduce(0) { $0 + partial[$1] }
        }
        let stillInside = inside.load(ordering: .acquiring)
        #expect(stillInside, "the loops finished only after the worker left its idle call")
        release.signal()
        #expect(sum == 1_000 * 36)
        pool.setIdleWork(nil)
    }
}
