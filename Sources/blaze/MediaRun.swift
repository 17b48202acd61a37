import ArgumentParser
import BlazeKit
import BlazeVideo
import Foundation

/// Options every landmark subcommand shares: what to read, how to time it, where results go.
struct InputOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("Photos (PNG, JPEG) and videos (anything FFmpeg reads: MP4, MOV, MKV, WebM, AVI, …), "
                                 + "or directories of them (searched one level deep, in name order). "
                                 + "Files are recognized by their content, not their name."))
    var inputs: [String] = []

    @Option(help: ArgumentHelp("Also read input paths from this file, one per line ('-' for standard input; "
                               + "blank lines and lines starting with # are ignored).", valueName: "FILE"))
    var inputsFrom: String?

    @Option(help: ArgumentHelp("Process only the I-th (from 0) of N contiguous slices of the inputs sorted by path. "
                               + "auto/N takes I from JOB_COMPLETION_INDEX (Kubernetes Indexed Job), SLURM_ARRAY_TASK_ID "
                               + "(minus SLURM_ARRAY_TASK_MIN) or AWS_BATCH_JOB_ARRAY_INDEX.", valueName: "I/N|auto/N"))
    var shard: String?

    @Option(help: ArgumentHelp("Write each input's lines to DIR/<file name>.jsonl (written under a temporary name, "
                               + "then renamed) instead of standard output.", valueName: "DIR"))
    var outputDir: String?

    @Flag(help: "With --output-dir: skip inputs whose output file already exists (a rerun after a crash redoes only what was lost).")
    var resume = false

    @Flag(help: "No progress line on standard error.")
    var quiet = false

    @Flag(help: ArgumentHelp("After each video, print on standard error its frames, seconds and frames per second, timed from "
                             + "opening the file to its last line (making the landmarker is not counted)."))
    var timing = false

    @Option(help: "Threads per inference (1...64).")
    var threads = 1

    @Option(help: ArgumentHelp("Which threads decode a video's frames ahead: reader-thread (a thread of the reader's own, "
                               + "with FFmpeg's decoding threads), idle-workers (one FFmpeg thread, run by the inference's "
                               + "worker threads between their parallel loops; needs --threads 2 or more) or auto: "
                               + "idle-workers when --threads is at least 2 and at least the processors available, "
                               + "where a decoder of its own would compete with the inference for the cores. The "
                               + "results are the same.", valueName: "auto|reader-thread|idle-workers"))
    var decodeAhead: DecodeAhead = .auto

    enum DecodeAhead: String, ExpressibleByArgument, CaseIterable {
        case auto, readerThread = "reader-thread", idleWorkers = "idle-workers"
    }

    /// Whether video frames are decoded in the inference workers' idle time (`--decode-ahead`).
    var decodesOnIdleWorkers: Bool {
        switch decodeAhead {
        case .auto: return threads >= 2 && threads >= ProcessInfo.processInfo.activeProcessorCount
        case .readerThread: return false
        case .idleWorkers: return true
        }
    }

    @Flag(help: "Treat the inputs as the frames of one video, in order: track from frame to frame (needs --fps).")
    var video = false

    @Option(help: "Frame rate of --video input; frame i gets the timestamp round(i·1000/fps) ms.")
    var fps: Double?

    @Option(help: ArgumentHelp("Read raw RGB24 frames of this size from standard input instead of files.",
                               valueName: "WIDTHxHEIGHT"))
    var raw: String?

    mutating func validate() throws {
        if video {
            guard let fps else { throw ValidationError("--video needs --fps") }
            guard fps.isFinite, fps > 0 else { throw ValidationError("--fps must be a positive number, got \(fps)") }
            guard shard == nil, outputDir == nil else {
                throw ValidationError("--video treats all inputs as one video's frames; --shard and --output-dir split inputs apart")
            }
        } else if fps != nil {
            throw ValidationError("--fps is only used with --video (video files carry their own timestamps)")
        }
        if raw != nil {
            _ = try rawSize()
            guard inputs.isEmpty, inputsFrom == nil, shard == nil, outputDir == nil else {
                throw ValidationError("--raw reads standard input; do not also name inputs, --inputs-from, --shard or --output-dir")
            }
        } else if inputs.isEmpty, inputsFrom == nil {
            throw ValidationError("name at least one photo, video or directory, use --inputs-from FILE, or --raw WIDTHxHEIGHT")
        }
        if decodeAhead == .idleWorkers, threads < 2 {
            throw ValidationError("--decode-ahead idle-workers needs --threads 2 or more: with \(threads) the inference has no worker threads")
        }
        if resume, outputDir == nil { throw ValidationError("--resume needs --output-dir (it skips inputs whose output file exists)") }
        if let shard { _ = try InputSelection.Shard.parse(shard, environment: ProcessInfo.processInfo.environment) }
    }

    /// The `--raw` frame size.
    func rawSize() throws -> (width: Int, height: Int) {
        let parts = (raw ?? "").lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= 16384, h <= 16384 else {
            throw ValidationError("--raw expects WIDTHxHEIGHT with sides in 1...16384, got '\(raw ?? "")'")
        }
        return (w, h)
    }

    /// The selected input files (empty with `--raw`).
    func files() throws -> [String] {
        let shard = try self.shard.map { try InputSelection.Shard.parse($0, environment: ProcessInfo.processInfo.environment) }
        return try InputSelection.files(arguments: inputs, inputsFrom: inputsFrom, shard: shard)
    }
}

