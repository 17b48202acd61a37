import ArgumentParser
import BlazeKit
import BlazeVideo
import Foundation

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

    init(options: InputOptions, task: CommandTask<Definition>, drawing: DrawingOptions? = nil) {
        self.options = options
        self.task = task
        overlayDirectory = drawing?.overlayDir
        overlayVideo = drawing?.overlayVideo
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
            try begin(.standardOutput)
            if try !process(&stream, into: .standardOutput) { throw ExitCode(1) }
            return
        }
        let files = try options.files()
        try prepare(video: options.video || files.first.map(VideoFileFrames.looksLikeVideo) ?? false)
        if options.video {
            guard overlayVideo == nil else { throw ValidationError("--overlay-video needs a video file input, not --video frames") }
            var stream = PhotoFiles(paths: files, framesPerSecond: options.fps)
            try begin(.standardOutput)
            if try !process(&stream, into: .standardOutput) { throw ExitCode(1) }
            return
        }
        if overlayVideo != nil, files.count != 1 {
            throw ValidationError("--overlay-video writes one video: name exactly one video file (got \(files.count) inputs)")
        }
        let outputNames = try options.outputDir.map { _ in
            try InputSelection.outputNames(for: files, suffix: task.table == nil ? ".jsonl" : ".csv")
        }
        if options.outputDir == nil { try begin(.standardOutput) }
        var failed = false, skipped = 0
        for (i, file) in files.enumerated() {
            let sink: OutputSink
            if let directory = options.outputDir, let outputNames {
                let path = URL(fileURLWithPath: directory).appendingPathComponent(outputNames[i]).path
                if options.resume, FileManager.default.fileExists(atPath: path) { skipped += 1; continue }
                sink = try OutputSink(atomicFileAt: path)
                try begin(sink)
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
            try report(ErrorRecord(image: name, error: "\(error)"), into: sink)
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
                    try report(ErrorRecord(image: frame.container ?? frame.name, error: "\(error)"), into: sink)
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
                try report(ErrorRecord(image: name, error: "\(error)"), into: sink)
            }
            if showsProgress { progress.update(done: index, total: stream.expectedFrameCount, label: stream.label, unit: "frames") }
        }
        try overlayWriter?.finish()
        return !failed
    }

    /// Writes a result's line and its side files.
    private func emit(_ result: Definition.Result, origin: FrameOrigin, image: Image, into sink: OutputSink) throws {
        if let table = task.table {
            try sink.write(bytes: table.rows(for: result, origin: origin))
        } else {
            try sink.write(task.record(result, origin))
        }
        try task.sideFiles?(result, origin)
        if let directory = overlayDirectory, let draw = task.overlay {
            try draw(result, image).writePNG(to: URL(fileURLWithPath: directory).appendingPathComponent("\(origin.stem).overlay.png").path)
        }
    }

    /// Starts an output: the table's header, when the command writes a table.
    private func begin(_ sink: OutputSink) throws {
        if let header = task.table?.header { try sink.write(bytes: header) }
    }

    /// An input's or frame's failure: its error line, or with a table a line on standard error (the table stays a table).
    private func report(_ record: ErrorRecord, into sink: OutputSink) throws {
        guard task.table == nil else {
            FileHandle.standardError.write(Data("error: \(record.image): \(record.error)\n".utf8))
            return
        }
        try sink.write(record)
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
