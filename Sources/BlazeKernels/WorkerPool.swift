#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A fixed set of worker threads for data-parallel loops with microsecond dispatch.
///
/// A model runs hundreds of small ops per inference, so waking threads through the kernel for
/// each would cost more than the op. Workers spin briefly on a generation counter after each
/// job and then sleep on a condition variable, so an idle pool costs no CPU.
///
/// The spin has no `pause` hint: measured on the 2-core AMD EPYC VM of Benchmarks/RESULTS.md with a
/// busy loop pinned to the second core, `pause` in the spin (about 27 ns each there, so with a spin
/// budget of 1 << 12, 1 << 10 or, in the caller's wait, 1 << 7 rounds) made 2-thread medians and p90s
/// worse (hand_landmark_lite p90 3.6 → 4.3–5.1 ms, pose_detection median 5.5 → 6.3–7.0 ms) and changed
/// nothing on a quiet machine; the plain spin already beats LiteRT's 2-thread median and p90 there.
///
/// A pool belongs to one session, or to the sessions of one pipeline that run one after another (a
/// landmarker's detector and landmark network share one, so `threadCount` N means N threads in all);
/// `parallelFor` must not be called concurrently or re-entrantly on the same pool. There is no global
/// pool.
public final class WorkerPool: @unchecked Sendable {
    /// Threads that execute a `parallelFor`, the calling thread included.
    public let threadCount: Int
    private let state: PoolState

    /// Creates a pool executing on `threadCount` threads (the caller plus `threadCount − 1` workers).
    public init(threadCount: Int) {
        precondition(threadCount >= 1, "WorkerPool needs at least one thread")
        self.threadCount = threadCount
        state = PoolState(workers: threadCount - 1)
        for slot in 1..<threadCount {
            let s = state
            startDetachedThread(stackSize: 1 << 20) { s.workerLoop(slot: slot) }
        }
    }

    deinit { state.shutdown() }

    /// Calls `body(i)` for every `i` in `0..<count`, spread over the pool's threads; returns when all are done.
    public func parallelFor(_ count: Int, _ body: (Int) -> Void) {
        parallelFor(items: count) { i, _ in body(i) }
    }

    /// Calls `body(item, thread)` for every `item` in `0..<count`, spread over the pool's threads; returns when
    /// all are done. `thread` (0 for the caller, below ``threadCount``) is unique among the calls running at
    /// one time, so it can index per-thread scratch.
    ///
    /// Each thread is dealt a contiguous run of the items, which it takes in order; a thread that finishes its
    /// run takes the others' remaining items from their ends. A thread the machine slows down (a virtual CPU
    /// sharing its core) hands its last items to the others instead of holding up the loop: on the 2-core
    /// AMD EPYC VM of Benchmarks/RESULTS.md the second core ran 1.5× slower for stretches of tens of runs,
    /// and the caller then waited a third of each run for it.
    public func parallelFor(items count: Int, _ body: (_ item: Int, _ thread: Int) -> Void) {
        if count <= 0 { return }
        if threadCount == 1 || count == 1 || count >= PoolState.maxItems {
            for i in 0..<count { body(i, 0) }
            return
        }
        withoutActuallyEscaping(body) { job in state.run(count: count, job: job) }
    }

    /// Work the pool's workers take up while no loop has items for them, such as decoding the next frames
    /// of a video (`VideoFileReader`'s `decodeAheadWork`); nil removes it.
    ///
    /// On a machine whose cores all run the pool, a decoder on threads of its own competes with the workers
    /// for the same cores: a worker descheduled in the middle of its item holds up the whole loop, and the
    /// spinning of idle workers takes time from the decoder. Idle work runs on the workers instead, between
    /// loops: a worker busy with it takes no item, and the caller runs the loop's items itself (a loop never
    /// waits for a worker that has not started an item), so the cores run no more threads than they have.
    ///
    /// `work` is called on one worker at a time, repeatedly while it returns true (it did something) and
    /// again every few microseconds of a worker's spin while it returns false; it should return false at
    /// once when it has nothing to do. A long call delays nothing but that worker's help. This call waits
    /// for a call of the previous work in progress to return, so after `setIdleWork(nil)` the old work is
    /// no longer running and is never called again. A pool of one thread has no workers and never calls it.
    public func setIdleWork(_ work: (@Sendable () -> Bool)?) {
        state.setIdleWork(work)
    }
}

/// The shared state of a pool. Each thread's run of items is one word in `runs`, which packs the run's
/// generation (20 bits) and the run's first and end index (22 bits each); items are claimed one at a time
/// by compare-and-swap, by the owner from the front and by others from the back, so a claim can never mix
/// two loops or take an item twice. A worker that wakes late sees another generation (or its run emptied by
/// the others) and takes nothing, so a loop ends as soon as its items are done — the caller never waits for
/// a worker that the scheduler has not run yet (as on a busy machine, or with a video decoder on the other
/// core). It waits only for items a worker is running. A worker reads `job` only after claiming an item of
/// the current generation, which keeps the loop (and so `job`) alive until that item is done.
private final class PoolState: @unchecked Sendable {
    let workers: Int
    let generation = Atomic<Int>(0)
    /// One word per thread (the caller's first): generation, first and end index of its run of items.
    let runs: UnsafeMutablePointer<Atomic<Int>>
    let completed = Atomic<Int>(0)
    let sleepers = Atomic<Int>(0)
    var job: ((Int, Int) -> Void)?
    var stopping = false
    var mutex = pthread_mutex_t()
    var condition = pthread_cond_t()
    static let spinLimit = 1 << 16
    /// Held while the idle work runs or is replaced; `idleWork` is read and written only under it.
    var idleMutex = pthread_mutex_t()
    var idleWork: (@Sendable () -> Bool)?
    /// Whether `idleWork` is set: the spinning workers' cheap check before they try `idleMutex`.
    let hasIdleWork = Atomic<Bool>(false)
    /// Spins between a worker's looks for idle work (a look takes a lock; a spin is a few nanoseconds).
    static let idleCheckSpins = 64

