import ArgumentParser
import BlazeKit
import BlazeVideo
import Foundation

/// `blaze-soak CLIP`: the long-run memory check of issue #14. Two landmarkers run side by side for a
/// given time: one `PoseLandmarker` in VIDEO mode that decodes CLIP again and again (timestamps keep
/// increasing across loops), and one in LIVE_STREAM mode fed with `detectAsync` from a second thread at
/// a camera's pace. Every `--sample-seconds` it prints one JSON line with the resident set size (from
/// /proc/self/statm) and the counters; at the end, one summary line. It exits 1 if the resident set at
/// the end exceeds the one at the end of the warm-up by more than `--tolerance-mb`, or if any frame
/// failed, or if a live-stream callback came out of timestamp order.
@main
struct BlazeSoak: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blaze-soak",
        abstract: "Runs VIDEO-mode and LIVE_STREAM pose landmarkers for a long time and checks that memory stays flat.")

    @Argument(help: "A video file with a person in it (decoded again on every loop).") var clip: String
    @Option(help: "Total run time in minutes, warm-up included.") var minutes: Double = 22
    @Option(help: "Seconds of warm-up; the resident set after it is the baseline.") var warmupSeconds: Double = 120
    @Option(help: "Seconds between samples.") var sampleSeconds: Double = 30
    @Option(help: "Allowed growth of the resident set from the warm-up baseline to the end, in MiB.") var toleranceMb: Double = 16
    @Option(help: "Milliseconds between live-stream submissions (a 30 fps camera: 33).") var liveIntervalMs: Int = 33
    @Option(help: "Frames of the clip held in memory for the live stream (the camera replays them).") var liveFrames: Int = 30
    @Option(help: "Threads per inference, for each landmarker.") var threads = 1

    func validate() throws {
        guard minutes > 0, minutes.isFinite else { throw ValidationError("--minutes expects a positive number, got \(minutes)") }
        guard warmupSeconds >= 0, warmupSeconds < minutes * 60 else {
            throw ValidationError("--warmup-seconds expects 0 ≤ s < --minutes · 60 = \(minutes * 60), got \(warmupSeconds)")
        }
        guard sampleSeconds > 0 else { throw ValidationError("--sample-seconds expects a positive number, got \(sampleSeconds)") }
        guard toleranceMb >= 0 else { throw ValidationError("--tolerance-mb expects ≥ 0, got \(toleranceMb)") }
        guard liveIntervalMs >= 1 else { throw ValidationError("--live-interval-ms expects ≥ 1, got \(liveIntervalMs)") }
        guard (1...300).contains(liveFrames) else { throw ValidationError("--live-frames expects 1...300, got \(liveFrames)") }
        guard (1...64).contains(threads) else { throw ValidationError("--threads expects 1...64, got \(threads)") }
    }

    func run() throws {
        // The camera's frames: the first `liveFrames` of the clip, decoded once.
        var cameraFrames: [Image] = []
        do {
            let reader = try VideoFileReader(path: clip)
            while cameraFrames.count < liveFrames, let frame = try reader.nextFrame() { cameraFrames.append(frame.image) }
        }
        guard !cameraFrames.isEmpty else { throw ValidationError("\(clip): no frames decoded") }

        let counters = Counters()
        let videoOptions = PoseLandmarkerOptions()
        videoOptions.runningMode = .video
        videoOptions.baseOptions.threadCount = threads
        let video = try PoseLandmarker(options: videoOptions)

        let recorder = LiveRecorder(counters: counters)
        let liveOptions = PoseLandmarkerOptions()
        liveOptions.runningMode = .liveStream
        liveOptions.baseOptions.threadCount = threads
        liveOptions.poseLandmarkerLiveStreamDelegate = recorder
        let live = try PoseLandmarker(options: liveOptions)

        let stop = StopFlag()
        let clip = self.clip
        let videoDone = DispatchSemaphore(value: 0), liveDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var offset = 0, last = -1
            do {
                while !stop.isSet {
                    let reader = try VideoFileReader(path: clip)
                    while !stop.isSet, let frame = try reader.nextFrame() {
                        let timestamp = offset + frame.timestampMs
                        let result = try video.detect(videoFrame: frame.image, timestampInMilliseconds: timestamp)
                        last = timestamp
                        counters.videoFrame(withPose: !result.landmarks.isEmpty)
                    }
                    offset = last + 40
                    counters.videoLoop()
                }
            } catch {
                counters.videoError("\(error)")
            }
            videoDone.signal()
        }
        let interval = liveIntervalMs
        let frames = cameraFrames
        Thread.detachNewThread {
            var i = 0
            while !stop.isSet {
                do {
                    try live.detectAsync(image: frames[i % frames.count], timestampInMilliseconds: i * interval)
                    counters.liveSubmitted()
                } catch {
                    counters.liveError("\(error)")
                }
                i += 1
                usleep(useconds_t(interval * 1000))
            }
            liveDone.signal()
        }

        let start = Date()
        let total = minutes * 60
        var baseline: Int?
        var samples: [(seconds: Double, kb: Int)] = []
        var nextSample = 0.0
        while true {
            let elapsed = Date().timeIntervalSince(start)
            if elapsed >= nextSample || elapsed >= total {
                let kb = residentKilobytes()
                let warm = elapsed >= warmupSeconds && counters.snapshot.videoLoops >= 1
                if warm, baseline == nil { baseline = kb }
                if baseline != nil { samples.append((elapsed, kb)) }
                print(counters.json(seconds: elapsed, rssKB: kb, warm: warm))
                fflush(nil)   // all output streams (a pipe or file buffers the JSON lines)
                nextSample += sampleSeconds
                if elapsed >= total { break }
            }
            if counters.snapshot.videoError != nil { break }
            usleep(200_000)
        }
        stop.set()
        videoDone.wait()
        liveDone.wait()
        // Let the last live frame finish; its callback arrives or, once `live` is gone, never does.
        usleep(500_000)
        withExtendedLifetime((video, live, recorder)) {}

        let s = counters.snapshot
        let end = samples.last?.kb ?? residentKilobytes()
        let growth = baseline.map { end - $0 } ?? 0
        let slope = Self.slopeKBPerMinute(samples)
        let toleranceKB = Int(toleranceMb * 1024)
        var failures: [String] = []
        if baseline == nil { failures.append("never warmed up (no full loop of the clip within \(minutes) min)") }
        if growth > toleranceKB { failures.append("resident set grew \(growth) kB after warm-up (tolerance \(toleranceKB) kB)") }
        if let e = s.videoError { failures.append("video: \(e)") }
        if let e = s.liveError { failures.append("live stream: \(e)") }
        if s.liveCallbackErrors > 0 { failures.append("\(s.liveCallbackErrors) live-stream callbacks carried an error") }
        if s.liveOutOfOrder > 0 { failures.append("\(s.liveOutOfOrder) live-stream callbacks out of timestamp order") }
        let summary: [String: Any] = [
            "summary": true, "clip": clip, "seconds": Date().timeIntervalSince(start),
            "warmupSeconds": samples.first?.seconds ?? -1, "rssWarmKB": baseline ?? -1, "rssEndKB": end,
            "rssMaxAfterWarmKB": samples.map(\.kb).max() ?? -1, "growthKB": growth, "toleranceKB": toleranceKB,
            "slopeKBPerMinute": (slope * 10).rounded() / 10,
            "videoFrames": s.videoFrames, "videoFramesWithPose": s.videoFramesWithPose, "videoLoops": s.videoLoops,
            "liveSubmitted": s.liveSubmitted, "liveCallbacks": s.liveCallbacks, "liveCallbacksWithPose": s.liveCallbacksWithPose,
            "liveDropped": s.liveSubmitted - s.liveCallbacks, "failures": failures,
        ]
        let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
        if !failures.isEmpty { throw ExitCode(1) }
    }

    /// Least-squares slope of the resident set over the samples after warm-up, in kB per minute.
    static func slopeKBPerMinute(_ samples: [(seconds: Double, kb: Int)]) -> Double {
        guard samples.count >= 2 else { return 0 }
        let n = Double(samples.count)
        let mx = samples.map(\.seconds).reduce(0, +) / n
        let my = samples.map { Double($0.kb) }.reduce(0, +) / n
        let sxy = samples.map { ($0.seconds - mx) * (Double($0.kb) - my) }.reduce(0, +)
        let sxx = samples.map { ($0.seconds - mx) * ($0.seconds - mx) }.reduce(0, +)
        return sxx > 0 ? sxy / sxx * 60 : 0
    }
}

