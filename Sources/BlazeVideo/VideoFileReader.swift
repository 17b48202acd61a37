import BlazeImage
import Foundation
import Synchronization

/// Reads a video file's frames in presentation order as upright RGB `Image`s with their
/// presentation times in milliseconds: the input of a landmarker's VIDEO mode.
///
/// ```swift
/// let reader = try VideoFileReader(path: "clip.mp4")
/// while let frame = try reader.nextFrame() {
///     let result = try landmarker.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestampMs)
/// }
/// ```
///
/// - Timestamps are the stream's presentation times from its first frame, so variable frame rates come
///   through as they are. By default a frame whose millisecond timestamp would not increase (duplicate
///   or out-of-order presentation times) is skipped and reported to ``Options/onSkippedFrame``; the
///   timestamps a reader returns are then strictly increasing, as VIDEO mode requires.
/// - The display matrix of phone clips (portrait video stored sideways) is applied: frames come out as
///   a player shows them, and ``info`` gives both sizes.
/// - Frames are decoded ahead (``Options/prefetch`` frames), so decoding overlaps with what the caller does
///   with the previous frame: on a thread of the reader's own, or in the idle time of the caller's worker
///   threads (``Options/decodesAhead``). Idle workers decode nothing ahead while the caller has its first
///   frame (the slow one, on which a landmarker's detector runs, gets every thread) and then one frame more
///   per frame taken, up to ``Options/prefetch``.
/// - Damaged or truncated data: every frame decoded before the damage is returned first, then
///   ``nextFrame()`` throws ``VideoError/damaged(path:framesDecoded:byteOffset:reason:)`` or
///   ``VideoError/truncated(path:framesDecoded:framesExpected:byteOffset:)`` once, then returns nil.
/// - The frame size is checked against BlazeImage's caps before any frame buffer is allocated.
///
/// Colours: frames are the bytes OpenCV's `cv2.VideoCapture` gives (its FFmpeg backend, as in the pip wheel,
/// BGR swapped to RGB). Like it, the reader converts with libswscale (`SWS_BICUBIC`, a context of the frame's
/// size, BGR24 where the order changes the arithmetic) using the frame's own colour tags: the matrix the stream is tagged with (BT.709 for BT.709
/// video; BT.601 when untagged, or tagged BT.601/SMPTE 170M) and its range (limited 16…235, or full range for
/// `pc`-tagged streams and MJPEG's `yuvj420p`). 8-bit 4:2:0 video of even height takes libswscale's
/// unscaled fixed-point converter (each chroma sample used for its 2×2 block, see ``BlazeImage/YUVToRGB``);
/// other formats (10-bit video included) and odd heights take its filtering scaler, told where the frame's
/// chroma samples sit. Wide-gamut and HDR frames (BT.2020, P3, PQ, HLG) have their colours mapped to
/// BT.709 SDR as FFmpeg 8 maps them (a colour table built when the stream's first such frame is read).
///
/// A reader is for one thread at a time.
public final class VideoFileReader {
    /// Reading options.
    public struct Options {
        /// Frames decoded ahead of the caller (1…64). 0 decodes on the caller's thread.
        public var prefetch: Int = 2
        /// libavcodec decoding threads; 0 lets FFmpeg choose.
        public var decodeThreads: Int = 0
        /// Convert every frame to RGB (true), or hand out upright 8-bit YUV 4:2:0 frames as their planes
        /// (false): ``Image/init(yuv420:)`` over the decoder's memory, neither converted nor copied, with the
        /// stream's matrix and range (``BlazeImage/YUVToRGB``, libswscale's unscaled arithmetic). Landmark
        /// crops sample the planes directly and give the same bytes as a crop of the converted frame, which is
        /// OpenCV's; `image.pixels` converts on each read. Frames in other formats, of odd height (libswscale
        /// then filters), turned by a display matrix, or whose colours are mapped to BT.709 (wide-gamut and
        /// HDR tags) are converted as usual.
        public var convertsToRGB = true
        /// Skip frames whose millisecond timestamp does not increase (true), or return every frame (false).
        public var skipNonIncreasingTimestamps = true
        /// Called for each skipped frame, on the thread that calls ``VideoFileReader/nextFrame()``.
        public var onSkippedFrame: ((SkippedFrame) -> Void)?
        /// Which threads decode the ``prefetch`` frames ahead.
        public var decodesAhead: AheadDecoding = .onReaderThread

