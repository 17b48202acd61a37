import ArgumentParser
import BlazeKit
import BlazeVideo
import Foundation

/// `blaze-bench video CLIP`: where the time of `blaze pose CLIP` goes — decoding and RGB conversion alone,
/// the pose pipeline alone on frames held in memory, and the two overlapped: on a decoding thread of the
/// reader's own, and (with 2 or more threads) decoded on one FFmpeg thread in the landmarker's idle workers,
/// as `blaze` does when its inference threads take every core.
struct VideoBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "video",
        abstract: "Splits a video run's time into decoding (FFmpeg, + RGB unless --frames yuv), tracking (PoseLandmarker VIDEO mode) and both overlapped.")

    @Argument(help: "A video file.") var clip: String
    @Option(help: "Threads per inference (1...64).") var threads = 2
    @Option(help: "libavcodec decoding threads (0: FFmpeg chooses).") var decodeThreads = 0
    @Option(help: "Rounds of each measurement; the best round is reported with every round's figure.") var rounds = 3
    @Option(help: "full or lite.") var model = "full"
    @Option(help: "Frames as rgb (converted by libswscale, as the CLI reads them) or yuv (the decoder's planes, cropped directly).")
    var frames = "rgb"
    @Flag(help: "Print one JSON object.") var json = false

    func validate() throws {
        guard (1...64).contains(threads) else { throw ValidationError("--threads expected 1...64, found \(threads)") }
        guard rounds >= 1 else { throw ValidationError("--rounds expected at least 1, found \(rounds)") }
        guard ["full", "lite"].contains(model) else { throw ValidationError("--model expected full or lite, found \(model)") }
        guard ["yuv", "rgb"].contains(frames) else { throw ValidationError("--frames expected yuv or rgb, found \(frames)") }
    }

    func run() throws {
        var options = VideoFileReader.Options()
        options.decodeThreads = decodeThreads
        options.convertsToRGB = frames == "rgb"
        options.prefetch = 3   // as the CLI
        var idleOptions = options
        idleOptions.decodesAhead = .onIdleWorkers
        idleOptions.decodeThreads = 1
        var decodeOnly: [Double] = [], decodeOneThread: [Double] = [], trackingOnly: [Double] = [], overlapped: [Double] = []
        var onIdleWorkers: [Double] = []
        for _ in 0..<rounds {
            // Streaming, as the CLI decodes: each frame handed back once read.
            let start = DispatchTime.now()
            let reader = try VideoFileReader(path: clip, options: options)
            while let frame = try reader.nextFrame() { reader.recycle(frame) }
            decodeOnly.append(Self.seconds(since: start))
            var single = options
            single.decodeThreads = 1
            let singleStart = DispatchTime.now()
            let singleReader = try VideoFileReader(path: clip, options: single)
            while let frame = try singleReader.nextFrame() { singleReader.recycle(frame) }
            decodeOneThread.append(Self.seconds(since: singleStart))
        }
        var decoded: [VideoFrame] = []
        let all = try VideoFileReader(path: clip, options: options)
        while let frame = try all.nextFrame() { decoded.append(frame) }
        for _ in 0..<rounds {
            let landmarker = try makeLandmarker()
            let start = DispatchTime.now()
            for frame in decoded { _ = try landmarker.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestampMs) }
            trackingOnly.append(Self.seconds(since: start))
        }
        let count = decoded.count
        decoded = []
        for _ in 0..<rounds {
            let landmarker = try makeLandmarker()
            let start = DispatchTime.now()
            let reader = try VideoFileReader(path: clip, options: options)
            while let frame = try reader.nextFrame() {
                _ = try landmarker.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestampMs)
                reader.recycle(frame)
            }
            overlapped.append(Self.seconds(since: start))
            guard threads >= 2 else { continue }
            let idleLandmarker = try makeLandmarker()
            let idleStart = DispatchTime.now()
            let idleReader = try VideoFileReader(path: clip, options: idleOptions)
            idleLandmarker.setIdleWork(idleReader.decodeAheadWork)
            while let frame = try idleReader.nextFrame() {
                _ = try idleLandmarker.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestampMs)
                idleReader.recycle(frame)
            }
            idleLandmarker.setIdleWork(nil)
            onIdleWorkers.append(Self.seconds(since: idleStart))
        }
        let info = try VideoFileReader(path: clip).info
        let fps = { (seconds: [Double]) in seconds.map { Double(count) / $0 } }
        if json {
            let object: [String: Any] = [
                "clip": clip, "frames_as": frames, "width": info.width, "height": info.height, "frames": count, "threads": threads,
                "decode_fps": fps(decodeOnly), "decode_one_thread_fps": fps(decodeOneThread), "tracking_fps": fps(trackingOnly),
                "overlapped_fps": fps(overlapped), "idle_workers_fps": fps(onIdleWorkers),
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        print(MachineDescription.current)
        print("# \(clip): \(info.width)×\(info.height), \(info.codecName), \(count) frames, rotation \(info.rotationDegrees)°; "
              + "pose \(model), \(threads) inference threads, decode threads \(decodeThreads == 0 ? "auto" : "\(decodeThreads)"), frames \(frames)")
        let decodeName = frames == "rgb" ? "decode + RGB only" : "decode only (YUV planes)"
        for (name, seconds) in [(decodeName, decodeOnly), (decodeName + ", 1 thread", decodeOneThread),
                                ("tracking only (frames in memory)", trackingOnly), ("decode overlapped with tracking", overlapped),
                                ("decoded by the idle workers", onIdleWorkers)] where !seconds.isEmpty {
            let rates = fps(seconds)
            print(name.padding(toLength: 36, withPad: " ", startingAt: 0)
                  + String(format: " best %6.1f fps (%5.2f ms/frame); rounds: %@", rates.max()!,
                         1000 / rates.max()!, rates.map { String(format: "%.1f", $0) }.joined(separator: ", ") as NSString))
        }
    }

    private func makeLandmarker() throws -> PoseLandmarker {
        let options = PoseLandmarkerOptions()
        options.model = model == "lite" ? .lite : .full
        options.runningMode = .video
        options.baseOptions.threadCount = threads
        return try PoseLandmarker(options: options)
    }

    private static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}
