import ArgumentParser
import BlazeImage
import BlazeKit
import BlazeVideo
import Foundation

/// The frames of a video file as a ``FrameStream``: decoded ahead by `VideoFileReader` with the stream's
/// presentation times (display rotation applied), named `frame_00000`… by decoder index. A frame whose time
/// does not increase is passed over as ``FrameStreamEvent/skipped(_:previousTimestampInMilliseconds:)``; damage
/// ends the stream with one failure, after every frame decoded before it.
struct VideoFileFrames: FrameStream {
    let path: String
    let name: String
    let reader: VideoFileReader
    let decodesOnIdleWorkers: Bool
    private var gate = TimestampGate()
    private var current: VideoFrame?
    private var ended = false

    /// Opens the file. `looksLike` is what its first bytes said: a file FFmpeg cannot open that does not look
    /// like a video is reported as not media. Without `convertsToRGB` frames stay YUV planes, which the crops
    /// sample with the same bytes as converted frames (the reader converts a stream it cannot vouch for).
    /// `decodesOnIdleWorkers` decodes on one thread, as the task's idle work (``idleWork``), instead of on a
    /// thread of the reader's own with FFmpeg's threads.
    init(path: String, looksLike: SniffedFormat, prefetch: Int, convertsToRGB: Bool, decodesOnIdleWorkers: Bool) throws {
        var readerOptions = VideoFileReader.Options()
        readerOptions.prefetch = prefetch
        readerOptions.convertsToRGB = convertsToRGB
        readerOptions.skipNonIncreasingTimestamps = false   // gated here, so an overlay video keeps every frame
        if decodesOnIdleWorkers {
            readerOptions.decodesAhead = .onIdleWorkers
            readerOptions.decodeThreads = 1
        }
        do {
            reader = try VideoFileReader(path: path, options: readerOptions)
        } catch let VideoError.openFailed(_, reason) where looksLike != .video(.isoBaseMedia) {
            throw CLIError.notMedia(path: path, looksLike: looksLike.description, detail: "FFmpeg: \(reason)")
        }
        self.path = path
        name = URL(fileURLWithPath: path).lastPathComponent
        self.decodesOnIdleWorkers = decodesOnIdleWorkers
    }

    /// Whether `path` looks like a video by its first bytes (unreadable files count as photos: their error
    /// comes with their line).
    static func looksLikeVideo(_ path: String) -> Bool {
        if case .video = (try? Image.sniffFormat(contentsOfFile: path)) { return true }
        return false
    }

    var isVideo: Bool { true }
    var label: String { name }
    var expectedFrameCount: Int? { reader.info.frameCount }
    var endsAtFailure: Bool { true }
    var idleWork: (@Sendable () -> Bool)? { decodesOnIdleWorkers ? reader.decodeAheadWork : nil }
    var info: VideoInfo { reader.info }

    mutating func next() -> FrameStreamEvent? {
        guard !ended else { return nil }
        let decoded: VideoFrame?
        do {
            decoded = try reader.nextFrame()
        } catch {
            ended = true
            return .failed(name: name, error: error)
        }
        guard let decoded else { ended = true; return nil }
        current = decoded
        let frame = StreamFrame(image: decoded.image, name: String(format: "frame_%05d", decoded.index), container: name,
                                index: decoded.index, timestampInMilliseconds: decoded.timestampMs,
                                presentationTimestamp: decoded.presentationTimestamp)
        if let previous = gate.admit(decoded.timestampMs) {
            return .skipped(frame, previousTimestampInMilliseconds: previous)
        }
        return .frame(frame)
    }

    mutating func recycle(_ frame: StreamFrame) {
        guard let decoded = current, decoded.index == frame.index else { return }
        current = nil
        reader.recycle(decoded)
    }
}

/// `--overlay-video`: the input video with the results drawn, at its size, frame rate and timestamps. A frame
/// whose presentation time does not follow the last one written is left out.
struct OverlayVideoWriter {
    private let writer: VideoFileWriter
    private var lastWritten: Int64?

    /// A writer for the frames of `stream`, a video file.
    init(path: String, stream: some FrameStream) throws {
        guard let video = stream as? VideoFileFrames else {
            throw ValidationError("--overlay-video needs a video file input")
        }
        let info = video.info
        writer = try VideoFileWriter(path: path, width: info.width, height: info.height, frameRate: info.frameRate ?? 30,
                                     timeBase: (info.timeBaseNumerator, info.timeBaseDenominator))
    }

    /// Writes `frame`, with `result` drawn by `drawing` when both are given.
    mutating func write<Result>(_ frame: StreamFrame, result: Result?, drawing: ((Result, Image) throws -> Image)?) throws {
        guard let pts = frame.presentationTimestamp, lastWritten.map({ pts > $0 }) ?? true else { return }
        let drawn = try result.flatMap { r in try drawing.map { try $0(r, frame.image) } } ?? frame.image
        try writer.write(drawn, presentationTimestamp: pts)
        lastWritten = pts
    }

    func finish() throws { try writer.finish() }
}
