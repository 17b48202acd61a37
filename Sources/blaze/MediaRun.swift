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

    /// The timestamp of frame `index` of a `--video` sequence: round(index·1000/fps) ms.
    func timestamp(ofFrame index: Int) -> Int {
        Int((Double(index) * 1000 / (fps ?? 1)).rounded())
    }

    /// The selected input files (empty with `--raw`).
    func files() throws -> [String] {
        let shard = try self.shard.map { try InputSelection.Shard.parse($0, environment: ProcessInfo.processInfo.environment) }
        return try InputSelection.files(arguments: inputs, inputsFrom: inputsFrom, shard: shard)
    }
}

/// Where a result line came from; the record types turn it into their leading fields.
struct FrameSource {
    /// The photo's (or `--video` frame's) file name; nil for frames of a video file.
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
}

/// One output line: where the result came from (``FrameSource``'s fields) and the result's items under
/// `key` ("poses", "hands", "observations"). Keys are written sorted, so lines are reproducible byte for byte.
struct FrameRecord<Item: Encodable>: Encodable {
    var source: FrameSource
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

/// A VIDEO-mode landmarker, fresh for each video.
struct VideoTracker<Result> {
    var detect: (Image, Int) throws -> Result
    var statistics: () -> (frames: Int, detectorRuns: Int)
    var setIdleWork: ((@Sendable () -> Bool)?) -> Void
}

/// What ``VideoTracker`` needs of a landmarker (both of BlazeKit's have it).
protocol TrackingLandmarker: AnyObject {
    associatedtype Result
    func detect(videoFrame image: Image, timestampInMilliseconds: Int) throws -> Result
    var trackingStatistics: (frames: Int, detectorRuns: Int) { get }
    func setIdleWork(_ work: (@Sendable () -> Bool)?)
}

extension PoseLandmarker: TrackingLandmarker {}
extension HandLandmarker: TrackingLandmarker {}

extension VideoTracker {
    init<L: TrackingLandmarker>(_ landmarker: L) where L.Result == Result {
        self.init(detect: { try landmarker.detect(videoFrame: $0, timestampInMilliseconds: $1) },
                  statistics: { landmarker.trackingStatistics }, setIdleWork: { landmarker.setIdleWork($0) })
    }
}

/// What a landmark subcommand plugs into the shared input loop.
struct LandmarkTask<Result> {
    /// Makes the IMAGE-mode detector, for photos and `--raw` frames without `--video`.
    var makePhotoDetector: () throws -> (Image) throws -> Result
    /// A new VIDEO-mode landmarker (one per video file, one for a `--video` sequence); nil for a command
    /// that takes photos only.
    var makeVideoTracker: (() throws -> VideoTracker<Result>)?
    /// The JSON line for a result.
    var record: (Result, FrameSource) -> any Encodable
    /// The image with the result drawn on it (`--overlay-dir`, `--overlay-video`), if the command draws.
    var overlay: ((Result, Image) throws -> Image)?
    /// Side files for a result (segmentation masks), written with the frame's stem.
    var sideFiles: ((Result, FrameSource) throws -> Void)?
    /// The detector's name for the tracking summary on stderr.
    var detectorName: String
}

/// Runs a ``LandmarkTask`` over the inputs: photos one by one, each video file through a fresh VIDEO-mode
/// landmarker, a `--video` sequence or `--raw` stream as one video. An input that fails gets an error
/// line (after the lines of every frame that worked) and the run goes on; the exit status is then 1.
struct MediaRun<Result> {
    let options: InputOptions
    let task: LandmarkTask<Result>
    private let landmarkers: Landmarkers<Result>
    /// `--overlay-dir`.
    let overlayDirectory: String?
    /// `--overlay-video`.
    let overlayVideo: String?
    let progress: ProgressLine