        public init() {}
    }

    /// Which threads decode frames ahead of ``VideoFileReader/nextFrame()``.
    public enum AheadDecoding: Sendable, Equatable {
        /// A thread of the reader's own (with FFmpeg's decoding threads, ``Options/decodeThreads``): decoding
        /// takes cores the caller's work leaves free.
        case onReaderThread
        /// Whichever threads call ``VideoFileReader/decodeAheadWork``: the idle workers of the landmarker that
        /// takes the frames (its `setIdleWork(_:)`), so that on a machine whose cores all run the landmarker,
        /// decoding fills the gaps between its parallel loops instead of competing with them for the cores.
        /// A frame not yet decoded when ``VideoFileReader/nextFrame()`` asks for it is decoded on the caller's
        /// thread. Pair it with ``Options/decodeThreads`` = 1: FFmpeg's own threads would compete again.
        case onIdleWorkers
    }

    /// A frame that was not returned because its timestamp did not increase.
    public struct SkippedFrame: Sendable, Equatable, CustomStringConvertible {
        public var index: Int
        public var timestampMs: Int
        public var previousTimestampMs: Int

        public init(index: Int, timestampMs: Int, previousTimestampMs: Int) {
            self.index = index
            self.timestampMs = timestampMs
            self.previousTimestampMs = previousTimestampMs
        }

        public var description: String {
            "frame \(index) skipped: its timestamp \(timestampMs) ms does not increase on the previous frame's \(previousTimestampMs) ms"
        }
    }

    /// The file's path.
    public let path: String
    /// What the container says about the video stream.
    public let info: VideoInfo
    private let options: Options
    private let source: FrameSource
    private var gate = TimestampGate()
    private let recycler: PixelRecycler
    private var handedBack: [[UInt8]] = []

    /// Opens `path` and reads its stream headers.
    ///
    /// - Throws: ``VideoError/openFailed(path:reason:)`` (not a container FFmpeg knows, unreadable),
    ///   ``VideoError/noVideoStream(path:streams:)``, ``VideoError/unsupportedCodec(path:codec:)``,
    ///   ``VideoError/invalidFrameSize(path:width:height:)``, ``VideoError/invalidOption(option:expected:actual:)``.
    public convenience init(path: String, options: Options = Options()) throws {
        try self.init(path: path, memory: nil, options: options)
    }

    /// Reads an encoded video held in memory (an upload, a network buffer) through a custom I/O context,
    /// without touching the file system; `name` stands for the file in errors.
    ///
    /// - Throws: as ``init(path:options:)``.
    public convenience init(data: [UInt8], name: String = "<memory>", options: Options = Options()) throws {
        try self.init(path: name, memory: MemoryIO(bytes: data), options: options)
    }

    private init(path: String, memory: MemoryIO?, options: Options) throws {
        guard (0...64).contains(options.prefetch) else {
            throw VideoError.invalidOption(option: "prefetch", expected: "0...64", actual: "\(options.prefetch)")
        }
        guard (0...64).contains(options.decodeThreads) else {
            throw VideoError.invalidOption(option: "decodeThreads", expected: "0...64", actual: "\(options.decodeThreads)")
        }
        let decoder = try FFmpegDecoder(path: path, memory: memory, decodeThreads: options.decodeThreads)
        decoder.keepsYUV = !options.convertsToRGB
        recycler = decoder.recycler
        self.path = path
        info = decoder.info
        self.options = options
        if options.prefetch == 0 {
            source = DirectSource(decoder: decoder)
        } else if options.decodesAhead == .onIdleWorkers {
            source = IdleWorkerSource(decoder: decoder, depth: options.prefetch)
        } else {
            source = PrefetchingSource(decoder: decoder, depth: options.prefetch)
        }
    }

    deinit { source.stop() }