/// Where a result line came from; the record types turn it into their leading fields.
struct FrameOrigin {
    /// The photo's (or `--video` frame's, or raw frame's) name; nil for frames of a video file.
    var image: String?
    /// The video file's name, for its frames.
    var video: String?
    /// `frame_00000`-style frame name within a video file (the decoder's frame index).
    var frame: String?
    var timestampMs: Int?
    var width: Int
    var height: Int
    /// The stem for side files (overlays, masks): `photo`, or `clip.frame_00012` for a video file's frame.
    var stem: String

    init(image: String? = nil, video: String? = nil, frame: String? = nil, timestampMs: Int? = nil, width: Int, height: Int, stem: String) {
        (self.image, self.video, self.frame, self.timestampMs) = (image, video, frame, timestampMs)
        (self.width, self.height, self.stem) = (width, height, stem)
    }

    /// The origin of a stream's frame: a frame of a video file is named by file and frame, anything else by its own name.
    init(_ frame: StreamFrame) {
        let (w, h) = (frame.image.width, frame.image.height)
        if let container = frame.container {
            let stem = URL(fileURLWithPath: container).deletingPathExtension().lastPathComponent
            self.init(video: container, frame: frame.name, timestampMs: frame.timestampInMilliseconds, width: w, height: h,
                      stem: "\(stem).\(frame.name)")
        } else {
            self.init(image: frame.name, timestampMs: frame.timestampInMilliseconds, width: w, height: h,
                      stem: URL(fileURLWithPath: frame.name).deletingPathExtension().lastPathComponent)
        }
    }
}

/// One output line: where the result came from (``FrameOrigin``'s fields) and the result's items under
/// `key` ("poses", "hands", "observations"). Keys are written sorted, so lines are reproducible byte for byte.
struct FrameRecord<Item: Encodable>: Encodable {
    var source: FrameOrigin
    var key: String
    var items: [Item]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(source.image, forKey: Key("image"))
        try container.encodeIfPresent(source.video, forKey: Key("video"))
        try container.encodeIfPresent(source.frame, forKey: Key("frame"))
        try container.encodeIfPresent(source.timestampMs, forKey: Key("timestampMs"))
        try container.encode(source.width, forKey: Key("width"))
        try container.encode(source.height, forKey: Key("height"))
        try container.encode(items, forKey: Key(key))
    }
}

/// What a subcommand runs: a task definition with the options to create it with (a video gets a copy in
/// `.video` mode), and how its results are written.
struct CommandTask<Definition: TaskDefinition> {
    typealias Result = Definition.Result
    /// `.image`-mode options.
    var options: Definition.Options
    /// The JSON line for a result.
    var record: (Result, FrameOrigin) -> any Encodable
    /// The image with the result drawn on it (`--overlay-dir`, `--overlay-video`), if the command draws.
    var overlay: ((Result, Image) throws -> Image)? = nil
    /// Side files for a result (segmentation masks), written with the frame's stem.
    var sideFiles: ((Result, FrameOrigin) throws -> Void)? = nil
    /// The detector's name for the tracking summary on stderr.
    var detectorName: String
    /// Whether the task tracks videos; a photos-only command refuses video input.
    var takesVideo = true