    init(options: InputOptions, task: LandmarkTask<Result>, overlayDirectory: String? = nil, overlayVideo: String? = nil) {
        self.options = options
        self.task = task
        self.overlayDirectory = overlayDirectory
        self.overlayVideo = overlayVideo
        progress = ProgressLine(quiet: options.quiet)
        landmarkers = Landmarkers(task)
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
            try landmarkers.prepare(video: options.video)
            if try !runRaw() { throw ExitCode(1) }
            return
        }
        let files = try options.files()
        try landmarkers.prepare(video: options.video || files.first.map(MediaRun.isVideoFile) ?? false)
        if options.video {
            guard overlayVideo == nil else { throw ValidationError("--overlay-video needs a video file input, not --video frames") }
            if try !runFrameSequence(files) { throw ExitCode(1) }
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

    /// One photo or video file; false when it failed (its error line is written).
    private func process(_ path: String, into sink: OutputSink) throws -> Bool {
        let name = URL(fileURLWithPath: path).lastPathComponent
        do {
            let format = try Image.sniffFormat(contentsOfFile: path)
            switch format {
            case .image:
                try processPhoto(path, name: name, into: sink)
            case .video, .unknown:
                try processVideo(path, name: name, looksLike: format, into: sink)
            case .text, .empty, .unsupportedImage:
                throw CLIError.notMedia(path: path, looksLike: format.description, detail: nil)
            }
            return true
        } catch let error as ExitCode {
            throw error
        } catch {
            try sink.write(ErrorRecord(image: name, error: "\(error)"))
            return false
        }
    }

    private func processPhoto(_ path: String, name: String, into sink: OutputSink) throws {
        // EXIF orientations, mirrored ones included, are applied to the pixels here, so results and
        // overlays are in the displayed photo's coordinates.
        let image = try Image(contentsOfFile: path).oriented()
        let stem = URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent
        let source = FrameSource(image: name, width: image.width, height: image.height, stem: stem)
        try emit(landmarkers.photoDetector()(image), source: source, image: image, into: sink)
    }

    private func processVideo(_ path: String, name: String, looksLike: SniffedFormat, into sink: OutputSink) throws {
        let openedAt = DispatchTime.now().uptimeNanoseconds
        var readerOptions = VideoFileReader.Options()
        readerOptions.prefetch = 3
        // Without overlays nothing reads a frame's pixels but the crops, which sample the decoder's YUV planes
        // and give the same bytes as on converted frames (the reader checks that, and converts the frames of a
        // stream it cannot vouch for): this saves converting whole frames to RGB that the crops barely read.
        readerOptions.convertsToRGB = overlayDirectory != nil || overlayVideo != nil
        readerOptions.skipNonIncreasingTimestamps = false   // gated below, so the overlay video keeps every frame
        // When the inference threads take every core, a decoder on threads of its own would compete with them
        // for the cores; it decodes on one thread in the workers' idle time instead (set below). With cores to
        // spare, it keeps a thread of its own and FFmpeg's threads.
        let decodesOnIdleWorkers = options.decodesOnIdleWorkers
        if decodesOnIdleWorkers {
            readerOptions.decodesAhead = .onIdleWorkers
            readerOptions.decodeThreads = 1
        }
        let reader: VideoFileReader
        do {
            reader = try VideoFileReader(path: path, options: readerOptions)
        } catch let VideoError.openFailed(_, reason) where looksLike != .video("MP4/MOV") {
            throw CLIError.notMedia(path: path, looksLike: looksLike.description, detail: "FFmpeg: \(reason)")
        }
        let info = reader.info
        let madeAt = DispatchTime.now().uptimeNanoseconds
        let tracker = try landmarkers.videoTracker(for: path)
        let makingNanoseconds = DispatchTime.now().uptimeNanoseconds - madeAt
        if decodesOnIdleWorkers { tracker.setIdleWork(reader.decodeAheadWork) }
        defer { tracker.setIdleWork(nil) }
        let writer = try overlayVideo.map {
            try VideoFileWriter(path: $0, width: info.width, height: info.height, frameRate: info.frameRate ?? 30,
                                timeBase: (info.timeBaseNumerator, info.timeBaseDenominator))
        }
        let stem = URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent
        var gate = TimestampGate()
        var lastResult: Result?
        var lastWritten: Int64?
        var processed = 0
        progress.restart()
        defer {
            progress.finish()
            reportTracking(tracker.statistics(), name: name)
            if options.timing {
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - openedAt - makingNanoseconds) * 1e-9
                let line = String(format: "%d frames in %.3f s, %.1f frames/s (opening the file to its last line)",
                                  processed, seconds, Double(processed) / max(seconds, 1e-9))
                FileHandle.standardError.write("\(name): \(line)\n".data(using: .utf8)!)
            }
        }
        func overlayFrame(_ frame: VideoFrame, _ result: Result?) throws {
            guard let writer, lastWritten.map({ frame.presentationTimestamp > $0 }) ?? true else { return }
            let drawn = try result.flatMap { r in try task.overlay.map { try $0(r, frame.image) } } ?? frame.image
            try writer.write(drawn, presentationTimestamp: frame.presentationTimestamp)
            lastWritten = frame.presentationTimestamp
        }
        do {
            while let frame = try reader.nextFrame() {
                if let previous = gate.admit(frame.timestampMs) {
                    warn("\(name): \(VideoFileReader.SkippedFrame(index: frame.index, timestampMs: frame.timestampMs, previousTimestampMs: previous))")
                    try overlayFrame(frame, lastResult)
                    reader.recycle(frame)
                    continue
                }
                let result = try tracker.detect(frame.image, frame.timestampMs)
                let frameName = String(format: "frame_%05d", frame.index)
                let source = FrameSource(video: name, frame: frameName, timestampMs: frame.timestampMs,
                                         width: frame.image.width, height: frame.image.height, stem: "\(stem).\(frameName)")
                try emit(result, source: source, image: frame.image, into: sink)
                try overlayFrame(frame, result)
                lastResult = result
                processed += 1
                progress.update(done: processed, total: info.frameCount, label: name, unit: "frames")
                reader.recycle(frame)
            }
        } catch {
            try? writer?.finish()   // keep the frames drawn so far playable
            throw error
        }
        try writer?.finish()
    }

