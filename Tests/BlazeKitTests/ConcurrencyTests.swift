import BlazeImage
import BlazeKit
import Foundation
import Testing

private func photo(_ path: String) throws -> Image {
    try Image(contentsOfPNGFile: Bundle.module.resourceURL!.appendingPathComponent("Fixtures/\(path)").path)
}

/// Runs `body(i)` for each `i` in `0..<count` on a thread of its own; the threads are all started, then
/// released together, so their calls overlap. Results come back in `i` order.
private func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) -> [Result<T, any Error>] {
    let slots = ThreadSlots<T>(count)
    let ready = DispatchGroup(), done = DispatchGroup()
    let go = DispatchSemaphore(value: 0)
    for i in 0..<count {
        ready.enter()
        done.enter()
        let thread = Thread {
            ready.leave()
            go.wait()
            let result = Result { try body(i) }
            slots.lock.withLock { slots.values[i] = result }
            done.leave()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
    ready.wait()
    for _ in 0..<count { go.signal() }
    done.wait()
    return slots.lock.withLock { slots.values.map { $0! } }
}

private final class ThreadSlots<T>: @unchecked Sendable {
    let lock = NSLock()
    var values: [Result<T, any Error>?]
    init(_ count: Int) { values = Array(repeating: nil, count: count) }
}

/// Collects live-stream callbacks with the state of the world when each arrived.
private final class ReleaseRecorder: PoseLandmarkerLiveStreamDelegate, HandLandmarkerLiveStreamDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var timestamps: [Int] = []
    /// Timestamps of the callbacks that began after the releasing thread's `drop()` had returned.
    private var afterRelease: [Int] = []
    /// Callbacks with an error or from another landmarker than the one watched.
    private var failures = 0
    private var releaseFinished = false
    let landmarker = WeakAnyBox()
    /// Called (on the callback queue) after each callback is recorded, with the recorder and the timestamp.
    var onCallback: (@Sendable (ReleaseRecorder, Int) -> Void)?

    private func record(_ sender: AnyObject, _ timestamp: Int, _ error: (any Error)?) {
        lock.withLock {
            if releaseFinished { afterRelease.append(timestamp) }
            if sender !== landmarker.value || error != nil { failures += 1 }
            timestamps.append(timestamp)
        }
        onCallback?(self, timestamp)
    }

    var snapshot: (timestamps: [Int], afterRelease: [Int], failures: Int) { lock.withLock { (timestamps, afterRelease, failures) } }
    func markReleaseFinished() { lock.withLock { releaseFinished = true } }

    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?) {
        record(poseLandmarker, timestampInMilliseconds, error)
    }

    func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?) {
        record(handLandmarker, timestampInMilliseconds, error)
    }
}

final class WeakAnyBox: @unchecked Sendable {
    private let lock = NSLock()
    private weak var object: AnyObject?
    var value: AnyObject? { lock.withLock { object } }
    func set(_ value: AnyObject?) { lock.withLock { object = value } }
}

/// A strong reference that one thread can drop while others use what it held.
private final class Holder<T: AnyObject>: @unchecked Sendable {
    private let lock = NSLock()
    private var object: T?
    init(_ object: T) { self.object = object }
    var value: T? { lock.withLock { object } }
    /// Drops the reference outside the lock, so a deinit it triggers runs on the calling thread unlocked.
    func drop() {
        let last = lock.withLock { () -> T? in defer { object = nil }; return object }
        _ = consume last
    }
}

/// Landmarkers used from several threads at once: separate instances are independent (their results are
/// bit-for-bit the ones they give alone), one instance serializes its callers, and a live-stream
/// landmarker released from another thread while it processes a frame neither crashes nor calls back.
@Suite(.serialized) struct ConcurrencyTests {
    static let posePhotos = ["pose/mpii_052475643.png", "pose/coco_000000040083.png", "pose/panoptic_ex2_2.flv_000040_l.png"]
    static let handPhotos = ["hand/onehand10k_1402.png", "hand/panoptic_ex2_2.flv_000040_l.png", "hand/freihand_00000355.png"]