    /// Hands back a frame you are done with, so that the decoder writes a later frame into its pixel memory
    /// instead of allocating new memory for every frame (6 MB at 1080p, which the kernel hands out as fresh
    /// zeroed pages each time). Optional: frames not handed back are simply freed. Hand back only frames
    /// whose image you no longer keep anywhere: a copy still held elsewhere stays valid, but the decoder then
    /// pays for a copy of its own.
    public func recycle(_ frame: consuming VideoFrame) {
        // Passed on at the next `nextFrame()`: by then the caller's own binding of the frame (a loop
        // variable, say) has ended, so the decoder finds the memory unshared and writes over it in place.
        if frame.image.yuv420 == nil { handedBack.append(frame.image.pixels) }   // planes go back to the decoder by themselves
    }

    /// Decodes one frame ahead, if there is room for it and no other thread is decoding; returns whether it
    /// did. For ``AheadDecoding/onIdleWorkers``: hand it to the landmarker's `setIdleWork(_:)`. It may be
    /// called from any thread, holds the reader weakly, and returns false at once in the other modes, when
    /// ``Options/prefetch`` frames are waiting, after the last frame, and once the reader is gone.
    public var decodeAheadWork: @Sendable () -> Bool {
        guard let source = source as? IdleWorkerSource else { return { false } }
        return { [weak source] in source?.decodeAhead() ?? false }
    }

    /// Frames decoded into memory handed back by ``recycle(_:)`` so far.
    var reusedFrameCount: Int { recycler.reuses }

    /// The next frame, or nil after the last one. Throws once at damaged or truncated data, after every
    /// frame decoded before it has been returned.
    public func nextFrame() throws -> VideoFrame? {
        while let pixels = handedBack.popLast() { recycler.put(pixels) }
        while let frame = try source.next() {
            guard options.skipNonIncreasingTimestamps else { return frame }
            if let previous = gate.admit(frame.timestampMs) {
                options.onSkippedFrame?(SkippedFrame(index: frame.index, timestampMs: frame.timestampMs, previousTimestampMs: previous))
                continue
            }
            return frame
        }
        return nil
    }
}

/// Strictly increasing timestamps: `admit` returns nil for a timestamp after the last admitted one, or the
/// last admitted one (which the rejected timestamp does not exceed).
public struct TimestampGate: Sendable {
    private var last: Int?

    public init() {}

    public mutating func admit(_ timestamp: Int) -> Int? {
        if let last, timestamp <= last { return last }
        last = timestamp
        return nil
    }
}

/// Where ``VideoFileReader`` gets decoded frames: straight from the decoder, or from a decoding thread.
protocol FrameSource: AnyObject {
    func next() throws -> VideoFrame?
    func stop()
}

final class DirectSource: FrameSource {
    private let decoder: FFmpegDecoder
    init(decoder: FFmpegDecoder) { self.decoder = decoder }
    func next() throws -> VideoFrame? { try decoder.next() }
    func stop() {}
}

/// The decoder's results that a ``FrameSource`` decoded ahead and its caller has not taken yet, in order. An
/// error is followed by the end (nil), so it is thrown once. Not thread-safe: its owner guards it.
struct DecodedFrameQueue {
    private var items: [Result<VideoFrame?, Error>] = []
    private var head = 0
    /// The decoder's end or error is queued: nothing follows it.
    private(set) var isComplete = false

    /// Results waiting.
    var count: Int { items.count - head }

    mutating func append(_ item: Result<VideoFrame?, Error>) {
        items.append(item)
        switch item {
        case .success(nil): isComplete = true
        case .failure: isComplete = true; items.append(.success(nil))
        case .success: break
        }
    }

    /// The oldest result, nil when none waits. The queue keeps no reference to its frame, so the caller holds
    /// it alone (see `VideoFileReader.recycle`).
    mutating func removeFirst() -> Result<VideoFrame?, Error>? {
        guard head < items.count else { return nil }
        let item = items[head]
        items[head] = .success(nil)
        head += 1
        if head > 16, head * 2 > items.count { items.removeFirst(head); head = 0 }
        return item
    }
}

/// Decodes on a thread of its own into a queue of at most `depth` frames. The decoder is touched only by
/// that thread; the queue and flags only under `condition`.
final class PrefetchingSource: FrameSource, @unchecked Sendable {
    private let condition = NSCondition()
    private var queue = DecodedFrameQueue()
    private var stopping = false
    private var running = true
    private let depth: Int
    private var ended = false

    init(decoder: FFmpegDecoder, depth: Int) {
        self.depth = depth
        let thread = Thread { [self] in self.decodeLoop(decoder) }
        thread.name = "BlazeVideo.decode"
        thread.start()
    }