    init(workers: Int) {
        self.workers = workers
        runs = .allocate(capacity: workers + 1)
        for t in 0...workers { (runs + t).initialize(to: Atomic(0)) }
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
        pthread_mutex_init(&idleMutex, nil)
    }

    deinit {
        runs.deinitialize(count: workers + 1)
        runs.deallocate()
    }

    func setIdleWork(_ work: (@Sendable () -> Bool)?) {
        pthread_mutex_lock(&idleMutex)
        idleWork = work
        hasIdleWork.store(work != nil, ordering: .sequentiallyConsistent)
        pthread_mutex_unlock(&idleMutex)
        // Sleeping workers look for the new work at once rather than at the next loop.
        pthread_mutex_lock(&mutex)
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&mutex)
    }

    /// Runs the idle work once if it is set and no other worker is running it; returns whether it did something.
    private func runIdleWork() -> Bool {
        guard hasIdleWork.load(ordering: .relaxed), pthread_mutex_trylock(&idleMutex) == 0 else { return false }
        defer { pthread_mutex_unlock(&idleMutex) }
        return idleWork?() ?? false
    }

    /// Most items one loop can have (the run words' 22-bit fields); `WorkerPool` runs larger loops serially.
    static let maxItems = 1 << 22
    static let field = 0x3f_ffff

    func run(count: Int, job: @escaping (Int, Int) -> Void) {
        self.job = job
        completed.store(0, ordering: .relaxed)
        let g = generation.load(ordering: .relaxed) &+ 1
        let threads = workers + 1
        for t in 0..<threads {
            runs[t].store((g & 0xf_ffff) << 44 | (count * t / threads) << 22 | count * (t + 1) / threads, ordering: .releasing)
        }
        generation.store(g, ordering: .sequentiallyConsistent)
        wakeSleepers()
        drain(thread: 0, generation: g)
        var spins = 0
        while completed.load(ordering: .acquiring) != count {
            spins += 1
            if spins > 1 << 12 { sched_yield() }
        }
        self.job = nil
    }

    private func wakeSleepers() {
        if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
            pthread_mutex_lock(&mutex)
            pthread_cond_broadcast(&condition)
            pthread_mutex_unlock(&mutex)
        }
    }

    /// Claims an item of generation `g` from run `r`: its first (`front`) or its last; nil when none is left.
    private func claim(run r: Int, generation g: Int, front: Bool) -> Int? {
        while true {
            let w = runs[r].load(ordering: .acquiring)
            let first = (w >> 22) & Self.field, end = w & Self.field
            if (w >> 44) & 0xf_ffff != g & 0xf_ffff || first >= end { return nil }
            let next = front ? w &+ (1 << 22) : w &- 1
            if runs[r].compareExchange(expected: w, desired: next, ordering: .acquiringAndReleasing).exchanged {
                return front ? first : end - 1
            }
        }
    }

    /// Runs this thread's items of generation `g` in order, then the others' from their ends, until none is left.
    private func drain(thread: Int, generation g: Int) {
        let threads = workers + 1
        for k in 0..<threads {
            let r = (thread + k) % threads
            while let item = claim(run: r, generation: g, front: k == 0) {
                job!(item, thread)
                completed.wrappingAdd(1, ordering: .releasing)
            }
        }
    }

    func workerLoop(slot: Int) {
        var seen = 0
        while true {
            var spins = 0
            var g = generation.load(ordering: .acquiring)
            while g == seen {
                if spins % PoolState.idleCheckSpins == 0, runIdleWork() {
                    spins = 0
                    g = generation.load(ordering: .acquiring)
                    continue
                }
                spins += 1
                if spins >= PoolState.spinLimit {
                    sleepers.wrappingAdd(1, ordering: .sequentiallyConsistent)
                    pthread_mutex_lock(&mutex)
                    // Woken by a new loop, by `setIdleWork` or spuriously; each of them ends the sleep, and the
                    // spin starts again with a look for idle work.
                    if generation.load(ordering: .sequentiallyConsistent) == seen && !stopping {
                        pthread_cond_wait(&condition, &mutex)
                    }
                    pthread_mutex_unlock(&mutex)
                    sleepers.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                    spins = 0
                }
                g = generation.load(ordering: .acquiring)
            }
            seen = g
            if stopping { return }
            drain(thread: slot, generation: g)
        }
    }

    func shutdown() {
        stopping = true
        generation.wrappingAdd(1, ordering: .sequentiallyConsistent)
        pthread_mutex_lock(&mutex)
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&mutex)
    }
}