    /// Three pose landmarkers (image mode; thread counts 1, 2 and 1, the second with masks) on three threads,
    /// each going through the photos in its own order, twice: every result equals, bit for bit, what the
    /// same landmarker gave for that photo when it ran alone.
    @Test func poseLandmarkersOnThreeThreadsMatchTheirSequentialResults() throws {
        let photos = try Self.posePhotos.map(photo)
        let landmarkers = try [(1, false), (2, true), (1, false)].map { threads, masks in
            let options = PoseLandmarkerOptions()
            options.baseOptions.threadCount = threads
            options.shouldOutputSegmentationMasks = masks
            return try PoseLandmarker(options: options)
        }
        let alone = try landmarkers.map { landmarker in try photos.map { bits(try landmarker.detect(image: $0)) } }
        #expect(alone.allSatisfy { $0.allSatisfy { $0.count > 1 } }, "every photo has a pose")
        let together = onThreads(landmarkers.count) { i in
            try (0..<(2 * photos.count)).map { k in
                let p = (k + i) % photos.count
                return (p, bits(try landmarkers[i].detect(image: photos[p])))
            }
        }
        for (i, outcome) in together.enumerated() {
            let runs = try outcome.get()
            #expect(runs.count == 2 * photos.count)
            for (p, result) in runs { #expect(result == alone[i][p], "landmarker \(i), \(Self.posePhotos[p])") }
        }
        // The three configurations differ only in threads and masks: their landmarks agree with each other too.
        #expect(alone[0] == alone[2])
    }

    /// The same for three hand landmarkers, two hands each.
    @Test func handLandmarkersOnThreeThreadsMatchTheirSequentialResults() throws {
        let photos = try Self.handPhotos.map(photo)
        let landmarkers = try [1, 2, 1].map { threads in
            let options = HandLandmarkerOptions()
            options.baseOptions.threadCount = threads
            options.numHands = 2
            return try HandLandmarker(options: options)
        }
        let alone = try landmarkers.map { landmarker in try photos.map { try landmarker.detect(image: $0) } }
        #expect(alone.allSatisfy { $0.allSatisfy { !$0.landmarks.isEmpty } }, "every photo has a hand")
        let together = onThreads(landmarkers.count) { i in
            try (0..<(2 * photos.count)).map { k in
                let p = (k + i) % photos.count
                return (p, try landmarkers[i].detect(image: photos[p]))
            }
        }
        for (i, outcome) in together.enumerated() {
            for (p, result) in try outcome.get() {
                #expect(bits(result) == bits(alone[i][p]) && result == alone[i][p], "landmarker \(i), \(Self.handPhotos[p])")
            }
        }
        #expect(alone[0] == alone[2])
    }

    /// VIDEO mode: three pose landmarkers track the same pan-and-zoom clip on three threads at once; each
    /// frame's result equals the one a fourth landmarker gives running the clip alone (tracking state is
    /// per instance).
    @Test func videoTrackingOnThreeThreadsMatchesTheSequentialRun() throws {
        let source = try photo("pose/mpii_052475643.png")
        let camera = PanZoomSequence(source: source, width: 320, height: 240, frameCount: 8,
                                     startCenter: SIMD2(0.5, 0.5), endCenter: SIMD2(0.46, 0.54), startZoom: 1, endZoom: 1.3)
        let frames = try (0..<camera.frameCount).map { try camera.frame($0) }
        func tracker() throws -> PoseLandmarker {
            let options = PoseLandmarkerOptions()
            options.runningMode = .video
            return try PoseLandmarker(options: options)
        }
        let reference = try tracker()
        let alone = try frames.enumerated().map { bits(try reference.detect(videoFrame: $1, timestampInMilliseconds: $0 * 33)) }
        #expect(reference.trackingStatistics.detectorRuns < frames.count, "the pose is tracked, not re-detected")
        let trackers = try (0..<3).map { _ in try tracker() }
        let together = onThreads(trackers.count) { i in
            try frames.enumerated().map { bits(try trackers[i].detect(videoFrame: $1, timestampInMilliseconds: $0 * 33)) }
        }
        for (i, outcome) in together.enumerated() { #expect(try outcome.get() == alone, "tracker \(i)") }
    }

    /// One image-mode landmarker shared by three threads: calls are serialized inside, so every result is
    /// still the one the landmarker gives alone. One thread then drops the last outside reference while the
    /// others are inside `detect`: each call holds the landmarker (`self`) until it returns, so they finish.
    @Test func oneLandmarkerSharedByThreeThreadsAndReleasedDuringDetect() throws {
        let photos = try Self.posePhotos.map(photo)
        let landmarker = try PoseLandmarker(options: PoseLandmarkerOptions())
        let alone = try photos.map { bits(try landmarker.detect(image: $0)) }
        let holder = Holder(landmarker)
        let gone = WeakAnyBox()
        gone.set(landmarker)
        let started = DispatchSemaphore(value: 0)
        _ = consume landmarker
        let outcomes = onThreads(3) { i -> [[UInt64]] in
            if i == 2 {
                // Wait until both others are inside their first call, then let go.
                started.wait(); started.wait()
                usleep(5_000)
                holder.drop()
                return []
            }
            guard let shared = holder.value else { return [] }
            started.signal()
            return try (0..<4).map { k in bits(try shared.detect(image: photos[(k + i) % photos.count])) }
        }
        for i in 0..<2 {
            let runs = try outcomes[i].get()
            #expect(runs.count == 4)
            for (k, result) in runs.enumerated() { #expect(result == alone[(k + i) % photos.count], "thread \(i) call \(k)") }
        }
        #expect(gone.value == nil, "the landmarker is freed once the last call returns")
    }

    /// A live-stream landmarker released by another thread while its scheduler works through frames 1 and 2
    /// (submitted back to back): the landmarker is freed (no inference outlives it), and no callback takes
    /// the landmarker once it is gone — the callbacks hold it weakly. Four timings (0–9 ms after the
    /// submissions), pose and hand. (How far the scheduler got before the release depends on the machine:
    /// frame 2 may be dropped while waiting, or be processed and answered before the release. A callback that
    /// took the landmarker just before the release may still be about to call the delegate when the release
    /// returns; the landmarker is then freed on the callback queue when that callback returns. So at most
    /// one callback begins after the release returned.)
    @Test(arguments: ["pose", "hand"])
    func liveStreamReleasedFromAnotherThreadWhileProcessing(_ task: String) throws {
        let image = try photo(task == "pose" ? "pose/mpii_052475643.png" : "hand/onehand10k_1402.png")
        for round in 0..<4 {
            let recorder = ReleaseRecorder()
            let firstAnswered = DispatchSemaphore(value: 0)
            recorder.onCallback = { _, timestamp in if timestamp == 0 { firstAnswered.signal() } }
            let holder: Holder<AnyObject>
            let submit: @Sendable (AnyObject, Int) throws -> Void
            if task == "pose" {
                let options = PoseLandmarkerOptions()
                options.runningMode = .liveStream
                options.poseLandmarkerLiveStreamDelegate = recorder
                holder = Holder(try PoseLandmarker(options: options))
                submit = { try ($0 as! PoseLandmarker).detectAsync(image: image, timestampInMilliseconds: $1) }
            } else {
                let options = HandLandmarkerOptions()
                options.runningMode = .liveStream
                options.handLandmarkerLiveStreamDelegate = recorder
                holder = Holder(try HandLandmarker(options: options))
                submit = { try ($0 as! HandLandmarker).detectAsync(image: image, timestampInMilliseconds: $1) }
            }
            recorder.landmarker.set(holder.value)
            try submit(holder.value!, 0)
            #expect(firstAnswered.wait(timeout: .now() + 60) == .success, "round \(round): frame 0 answered")
            usleep(20_000)   // frame 0's callback has returned: the landmarker is idle
            // Frame 1 starts at once (in flight), frame 2 waits.
            try submit(holder.value!, 1)
            try submit(holder.value!, 2)
            let releasing = onThreads(1) { _ -> Double in
                usleep(useconds_t(round * 3_000))
                let start = Date()
                holder.drop()
                recorder.markReleaseFinished()
                return Date().timeIntervalSince(start)
            }
            let seconds = try releasing[0].get()
            #expect(seconds < 20, "round \(round): the release took \(seconds) s")
            usleep(300_000)
            #expect(recorder.landmarker.value == nil, "round \(round): freed once the releasing thread let go")
            let s = recorder.snapshot
            #expect(s.failures == 0 && s.afterRelease.count <= 1, "round \(round): \(s)")
            #expect(s.timestamps.first == 0 && zip(s.timestamps, s.timestamps.dropFirst()).allSatisfy { $0 < $1 }, "round \(round): \(s)")
        }
    }

    /// A delegate that drops the last reference to its landmarker from inside the callback: the landmarker
    /// is freed on the callback queue when the callback returns, waits there for the frame in flight
    /// (a different queue, so no deadlock), and calls back no more.
    @Test func delegateReleasingItsLandmarkerFromTheCallback() throws {
        let image = try photo("pose/mpii_052475643.png")
        let recorder = ReleaseRecorder()
        let options = PoseLandmarkerOptions()
        options.runningMode = .liveStream
        options.poseLandmarkerLiveStreamDelegate = recorder
        let holder = Holder(try PoseLandmarker(options: options))
        recorder.landmarker.set(holder.value)
        let dropped = DispatchSemaphore(value: 0)
        recorder.onCallback = { _, timestamp in
            if timestamp == 0 {
                holder.drop()
                dropped.signal()
            }
        }
        do {
            let landmarker = holder.value!
            // Frame 0 starts at once; 1 and 2 arrive while it runs (2 replaces 1, which is dropped).
            try landmarker.detectAsync(image: image, timestampInMilliseconds: 0)
            try landmarker.detectAsync(image: image, timestampInMilliseconds: 1)
            try landmarker.detectAsync(image: image, timestampInMilliseconds: 2)
        }
        #expect(dropped.wait(timeout: .now() + 60) == .success)
        let deadline = Date().addingTimeInterval(30)
        while recorder.landmarker.value != nil, Date() < deadline { usleep(5_000) }
        #expect(recorder.landmarker.value == nil, "freed after the callback returned")
        recorder.markReleaseFinished()
        usleep(300_000)
        let s = recorder.snapshot
        #expect(s.timestamps == [0] && s.afterRelease.isEmpty && s.failures == 0, "\(s)")
    }
}
