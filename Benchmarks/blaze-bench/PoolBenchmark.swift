import ArgumentParser
import BlazeKernels
import Foundation

/// `blaze-bench pool`: what one parallel loop of `WorkerPool` costs beyond its work. A network runs 50–120
/// loops per inference, so on the small hand networks this cost decides what a second thread pays.
struct PoolBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pool",
        abstract: "Times WorkerPool.parallelFor: empty loops, and loops of busy items against the same work on one thread.")

    @Option(help: "Threads of the pool.") var threads = 2
    @Option(help: "Loops timed per measurement.") var loops = 20_000

    func run() throws {
        let pool = WorkerPool(threadCount: threads)
        let sink = UnsafeMutablePointer<Double>.allocate(capacity: 64 * threads)
        defer { sink.deallocate() }
        sink.initialize(repeating: 0, count: 64 * threads)
        // About `n` nanoseconds of dependent floating-point work (no memory traffic).
        @inline(never) func busy(_ n: Int, _ slot: Int) {
            var x = sink[slot * 64] + 1
            for _ in 0..<(n / 4) { x = x * 0.999_999 + 1e-9 }
            sink[slot * 64] = x
        }
        func time(_ body: () -> Void) -> Double {
            for _ in 0..<(loops / 10) { body() }
            let t0 = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<loops { body() }
            return Double(DispatchTime.now().uptimeNanoseconds - t0) / Double(loops) / 1000
        }
        print("# \(threads) threads, \(loops) loops per figure, µs per loop")
        print(String(format: "empty loop of %d items: %.2f µs", threads, time { pool.parallelFor(threads) { _ in } }))
        for work in [1_000, 3_000, 10_000, 30_000] {
            let serial = time { for t in 0..<threads { busy(work, t) } }
            let parallel = time { pool.parallelFor(threads) { t in busy(work, t) } }
            print(String(format: "%d items of ~%d ns: one thread %.2f µs, pool %.2f µs, speed-up %.2f×, cost over ideal %.2f µs",
                         threads, work, serial, parallel, serial / parallel, parallel - serial / Double(threads)))
        }
    }
}