    /// Writes a result's line and its side files.
    private func emit(_ result: Result, source: FrameSource, image: Image, into sink: OutputSink) throws {
        try sink.write(task.record(result, source))
        try task.sideFiles?(result, source)
        if let directory = overlayDirectory, let draw = task.overlay {
            try draw(result, image).writePNG(to: URL(fileURLWithPath: directory).appendingPathComponent("\(source.stem).overlay.png").path)
        }
    }

    /// `--video`: the files are one video's frames in order, timed by `--fps`.
    private func runFrameSequence(_ files: [String]) throws -> Bool {
        let tracker = try landmarkers.videoTracker(for: "--video frames")
        defer { reportTracking(tracker.statistics(), name: "frames") }
        var failed = false
        progress.restart()
        for (i, file) in files.enumerated() {
            let name = URL(fileURLWithPath: file).lastPathComponent
            do {
                let image = try Image(contentsOfFile: file).oriented()
                let timestamp = options.timestamp(ofFrame: i)
                let stem = URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent
                let source = FrameSource(image: name, timestampMs: timestamp, width: image.width, height: image.height, stem: stem)
                try emit(tracker.detect(image, timestamp), source: source, image: image, into: .standardOutput)
            } catch {
                failed = true
                try OutputSink.standardOutput.write(ErrorRecord(image: name, error: "\(error)"))
            }
            progress.update(done: i + 1, total: files.count, label: "frames", unit: "done")
        }
        progress.finish()
        return !failed
    }