    private func decodeLoop(_ decoder: FFmpegDecoder) {
        while true {
            condition.lock()
            while !stopping && queue.count >= depth { condition.wait() }
            let stop = stopping
            condition.unlock()
            if stop { break }
            let item: Result<VideoFrame?, Error>
            do { item = .success(try decoder.next()) } catch { item = .failure(error) }
            condition.lock()
            queue.append(item)
            let complete = queue.isComplete
            condition.broadcast()
            condition.unlock()
            if complete { break }
        }
        condition.lock()
        running = false
        condition.broadcast()
        condition.unlock()
    }

    func next() throws -> VideoFrame? {
        condition.lock()
        defer { condition.unlock() }
        if ended { return nil }
        while queue.count == 0 { condition.wait() }
        let item = queue.removeFirst()!
        condition.broadcast()
        if case .success(nil) = item { ended = true }
        return try item.get()
    }

    /// Stops the decoding thread and waits for it, so the decoder is released on return.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }
}

/// Decodes on the threads that call ``decodeAhead()`` into a queue of at most `depth` frames, and on the
/// caller of ``next()`` when the queue is empty. One thread decodes at a time (`decodeLock`, held for one
/// frame); the queue and flags are touched only under `queueLock`.
final class IdleWorkerSource: FrameSource, @unchecked Sendable {
    private let decoder: FFmpegDecoder
    private let depth: Int
    private let decodeLock = NSLock()
    private let queueLock = NSLock()
    private var queue = DecodedFrameQueue()
    /// The reader is gone: nothing more is decoded.
    private var stopped = false
    /// `next()` has returned the end.
    private var ended = false
    /// Frames waiting in the queue, for `decodeAhead()`'s check without a lock.
    private let waiting = Atomic<Int>(0)
    /// Frames `next()` has returned.
    private let handedOut = Atomic<Int>(0)

    init(decoder: FFmpegDecoder, depth: Int) {
        self.decoder = decoder
        self.depth = depth
    }

    /// How many frames the workers decode ahead: none while the caller has its first frame, then one fewer than
    /// the frames it has taken, up to `depth`. The first frame is the slow one (the detector runs, and with it
    /// the landmarks): decoding three frames ahead then kept the worker from its loops for 12 ms, and the first
    /// frame's landmarker took 17–22 ms instead of about 12 (1080p H.264, 2 threads).
    private var aheadLimit: Int { min(depth, max(0, handedOut.load(ordering: .relaxed) - 1)) }

    func decodeAhead() -> Bool {
        let limit = aheadLimit
        guard waiting.load(ordering: .relaxed) < limit, decodeLock.try() else { return false }
        defer { decodeLock.unlock() }
        return decodeOne(limit: limit)
    }

    /// Decodes one frame into the queue unless it holds `limit` frames or nothing more comes. Requires `decodeLock`.
    private func decodeOne(limit: Int) -> Bool {
        let room = queueLock.withLock { !stopped && !queue.isComplete && queue.count < limit }
        guard room else { return false }
        let item: Result<VideoFrame?, Error>
        do { item = .success(try decoder.next()) } catch { item = .failure(error) }
        queueLock.withLock {
            queue.append(item)
            waiting.store(queue.count, ordering: .relaxed)
        }
        return true
    }

    func next() throws -> VideoFrame? {
        while true {
            queueLock.lock()
            if ended || stopped { queueLock.unlock(); return nil }
            if let item = queue.removeFirst() {
                waiting.store(queue.count, ordering: .relaxed)
                if case .success(nil) = item { ended = true } else { handedOut.wrappingAdd(1, ordering: .relaxed) }
                queueLock.unlock()
                return try item.get()
            }
            queueLock.unlock()
            // Nothing decoded yet: decode here, after a worker's frame in progress (which may be the one wanted).
            decodeLock.lock()
            let empty = queueLock.withLock { queue.count == 0 }
            if empty { _ = decodeOne(limit: depth) }
            decodeLock.unlock()
        }
    }

    /// Waits for a frame being decoded; the decoder is released with the source.
    func stop() {
        decodeLock.lock()
        queueLock.withLock { stopped = true }
        decodeLock.unlock()
    }
}
