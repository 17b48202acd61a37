import ArgumentParser
import BlazeImage
import BlazeKit
import Foundation

/// `blaze-bench livestream`: the reliability run of live-stream mode. Frames are submitted with
/// `detectAsync` faster than they can be processed; the run checks that callbacks arrive in strictly
/// increasing timestamp order, that the last frame is answered, and reports how many were dropped and the
/// resident memory at the start and the end.
struct LiveStreamBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "livestream",
        abstract: "Feeds detectAsync faster than it can keep up; checks callback order and memory.",
        discussion: """
            The frames are a 640×480 pan-and-zoom sequence over --image (pose) or --hand-image (hand), cycled. \
            Prints one line (JSON with --json): frames submitted, callbacks, dropped, errors, out-of-order callbacks, \
            RSS (VmRSS) after the first callback, after a tenth of the frames and at the end, and wall time. Exits 1 if a callback arrives out of \
            order, carries an error, or the last frame gets no callback within 60 s.
            """)

    @Option(help: "pose or hand.") var task = "pose"
    @Option(help: "Frames to submit.") var frames = 10_000
    @Option(help: "Milliseconds between submissions (0 = as fast as possible).") var intervalMs: Double = 2
    @Option(help: "Threads per inference.") var threads = 2
    @Option(help: "full or lite.") var model = "full"
    @Option(help: "A PNG with one person.") var image = "Benchmarks/photos/mpii_052475643.png"
    @Option(help: "A PNG with one hand.") var handImage = "Benchmarks/photos/onehand10k_1402.png"
    @Flag(help: "Print one JSON object.") var json = false

    func validate() throws {
        guard ["pose", "hand"].contains(task) else { throw ValidationError("--task expects pose or hand, got \(task)") }
        guard frames > 0 else { throw ValidationError("--frames expects a positive count, got \(frames)") }
        guard intervalMs >= 0, intervalMs.isFinite else { throw ValidationError("--interval-ms expects ≥ 0, got \(intervalMs)") }
    }

    /// Records callbacks; all state behind a lock.
    final class Recorder: PoseLandmarkerLiveStreamDelegate, HandLandmarkerLiveStreamDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private(set) var count = 0
        private(set) var errors = 0
        private(set) var outOfOrder = 0
        private(set) var last = -1
        private(set) var firstCallbackRSS: Int?

        func record(_ timestamp: Int, _ error: (any Error)?) {
            lock.lock()
            defer { lock.unlock() }
            if timestamp <= last { outOfOrder += 1 }
            last = timestamp
            count += 1
            if error != nil { errors += 1 }
            if firstCallbackRSS == nil { firstCallbackRSS = residentSetKilobytes() }
        }

        var snapshot: (count: Int, errors: Int, outOfOrder: Int, last: Int, firstRSS: Int?) {
            lock.lock()
            defer { lock.unlock() }
            return (count, errors, outOfOrder, last, firstCallbackRSS)
        }

        func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                            timestampInMilliseconds: Int, error: (any Error)?) {
            record(timestampInMilliseconds, error)
        }

        func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                            timestampInMilliseconds: Int, error: (any Error)?) {
            record(timestampInMilliseconds, error)
        }
    }

    func run() throws {
        let photo = try Image(contentsOfPNGFile: task == "pose" ? image : handImage)
        let camera = PanZoomSequence(source: photo, width: 640, height: 480, frameCount: 30,
                                     startCenter: SIMD2(0.5, 0.5), endCenter: SIMD2(0.48, 0.52), startZoom: 1, endZoom: 1.2)
        let clip = try (0..<camera.frameCount).map { try camera.frame($0) }
        let recorder = Recorder()
        let submit: (Image, Int) throws -> Void
        var keepAlive: AnyObject
        if task == "pose" {
            let options = PoseLandmarkerOptions()
            options.model = model == "lite" ? .lite : .full
            options.baseOptions.threadCount = threads
            options.runningMode = .liveStream
            options.poseLandmarkerLiveStreamDelegate = recorder
            let landmarker = try PoseLandmarker(options: options)
            submit = { try landmarker.detectAsync(image: $0, timestampInMilliseconds: $1) }
            keepAlive = landmarker
        } else {
            let options = HandLandmarkerOptions()
            options.model = model == "lite" ? .lite : .full
            options.baseOptions.threadCount = threads
            options.runningMode = .liveStream
            options.handLandmarkerLiveStreamDelegate = recorder
            let landmarker = try HandLandmarker(options: options)
            submit = { try landmarker.detectAsync(image: $0, timestampInMilliseconds: $1) }
            keepAlive = landmarker
        }
        let start = DispatchTime.now().uptimeNanoseconds
        var tenthRSS = 0
        for i in 0..<frames {
            if i == frames / 10 { tenthRSS = residentSetKilobytes() }
            // Timestamps of a 30 fps camera; the frames themselves cycle back and forth through the clip.
            let k = i % (2 * clip.count - 2)
            try submit(clip[k < clip.count ? k : 2 * clip.count - 2 - k], i * 33)
            if intervalMs > 0 { usleep(useconds_t(intervalMs * 1000)) }
        }
        let lastTimestamp = (frames - 1) * 33
        let deadline = DispatchTime.now().uptimeNanoseconds + 60_000_000_000
        while recorder.snapshot.last < lastTimestamp, DispatchTime.now().uptimeNanoseconds < deadline { usleep(1000) }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let s = recorder.snapshot
        let endRSS = residentSetKilobytes()
        withExtendedLifetime(keepAlive) {}
        let dropped = frames - s.count
        if json {
            print(#"{"livestream":"\#(task)","model":"\#(model)","threads":\#(threads),"frames":\#(frames),"callbacks":\#(s.count),"dropped":\#(dropped),"errors":\#(s.errors),"outOfOrder":\#(s.outOfOrder),"lastAnswered":\#(s.last == lastTimestamp),"rssStartKB":\#(s.firstRSS ?? 0),"rssAtTenthKB":\#(tenthRSS),"rssEndKB":\#(endRSS),"seconds":\#(fmt(seconds))}"#)
        } else {
            print("livestream \(task) (\(model)) threads=\(threads): \(frames) frames in \(fmt(seconds)) s, \(s.count) callbacks, "
                + "\(dropped) dropped, \(s.errors) errors, \(s.outOfOrder) out of order, last frame answered: \(s.last == lastTimestamp); "
                + "RSS \(s.firstRSS ?? 0) kB after the first callback, \(tenthRSS) kB after a tenth of the frames, \(endRSS) kB at the end")
        }
        if s.outOfOrder > 0 || s.errors > 0 || s.last != lastTimestamp { throw ExitCode(1) }
    }
}

/// `VmRSS` of this process in kB, from /proc/self/status (0 if unavailable).
func residentSetKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}
