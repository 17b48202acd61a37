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
        for _ in 0..<(threadCount - 1) {
            let s = state
            startDetachedThread(stackSize: 1 << 20) { s.workerLoop() }
        }
    }

    deinit { state.shutdown() }

    /// Calls `body(i)` for every `i` in `0..<count`, spread over the pool's threads; returns when all are done.
    public func parallelFor(_ count: Int, _ body: (Int) -> Void) {
        if count <= 0 { return }
        if threadCount == 1 || count == 1 || count >= PoolState.maxItems {
            for i in 0..<count { body(i) }
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

/// The shared state of a pool. Work items are claimed one at a time through `ticket`, which packs the run's
/// generation (20 bits), its item count and the next unclaimed index (22 bits each), by compare-and-swap:
/// count and index come from one word, so a claim can never mix two runs. A worker
/// that wakes late sees another generation (or no item left) and takes nothing, so a run ends as soon as
/// its items are done — the caller never waits for a worker that the scheduler has not run yet (as on a
/// busy machine, or with a video decoder on the other core). It waits only for items a worker is running.
/// A worker reads `job` only after claiming an item of the current generation, which keeps the run (and
/// so `job`) alive until that item is done.
private final class PoolState: @unchecked Sendable {
    let workers: Int
    let generation = Atomic<Int>(0)
    let ticket = Atomic<Int>(0)
    let completed = Atomic<Int>(0)
    let sleepers = Atomic<Int>(0)
    var job: ((Int) -> Void)?
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
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
        pthread_mutex_init(&idleMutex, nil)
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

    /// Most items one run can have (the ticket's 22-bit fields); `WorkerPool` runs larger loops serially.
    static let maxItems = 1 << 22

    func run(count: Int, job: @escaping (Int) -> Void) {
        self.job = job
        completed.store(0, ordering: .relaxed)
        let g = generation.load(ordering: .relaxed) &+ 1
        ticket.store((g & 0xf_ffff) << 44 | count << 22, ordering: .releasing)
        generation.store(g, ordering: .sequentiallyConsistent)
        wakeSleepers()
        drain()
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

    /// Claims and runs items of the current generation until none is left.
    private func drain() {
        while true {
            let t = ticket.load(ordering: .acquiring)
            let index = t & 0x3f_ffff, count = (t >> 22) & 0x3f_ffff
            if index >= count { return }
            guard ticket.compareExchange(expected: t, desired: t &+ 1, ordering: .acquiringAndReleasing).exchanged else {
                continue
            }
            job!(index)
            completed.wrappingAdd(1, ordering: .releasing)
        }
    }

    func workerLoop() {
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
            drain()
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