/// Resident pages × page size, from /proc/self/statm (0 where it cannot be read).
func residentKilobytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * sysconf(Int32(_SC_PAGESIZE)) / 1024
}

/// Set once by the main thread; read by the workers.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// Everything the two workers and the live-stream callbacks count, behind one lock.
final class Counters: @unchecked Sendable {
    struct Snapshot {
        var videoFrames = 0, videoFramesWithPose = 0, videoLoops = 0
        var liveSubmitted = 0, liveCallbacks = 0, liveCallbacksWithPose = 0, liveCallbackErrors = 0, liveOutOfOrder = 0
        var lastLiveTimestamp = -1
        var videoError: String?, liveError: String?
    }
    private let lock = NSLock()
    private var state = Snapshot()

    var snapshot: Snapshot { lock.withLock { state } }
    func videoFrame(withPose: Bool) { lock.withLock { state.videoFrames += 1; if withPose { state.videoFramesWithPose += 1 } } }
    func videoLoop() { lock.withLock { state.videoLoops += 1 } }
    func videoError(_ message: String) { lock.withLock { state.videoError = message } }
    func liveSubmitted() { lock.withLock { state.liveSubmitted += 1 } }
    func liveError(_ message: String) { lock.withLock { state.liveError = state.liveError ?? message } }
    func liveCallback(timestamp: Int, withPose: Bool, error: Bool) {
        lock.withLock {
            state.liveCallbacks += 1
            if withPose { state.liveCallbacksWithPose += 1 }
            if error { state.liveCallbackErrors += 1 }
            if timestamp <= state.lastLiveTimestamp { state.liveOutOfOrder += 1 }
            state.lastLiveTimestamp = timestamp
        }
    }

    func json(seconds: Double, rssKB: Int, warm: Bool) -> String {
        let s = snapshot
        return #"{"seconds":\#(Int(seconds.rounded())),"rssKB":\#(rssKB),"warm":\#(warm),"videoFrames":\#(s.videoFrames),"videoLoops":\#(s.videoLoops),"#
            + #""liveSubmitted":\#(s.liveSubmitted),"liveCallbacks":\#(s.liveCallbacks)}"#
    }
}

/// The live-stream delegate: counts callbacks and checks their order.
final class LiveRecorder: PoseLandmarkerLiveStreamDelegate, @unchecked Sendable {
    let counters: Counters
    init(counters: Counters) { self.counters = counters }

    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?) {
        counters.liveCallback(timestamp: timestampInMilliseconds, withPose: !(result?.landmarks.isEmpty ?? true), error: error != nil)
    }
}