    /// A new task for an `.image` or `.video` stream.
    func make(video: Bool) throws -> LandmarkerTask<Definition> {
        let options = self.options.copy()
        if video { options.runningMode = .video }
        return try LandmarkerTask<Definition>(options: options)
    }
}

/// Runs a ``CommandTask`` over the inputs: each input becomes a ``FrameStream`` (a photo, a video file, the
/// `--video` frames, the `--raw` input), and every stream goes through one loop. An input that fails gets an
/// error line (after the lines of every frame that worked) and the run goes on; the exit status is then 1.
struct MediaRun<Definition: TaskDefinition> {
    let options: InputOptions
    let task: CommandTask<Definition>
    /// `--overlay-dir`.
    let overlayDirectory: String?
    /// `--overlay-video`.
    let overlayVideo: String?
    let progress: ProgressLine
    /// The `.image`-mode task, made once; and a `.video`-mode one made before the first input, when that is a video.
    private let tasks = TaskCache()

    private final class TaskCache {
        var photos: LandmarkerTask<Definition>?
        var spareVideo: LandmarkerTask<Definition>?
    }

    init(options: InputOptions, task: CommandTask<Definition>, overlayDirectory: String? = nil, overlayVideo: String? = nil) {
        self.options = options
        self.task = task
        self.overlayDirectory = overlayDirectory
        self.overlayVideo = overlayVideo
        progress = ProgressLine(quiet: options.quiet)
    }

