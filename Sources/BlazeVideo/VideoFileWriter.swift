import BlazeImage
import CFFmpeg

/// Writes RGB frames to a video file through libavcodec and libavformat: H.264 (libx264, `yuv420p`, or
/// `yuv444p` for odd sizes) where this FFmpeg build has it, MPEG-4 Part 2 otherwise; the container
/// follows the file's extension (`.mp4`, `.mov`, `.mkv`, …).
///
/// ```swift
/// let writer = try VideoFileWriter(path: "out.mp4", width: info.width, height: info.height,
///                                  frameRate: info.frameRate ?? 30)
/// try writer.write(image, timestampMs: frame.timestampMs)
/// try writer.finish()
/// ```
///
/// Timestamps are kept as given, so a variable-frame-rate input keeps its timing. A writer is for one
/// thread at a time; ``finish()`` must be called for a playable file.
public final class VideoFileWriter {
    /// The file's path.
    public let path: String
    /// Frame size; every written image must have it.
    public let width: Int
    public let height: Int
    /// The encoder in use (`libx264` or `mpeg4`).
    public let encoderName: String
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var scaler: OpaquePointer?
    private let staging = RGBStaging()
    private let stream: UnsafeMutablePointer<AVStream>
    private let timeBase: AVRational
    private var lastPTS: Int64?
    private var finished = false
    private var fileOpen = false