    /// `--raw WxH`: RGB24 frames from standard input, as photos or (with `--video`) as one video.
    private func runRaw() throws -> Bool {
        let (w, h) = try options.rawSize()
        let frameBytes = w * h * 3
        let tracker = options.video ? try landmarkers.videoTracker(for: "standard input") : nil
        defer { if let tracker { reportTracking(tracker.statistics(), name: "standard input") } }
        var failed = false
        var index = 0
        progress.restart()
        while true {
            let data = readStandardInput(count: frameBytes)
            if data.isEmpty { break }
            let name = String(format: "frame_%05d", index)
            do {
                guard data.count == frameBytes else {
                    throw RawInputError.truncatedFrame(index: index, expected: frameBytes, actual: data.count)
                }
                let image = try Image(rgb: [UInt8](data), width: w, height: h)
                let timestamp = tracker != nil ? options.timestamp(ofFrame: index) : nil
                let source = FrameSource(image: name, timestampMs: timestamp, width: w, height: h, stem: name)
                let result = try timestamp.map { try tracker!.detect(image, $0) } ?? landmarkers.photoDetector()(image)
                try emit(result, source: source, image: image, into: .standardOutput)
            } catch {
                failed = true
                try OutputSink.standardOutput.write(ErrorRecord(image: name, error: "\(error)"))
            }
            index += 1
            progress.update(done: index, total: nil, label: "standard input", unit: "frames")
            if data.count < frameBytes { break }
        }
        progress.finish()
        return !failed
    }

    /// Up to `count` bytes from standard input; fewer only at its end.
    private func readStandardInput(count: Int) -> Data {
        var data = Data()
        while data.count < count {
            let chunk = FileHandle.standardInput.readData(ofLength: count - data.count)
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        return data
    }

    /// One stderr line per video saying how often the detector ran.
    private func reportTracking(_ statistics: (frames: Int, detectorRuns: Int), name: String) {
        guard !options.quiet else { return }
        FileHandle.standardError.write("\(name): tracked \(statistics.frames) frames, \(task.detectorName) ran on \(statistics.detectorRuns)\n"
            .data(using: .utf8)!)
    }
}

extension MediaRun {
    /// Whether `path` looks like a video by its first bytes (unreadable files count as photos: their error
    /// comes with their line).
    static func isVideoFile(_ path: String) -> Bool {
        if case .video = (try? Image.sniffFormat(contentsOfFile: path)) { return true }
        return false
    }
}

/// The landmarkers of a run, made when first needed: planning a model pair takes a tenth of a second, so
/// a run of videos plans no IMAGE-mode landmarker and a run of photos no VIDEO-mode one. ``prepare(video:)``
/// makes the one the first input needs before any input is read, so that a bad model or option ends the
/// run at once (exit status 2) as before.
final class Landmarkers<Result> {
    private let task: LandmarkTask<Result>
    private var photo: ((Image) throws -> Result)?
    private var spareTracker: VideoTracker<Result>?

    init(_ task: LandmarkTask<Result>) { self.task = task }

    /// Makes the landmarker the first input needs; on failure prints the error and exits with status 2.
    func prepare(video: Bool) throws {
        if video, let make = task.makeVideoTracker {
            spareTracker = try makeTask(make)
        } else {
            photo = try makeTask(task.makePhotoDetector)
        }
    }

    /// The IMAGE-mode detector, made on first use.
    func photoDetector() throws -> (Image) throws -> Result {
        if let photo { return photo }
        let made = try task.makePhotoDetector()
        photo = made
        return made
    }

    /// A fresh VIDEO-mode landmarker for one video (`name` is for the error of a photos-only command).
    func videoTracker(for name: String) throws -> VideoTracker<Result> {
        guard let make = task.makeVideoTracker else {
            throw CLIError.notForThisCommand(path: name, reason: "this command takes photos; use blaze pose or blaze hand for videos")
        }
        if let spare = spareTracker {
            spareTracker = nil
            return spare
        }
        return try make()
    }
}

enum RawInputError: Error, CustomStringConvertible {
    case truncatedFrame(index: Int, expected: Int, actual: Int)

    var description: String {
        switch self {
        case let .truncatedFrame(index, expected, actual):
            return "raw frame \(index) is truncated: expected \(expected) bytes (WIDTH·HEIGHT·3), standard input ended after \(actual)"
        }
    }
}