    func run() throws {
        // Damage is reported in each input's error record, with FFmpeg's message; its own chatter would
        // only interleave with the progress line.
        FFmpegLogLevel.fatal.apply()
        for directory in [overlayDirectory, options.outputDir].compactMap({ $0 }) {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        if options.raw != nil {
            guard overlayVideo == nil else { throw ValidationError("--overlay-video needs a video file input, not --raw") }
            let (w, h) = try options.rawSize()
            var stream = RawRGBFrames(handle: .standardInput, width: w, height: h, framesPerSecond: options.video ? options.fps : nil)
            try prepare(video: stream.isVideo)
            if try !process(&stream, into: .standardOutput) { throw ExitCode(1) }
            return
        }
        let files = try options.files()
        try prepare(video: options.video || files.first.map(VideoFileFrames.looksLikeVideo) ?? false)
        if options.video {
            guard overlayVideo == nil else { throw ValidationError("--overlay-video needs a video file input, not --video frames") }
            var stream = PhotoFiles(paths: files, framesPerSecond: options.fps)
            if try !process(&stream, into: .standardOutput) { throw ExitCode(1) }
            return
        }
        if overlayVideo != nil, files.count != 1 {
            throw ValidationError("--overlay-video writes one video: name exactly one video file (got \(files.count) inputs)")
        }
        let outputNames = try options.outputDir.map { _ in try InputSelection.outputNames(for: files) }
        var failed = false, skipped = 0
        for (i, file) in files.enumerated() {
            let sink: OutputSink
            if let directory = options.outputDir, let outputNames {
                let path = URL(fileURLWithPath: directory).appendingPathComponent(outputNames[i]).path
                if options.resume, FileManager.default.fileExists(atPath: path) { skipped += 1; continue }
                sink = try OutputSink(atomicFileAt: path)
            } else {
                sink = .standardOutput
            }
            if files.count > 1 { progress.update(done: i, total: files.count, label: "inputs", unit: "done") }
            if try !process(file, into: sink) { failed = true }
            try sink.commit()
        }
        if files.count > 1 { progress.update(done: files.count, total: files.count, label: "inputs", unit: "done") }
        progress.finish()
        if skipped > 0, !options.quiet { warn("--resume: skipped \(skipped) inputs whose output exists") }
        if failed { throw ExitCode(1) }
    }

    /// Makes the task the first input needs before any input is read, so that a bad model or option ends
    /// the run at once: the error is printed and the exit status is 2.
    private func prepare(video: Bool) throws {
        if video, task.takesVideo {
            tasks.spareVideo = try makeTask { try task.make(video: true) }
        } else {
            tasks.photos = try makeTask { try task.make(video: false) }
        }
    }

    /// The task for a stream: the one `.image`-mode task for photos, a fresh `.video`-mode one for each video.
    private func landmarker(for stream: some FrameStream) throws -> LandmarkerTask<Definition> {
        guard stream.isVideo else {
            if let photos = tasks.photos { return photos }
            let made = try task.make(video: false)
            tasks.photos = made
            return made
        }
        guard task.takesVideo else {
            throw CLIError.notForThisCommand(path: stream.label, reason: "this command takes photos; use blaze pose or blaze hand for videos")
        }
        if let spare = tasks.spareVideo {
            tasks.spareVideo = nil
            return spare
        }
        return try task.make(video: true)
    }

    /// One photo or video file, recognized by its first bytes; false when it failed (its error line is written).
    private func process(_ path: String, into sink: OutputSink) throws -> Bool {
        let name = URL(fileURLWithPath: path).lastPathComponent
        do {
            let format = try Image.sniffFormat(contentsOfFile: path)
            switch format {
            case .image:
                var stream = PhotoFiles(paths: [path])
                return try process(&stream, into: sink)
            case .video, .unknown:
                let openedAt = DispatchTime.now().uptimeNanoseconds
                var stream = try VideoFileFrames(path: path, looksLike: format, prefetch: 3,
                                                 convertsToRGB: overlayDirectory != nil || overlayVideo != nil,
                                                 decodesOnIdleWorkers: options.decodesOnIdleWorkers)
                guard task.takesVideo else {
                    throw CLIError.notForThisCommand(path: path, reason: "this command takes photos; use blaze pose or blaze hand for videos")
                }
                return try process(&stream, into: sink, openedAt: openedAt)
            case .text, .empty, .unsupportedImage:
                throw CLIError.notMedia(path: path, looksLike: format.description, detail: nil)
            }
        } catch let error as ExitCode {
            throw error
        } catch {
            try sink.write(ErrorRecord(image: name, error: "\(error)"))
            return false
        }
    }

    /// The one loop: every frame of `stream` through the task, a line per frame (or failure) into `sink`, side
    /// files, overlays and progress; false when something failed. `openedAt` (when the input was opened) times
    /// the stream for `--timing`, not counting the making of its task.
    private func process(_ stream: inout some FrameStream, into sink: OutputSink,
                         openedAt: UInt64 = DispatchTime.now().uptimeNanoseconds) throws -> Bool {
        let madeAt = DispatchTime.now().uptimeNanoseconds
        let landmarker = try landmarker(for: stream)
        let makingNanoseconds = DispatchTime.now().uptimeNanoseconds - madeAt
        var split = TimeSplit(start: openedAt + makingNanoseconds)
        if let work = stream.idleWork { landmarker.setIdleWork(work) }
        defer { landmarker.setIdleWork(nil) }
        var overlayWriter = try stream.isVideo ? overlayVideo.map { try OverlayVideoWriter(path: $0, stream: stream) } : nil
        let showsProgress = stream.expectedFrameCount != 1
        var failed = false
        var processed = 0, index = 0
        if showsProgress { progress.restart() }
        defer {
            if showsProgress { progress.finish() }
            if stream.isVideo {
                reportTracking(landmarker.trackingStatistics, name: stream.label)
                if options.timing {
                    let seconds = Double(DispatchTime.now().uptimeNanoseconds - openedAt - makingNanoseconds) * 1e-9
                    let line = String(format: "%d frames in %.3f s, %.1f frames/s (opening the file to its last line)",
                                      processed, seconds, Double(processed) / max(seconds, 1e-9))
                    FileHandle.standardError.write("\(stream.label): \(line)\n\(stream.label): \(split.summary)\n".data(using: .utf8)!)
                }
            }
        }
        var lastResult: Definition.Result?
        events: while let event = split.waitingForFrames({ stream.next() }) {
            index += 1
            switch event {
            case let .frame(frame):
                do {
                    let result = try split.detecting(detectorRuns: { landmarker.trackingStatistics.detectorRuns }) {
                        try frame.timestampInMilliseconds.map {
                            try landmarker.detect(videoFrame: frame.image, timestampInMilliseconds: $0)
                        } ?? landmarker.detect(image: frame.image)
                    }
                    try split.writing { try emit(result, origin: FrameOrigin(frame), image: frame.image, into: sink) }
                    try overlayWriter?.write(frame, result: result, drawing: task.overlay)
                    lastResult = result
                    processed += 1
                } catch {
                    failed = true
                    try sink.write(ErrorRecord(image: frame.container ?? frame.name, error: "\(error)"))
                    if stream.endsAtFailure { try? overlayWriter?.finish(); overlayWriter = nil; break events }
                }
                stream.recycle(frame)
            case let .skipped(frame, previous):
                warn("\(stream.label): frame \(frame.index) at \(frame.timestampInMilliseconds ?? 0) ms skipped: its timestamp does not "
                     + "increase (previous \(previous) ms)")
                try overlayWriter?.write(frame, result: lastResult, drawing: task.overlay)
                stream.recycle(frame)
            case let .failed(name, error):
                failed = true
                if stream.endsAtFailure { try? overlayWriter?.finish(); overlayWriter = nil }
                try sink.write(ErrorRecord(image: name, error: "\(error)"))
            }
            if showsProgress { progress.update(done: index, total: stream.expectedFrameCount, label: stream.label, unit: "frames") }
        }
        try overlayWriter?.finish()
        return !failed
    }

    /// Writes a result's line and its side files.
    private func emit(_ result: Definition.Result, origin: FrameOrigin, image: Image, into sink: OutputSink) throws {
        try sink.write(task.record(result, origin))
        try task.sideFiles?(result, origin)
        if let directory = overlayDirectory, let draw = task.overlay {
            try draw(result, image).writePNG(to: URL(fileURLWithPath: directory).appendingPathComponent("\(origin.stem).overlay.png").path)
        }
    }

    /// One stderr line per video saying how often the detector ran.
    private func reportTracking(_ statistics: (frames: Int, detectorRuns: Int), name: String) {
        guard !options.quiet else { return }
        FileHandle.standardError.write("\(name): tracked \(statistics.frames) frames, \(task.detectorName) ran on \(statistics.detectorRuns)\n"
            .data(using: .utf8)!)
    }
}

/// Where a video's time goes, for `--timing`: waiting for the next frame (decoding and converting, when the
/// decoder has not kept ahead), the landmarker on frames where its detector ran and on tracked frames, and
/// writing the lines; and when the first frame arrived and its line was written, from opening the file.
struct TimeSplit {
    let start: UInt64
    var waiting: UInt64 = 0, detectorFrames: UInt64 = 0, trackedFrames: UInt64 = 0, writingTime: UInt64 = 0
    var detectorCount = 0, trackedCount = 0
    var firstFrameAt: UInt64?, firstLineAt: UInt64?