    /// Creates the file and writes its header.
    ///
    /// - Parameters:
    ///   - frameRate: the nominal frame rate (written into the stream; timestamps decide the timing).
    ///   - timeBase: the timestamp unit as (numerator, denominator); default 1/90000 s. Pass the input's
    ///     (``VideoInfo/timeBaseNumerator`` …) with ``write(_:presentationTimestamp:)`` to copy an input's timing exactly.
    ///   - rotationDegrees: a clockwise display rotation (0, 90, 180, 270) to record in the stream's
    ///     display matrix, as phones do; the pixels are written as given.
    ///   - quality: the encoder's constant-quality setting (libx264 CRF 0…51, lower is better).
    /// - Throws: ``VideoError/invalidOption(option:expected:actual:)``, ``VideoError/invalidFrameSize(path:width:height:)``,
    ///   ``VideoError/unsupportedCodec(path:codec:)``, ``VideoError/encodingFailed(path:reason:)``.
    public init(path: String, width: Int, height: Int, frameRate: Double, timeBase: (Int32, Int32) = (1, 90000),
                rotationDegrees: Int = 0, quality: Int = 20) throws {
        guard frameRate.isFinite, frameRate > 0, frameRate <= 1000 else {
            throw VideoError.invalidOption(option: "frameRate", expected: "a number in (0, 1000]", actual: "\(frameRate)")
        }
        guard timeBase.0 > 0, timeBase.1 > 0 else {
            throw VideoError.invalidOption(option: "timeBase", expected: "positive numerator and denominator",
                                           actual: "\(timeBase.0)/\(timeBase.1)")
        }
        guard [0, 90, 180, 270].contains(rotationDegrees) else {
            throw VideoError.invalidOption(option: "rotationDegrees", expected: "0, 90, 180 or 270", actual: "\(rotationDegrees)")
        }
        guard (0...51).contains(quality) else {
            throw VideoError.invalidOption(option: "quality", expected: "0...51", actual: "\(quality)")
        }
        guard isSupportedFrameSize(width, height) else {
            throw VideoError.invalidFrameSize(path: path, width: width, height: height)
        }
        self.path = path
        self.width = width
        self.height = height
        self.timeBase = AVRational(num: timeBase.0, den: timeBase.1)

        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        let allocated = avformat_alloc_output_context2(&context, nil, nil, path)
        guard allocated >= 0, let context else {
            throw VideoError.encodingFailed(path: path, reason: "no container for this file name's extension (\(ffmpegMessage(allocated)))")
        }
        format = context
        let x264 = avcodec_find_encoder_by_name("libx264")
        guard let encoder = x264 ?? avcodec_find_encoder(AV_CODEC_ID_MPEG4) else {
            avformat_free_context(context)
            throw VideoError.unsupportedCodec(path: path, codec: "H.264 (libx264) or MPEG-4 Part 2 encoder")
        }
        encoderName = String(cString: encoder.pointee.name)
        guard let newStream = avformat_new_stream(context, nil) else {
            avformat_free_context(context)
            throw VideoError.encodingFailed(path: path, reason: "could not add a stream")
        }
        stream = newStream
        do {
            guard let codecContext = avcodec_alloc_context3(encoder) else {
                throw VideoError.encodingFailed(path: path, reason: "out of memory allocating the encoder")
            }
            codec = codecContext
            codecContext.pointee.width = Int32(width)
            codecContext.pointee.height = Int32(height)
            codecContext.pointee.time_base = self.timeBase
            let rate = av_d2q(frameRate, 100_000)
            codecContext.pointee.framerate = rate
            codecContext.pointee.gop_size = Int32(max(1, min(300, Int(frameRate.rounded()) * 2)))
            let evenSize = width % 2 == 0 && height % 2 == 0
            if x264 != nil {
                codecContext.pointee.pix_fmt = evenSize ? AV_PIX_FMT_YUV420P : AV_PIX_FMT_YUV444P
                _ = av_opt_set(codecContext.pointee.priv_data, "preset", "veryfast", 0)
                _ = av_opt_set(codecContext.pointee.priv_data, "crf", "\(quality)", 0)
            } else {
                guard evenSize else { throw VideoError.encodingFailed(path: path, reason: "MPEG-4 Part 2 needs an even frame size, got \(width)×\(height)") }
                codecContext.pointee.pix_fmt = AV_PIX_FMT_YUV420P
                codecContext.pointee.bit_rate = Int64(width * height) * 4
            }
            if context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
                codecContext.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
            }
            let opened = avcodec_open2(codecContext, encoder, nil)
            guard opened >= 0 else { throw VideoError.encodingFailed(path: path, reason: "opening \(encoderName): \(ffmpegMessage(opened))") }
            guard avcodec_parameters_from_context(newStream.pointee.codecpar, codecContext) >= 0 else {
                throw VideoError.encodingFailed(path: path, reason: "copying the encoder's parameters")
            }
            newStream.pointee.time_base = self.timeBase
            newStream.pointee.avg_frame_rate = rate
            if rotationDegrees != 0, let side = av_stream_new_side_data(newStream, AV_PKT_DATA_DISPLAYMATRIX, 9 * 4) {
                side.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_set($0, Double(rotationDegrees)) }
            }
            frame = av_frame_alloc()
            packet = av_packet_alloc()
            guard let frame, packet != nil else { throw VideoError.encodingFailed(path: path, reason: "out of memory") }
            frame.pointee.format = codecContext.pointee.pix_fmt.rawValue
            frame.pointee.width = Int32(width)
            frame.pointee.height = Int32(height)
            let buffers = av_frame_get_buffer(frame, 0)
            guard buffers >= 0 else { throw VideoError.encodingFailed(path: path, reason: ffmpegMessage(buffers)) }
            if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
                let io = avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE)
                guard io >= 0 else { throw VideoError.encodingFailed(path: path, reason: "cannot create the file: \(ffmpegMessage(io))") }
                fileOpen = true
            }
            // MP4/MOV: the index (moov) goes before the frames when the file is finished, so players can
            // start at once and a copy cut short still holds its first frames.
            var muxerOptions: OpaquePointer? = nil
            if ["mp4", "mov"].contains(where: { String(cString: context.pointee.oformat.pointee.name).contains($0) }) {
                av_dict_set(&muxerOptions, "movflags", "+faststart", 0)
            }
            let header = avformat_write_header(context, &muxerOptions)
            av_dict_free(&muxerOptions)
            guard header >= 0 else { throw VideoError.encodingFailed(path: path, reason: "writing the header: \(ffmpegMessage(header))") }
        } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    private func release() {
        freeCodecObjects(&scaler, &frame, &packet, &codec)
        if let format {
            if fileOpen { avio_closep(&format.pointee.pb); fileOpen = false }
            avformat_free_context(format)
            self.format = nil
        }
    }

    /// Encodes `image` shown at `timestampMs` (converted to the writer's time base).
    public func write(_ image: Image, timestampMs: Int) throws {
        try write(image, presentationTimestamp: av_rescale_q(Int64(timestampMs), AVRational(num: 1, den: 1000), timeBase))
    }

    /// Encodes `image` with a presentation timestamp in the writer's time base; timestamps must increase.
    ///
    /// - Throws: ``VideoError/invalidOption(option:expected:actual:)`` for a wrong size, orientation or a
    ///   timestamp that does not increase; ``VideoError/encodingFailed(path:reason:)``.
    public func write(_ image: Image, presentationTimestamp pts: Int64) throws {
        guard !finished, let codec, let frame else {
            throw VideoError.encodingFailed(path: path, reason: "write after finish()")
        }
        guard image.width == width, image.height == height else {
            throw VideoError.invalidOption(option: "image size", expected: "\(width)×\(height)", actual: "\(image.width)×\(image.height)")
        }
        if let lastPTS, pts <= lastPTS {
            throw VideoError.invalidOption(option: "presentationTimestamp", expected: "> \(lastPTS)", actual: "\(pts)")
        }
        lastPTS = pts
        let made = av_frame_make_writable(frame)
        guard made >= 0 else { throw VideoError.encodingFailed(path: path, reason: ffmpegMessage(made)) }
        scaler = sws_getCachedContext(scaler, Int32(width), Int32(height), AV_PIX_FMT_RGB24, Int32(width), Int32(height),
                                      codec.pointee.pix_fmt, SWS_BICUBIC, nil, nil, nil)
        guard let scaler else { throw VideoError.encodingFailed(path: path, reason: "no RGB to \(codec.pointee.pix_fmt) conversion") }
        image.pixels.withUnsafeBufferPointer { staging.load($0, width: width, height: height) }
        staging.convert(into: frame, with: scaler)
        frame.pointee.pts = pts
        try send(frame)
    }

    /// Flushes the encoder and writes the container's trailer. Calling it again does nothing.
    public func finish() throws {
        guard !finished else { return }
        try send(nil)
        finished = true
        if let format {
            let trailer = av_write_trailer(format)
            guard trailer >= 0 else { throw VideoError.encodingFailed(path: path, reason: "writing the trailer: \(ffmpegMessage(trailer))") }
        }
        release()
    }

    private func send(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        guard let codec, let packet, let format else { return }
        let sent = avcodec_send_frame(codec, frame)
        guard sent >= 0 else { throw VideoError.encodingFailed(path: path, reason: "encoding: \(ffmpegMessage(sent))") }
        while true {
            let received = avcodec_receive_packet(codec, packet)
            if received == blaze_averror(EAGAIN) || received == blaze_averror_eof() { return }
            guard received >= 0 else { throw VideoError.encodingFailed(path: path, reason: "encoding: \(ffmpegMessage(received))") }
            av_packet_rescale_ts(packet, codec.pointee.time_base, stream.pointee.time_base)
            packet.pointee.stream_index = stream.pointee.index
            let written = av_interleaved_write_frame(format, packet)
            guard written >= 0 else { throw VideoError.encodingFailed(path: path, reason: "writing a packet: \(ffmpegMessage(written))") }
        }
    }
}