    init(start: UInt64) { self.start = start }

    private static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Times `body` into `total`, and notes when the first call ended in `first`.
    private static func timed<T>(_ total: inout UInt64, first: inout UInt64?, _ body: () throws -> T) rethrows -> T {
        let t0 = now
        defer {
            let t1 = now
            total += t1 - t0
            if first == nil { first = t1 }
        }
        return try body()
    }

    mutating func waitingForFrames<T>(_ body: () throws -> T) rethrows -> T {
        try Self.timed(&waiting, first: &firstFrameAt, body)
    }

    /// Times the landmarker's `body` on one frame, as a detector frame when `detectorRuns` grew across it.
    mutating func detecting<T>(detectorRuns: () -> Int, _ body: () throws -> T) rethrows -> T {
        let runs = detectorRuns(), t0 = Self.now
        defer {
            let elapsed = Self.now - t0
            if detectorRuns() > runs { detectorFrames += elapsed; detectorCount += 1 } else { trackedFrames += elapsed; trackedCount += 1 }
        }
        return try body()
    }

    mutating func writing<T>(_ body: () throws -> T) rethrows -> T {
        try Self.timed(&writingTime, first: &firstLineAt, body)
    }

    var summary: String {
        func ms(_ ns: UInt64) -> String { String(format: "%.1f ms", Double(ns) * 1e-6) }
        func per(_ ns: UInt64, _ n: Int) -> String { n == 0 ? "" : String(format: " (%.2f ms each)", Double(ns) * 1e-6 / Double(n)) }
        let first = firstFrameAt.map { "first frame after \(ms($0 - start))" } ?? "no frame"
        let line = firstLineAt.map { ", its line after \(ms($0 - start))" } ?? ""
        return "\(first)\(line); waiting for frames \(ms(waiting)), landmarker \(ms(detectorFrames)) on \(detectorCount) "
            + "frames with the detector\(per(detectorFrames, detectorCount)) and \(ms(trackedFrames)) on \(trackedCount) tracked"
            + "\(per(trackedFrames, trackedCount)), writing lines \(ms(writingTime))"
    }
}
