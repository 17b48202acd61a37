import BlazeImage
import CFFmpeg

/// What a video file says about its main video stream, read from the container before decoding.
public struct VideoInfo: Sendable, Equatable {
    /// The frame size as displayed, after ``rotationDegrees``.
    public var width: Int
    public var height: Int
    /// The frame size as stored in the stream.
    public var codedWidth: Int
    public var codedHeight: Int
    /// Clockwise rotation (0, 90, 180 or 270) that the stream's display matrix asks for; the reader applies it.
    public var rotationDegrees: Int
    /// The average frame rate the container announces (frames per second), or nil when it gives none.
    public var frameRate: Double?
    /// The number of frames the container announces, or nil when it does not say (e.g. Matroska).
    public var frameCount: Int?
    /// The stream's duration in seconds, when known.
    public var durationSeconds: Double?
    /// The codec's short name (`h264`, `hevc`, `vp9`, …).
    public var codecName: String
    /// The stream's time base, as numerator and denominator: presentation timestamps count in these units.
    public var timeBaseNumerator: Int32
    public var timeBaseDenominator: Int32
}

/// One decoded frame.
public struct VideoFrame: Sendable {
    /// The upright RGB frame (display-matrix rotation applied).
    public var image: Image
    /// The frame's presentation time in milliseconds from the stream's start, rounded.
    public var timestampMs: Int
    /// The presentation timestamp in the stream's time base (``VideoInfo/timeBaseNumerator``…), from the
    /// stream's start.
    public var presentationTimestamp: Int64
    /// The frame's position among the frames the decoder delivered, from 0, in presentation order. For an
    /// intact stream this is the frame number; after damage (a frame lost in a cut B-frame stream) it skips nothing,
    /// so use ``timestampMs`` to place a frame in time.
    public var index: Int
}

/// Demuxes and decodes one video stream with libavformat/libavcodec and converts frames to RGB with
/// libswscale. Not thread-safe: ``VideoFileReader`` hands it to its decoding thread, the only one that
/// touches it afterwards.
final class FFmpegDecoder: @unchecked Sendable {
    let path: String
    private(set) var info = VideoInfo(width: 0, height: 0, codedWidth: 0, codedHeight: 0, rotationDegrees: 0, frameRate: nil,
                                      frameCount: nil, durationSeconds: nil, codecName: "", timeBaseNumerator: 1,
                                      timeBaseDenominator: 1)
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var scaler: OpaquePointer?
    /// What ``scaler`` was made for (nil: nothing yet).
    private var scalerKey: ScalerKey?
    private let staging = RGBStaging()
    /// The three-pass conversion of frames whose colours FFmpeg 8 maps (``ColourMapping``), and what it was made for.
    private var mapped: ColourMappedConverter?
    private var mappedKey: ScalerKey?
    private var mappedMapping: ColourMapping?
    /// Where frames handed back by the reader's user wait to be written over (``VideoFileReader/recycle(_:)``).
    let recycler = PixelRecycler(limit: 4)
    /// Whether upright YUV 4:2:0 frames whose width is a multiple of 16 are converted straight into the
    /// frame's pixel array (true), or always through the staging buffer (false; for tests that compare both).
    var convertsInPlace = true
    /// Whether upright 8-bit YUV 4:2:0 frames of even height are handed out as their planes (``Image/init(yuv420:)``,
    /// not converted), where libswscale's conversion is ``YUVToRGB``'s (its unscaled converter).
    var keepsYUV = false
    /// The in-memory input, kept alive as long as libavformat reads through it.
    private let memory: MemoryIO?
    private var streamIndex: Int32 = -1
    private var timeBase = AVRational(num: 1, den: 1)
    private var startTime: Int64 = 0
    private var draining = false
    /// A frame came out flagged as decoded with errors; no later frame is returned.
    private var passedDamagedFrame = false
    /// The earliest presentation time of a packet that was never decoded; no later frame is handed out.
    private var firstLostPresentationTime: Int64?
    /// The video stream, its packets read so far and the last one's decoding time.
    private var videoStream: UnsafeMutablePointer<AVStream>?
    private var packetsRead: Int32 = 0
    private var lastReadDTS: Int64?
    private var finished = false
    /// The first damage seen; thrown once the frames decoded before it have been delivered.
    private var pendingError: VideoError?
    private var delivered = 0
    private var discardedPackets = 0
    private var lastPacketOffset: Int64?
    private var lastTimestamp: Int64?
    private var nominalFrameDuration: Int64 = 1

    /// Opens `path`, or with `memory` the bytes it holds (`path` is then only the name in messages).
    init(path: String, memory: MemoryIO? = nil, decodeThreads: Int) throws {
        self.path = path
        self.memory = memory
        var context: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        guard context != nil else { throw VideoError.openFailed(path: path, reason: "out of memory") }
        if let memory {
            context!.pointee.pb = memory.context
            context!.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        }
        // avformat_open_input frees the context itself when it fails.
        let opened = avformat_open_input(&context, memory == nil ? path : nil, nil, nil)
        guard opened == 0, let context else { throw VideoError.openFailed(path: path, reason: ffmpegMessage(opened)) }
        format = context
        do {
            let found = avformat_find_stream_info(context, nil)
            guard found >= 0 else { throw VideoError.openFailed(path: path, reason: ffmpegMessage(found)) }
            let best = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
            guard best >= 0, let stream = context.pointee.streams[Int(best)] else {
                throw VideoError.noVideoStream(path: path, streams: FFmpegDecoder.streamList(context))
            }
            streamIndex = best
            videoStream = stream
            let parameters = stream.pointee.codecpar!
            let codedWidth = Int(parameters.pointee.width), codedHeight = Int(parameters.pointee.height)
            guard isSupportedFrameSize(codedWidth, codedHeight) else {
                throw VideoError.invalidFrameSize(path: path, width: codedWidth, height: codedHeight)
            }
            let codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))
            guard let decoder = avcodec_find_decoder(parameters.pointee.codec_id) else {
                throw VideoError.unsupportedCodec(path: path, codec: codecName)
            }
            guard let codecContext = avcodec_alloc_context3(decoder) else {
                throw VideoError.openFailed(path: path, reason: "out of memory allocating the decoder")
            }
            codec = codecContext
            guard avcodec_parameters_to_context(codecContext, parameters) >= 0 else {
                throw VideoError.openFailed(path: path, reason: "invalid codec parameters for \(codecName)")
            }
            codecContext.pointee.thread_count = Int32(max(0, decodeThreads))
            codecContext.pointee.pkt_timebase = stream.pointee.time_base
            let openedCodec = avcodec_open2(codecContext, decoder, nil)
            guard openedCodec >= 0 else { throw VideoError.openFailed(path: path, reason: ffmpegMessage(openedCodec)) }
            packet = av_packet_alloc()
            frame = av_frame_alloc()
            guard packet != nil, frame != nil else { throw VideoError.openFailed(path: path, reason: "out of memory") }

            timeBase = stream.pointee.time_base
            startTime = stream.pointee.start_time == blaze_av_nopts_value() ? 0 : stream.pointee.start_time
            let rotation = FFmpegDecoder.rotationDegrees(stream)
            let rate = stream.pointee.avg_frame_rate.num > 0 && stream.pointee.avg_frame_rate.den > 0
                ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
            let frameRate = rate.num > 0 && rate.den > 0 ? Double(rate.num) / Double(rate.den) : nil
            let duration = stream.pointee.duration != blaze_av_nopts_value() && timeBase.den > 0
                ? Double(stream.pointee.duration) * Double(timeBase.num) / Double(timeBase.den) : nil
            let swaps = rotation % 180 != 0
            info = VideoInfo(width: swaps ? codedHeight : codedWidth, height: swaps ? codedWidth : codedHeight,
                             codedWidth: codedWidth, codedHeight: codedHeight, rotationDegrees: rotation,
                             frameRate: frameRate, frameCount: stream.pointee.nb_frames > 0 ? Int(stream.pointee.nb_frames) : nil,
                             durationSeconds: duration, codecName: codecName,
                             timeBaseNumerator: timeBase.num, timeBaseDenominator: timeBase.den)
            // One nominal frame in time-base units, for frames that come without any timestamp.
            if rate.num > 0, rate.den > 0, timeBase.num > 0 {
                nominalFrameDuration = max(1, av_rescale_q(1, AVRational(num: rate.den, den: rate.num), timeBase))
            }
        } catch {
            release()
            throw error
        }
    }

    deinit { release() }

    private func release() {
        freeCodecObjects(&scaler, &frame, &packet, &codec)
        if format != nil { avformat_close_input(&format) }
    }

    /// The next frame in presentation order, nil at the end; throws ``VideoError/damaged(path:framesDecoded:byteOffset:reason:)``
    /// or ``VideoError/truncated(path:framesDecoded:framesExpected:byteOffset:)`` once, after every frame
    /// decoded before the damage has been returned.
    func next() throws -> VideoFrame? {
        guard !finished, let codec, let frame, let packet, let format else { return nil }
        while true {
            let received = avcodec_receive_frame(codec, frame)
            if received == 0 {
                defer { av_frame_unref(frame) }
                if let out = try deliver(frame) { return out }
                continue
            }
            if received == blaze_averror_eof() {
                finished = true
                if let pendingError { throw thrown(pendingError) }
                // Packets the container itself marks for discarding (before an MP4 edit list's start) decode
                // to no frame, so they do not count as missing.
                if let announced = info.frameCount, delivered < announced - discardedPackets {
                    throw VideoError.truncated(path: path, framesDecoded: delivered, framesExpected: announced - discardedPackets,
                                               byteOffset: lastPacketOffset)
                }
                if delivered == 0 {
                    throw VideoError.damaged(path: path, framesDecoded: 0, byteOffset: currentOffset(format),
                                             reason: "the stream holds no decodable frame (cut short, or empty)")
                }
                return nil
            }
            if received != blaze_averror(EAGAIN) {
                if pendingError == nil {
                    pendingError = .damaged(path: path, framesDecoded: delivered, byteOffset: lastPacketOffset,
                                            reason: ffmpegMessage(received))
                }
                finished = true
                throw thrown(pendingError!)
            }
            if draining {   // EAGAIN after the flush packet cannot happen; be safe
                finished = true
                if let pendingError { throw thrown(pendingError) }
                return nil
            }
            let read = av_read_frame(format, packet)
            if read < 0 {
                if read != blaze_averror_eof() {
                    pendingError = .damaged(path: path, framesDecoded: delivered, byteOffset: currentOffset(format),
                                            reason: "reading the container failed: \(ffmpegMessage(read))")
                    noteUnreadPackets()
                } else if let stream = videoStream, avformat_index_get_entries_count(stream) > packetsRead {
                    noteUnreadPackets()   // the index lists packets the file no longer holds
                }
                startDraining(codec)
                continue
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            packetsRead += 1
            if packet.pointee.dts != blaze_av_nopts_value() { lastReadDTS = packet.pointee.dts }
            if packet.pointee.pos >= 0 { lastPacketOffset = packet.pointee.pos }
            if packet.pointee.flags & AV_PKT_FLAG_DISCARD != 0 { discardedPackets += 1 }
            if packet.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 {
                pendingError = .damaged(path: path, framesDecoded: delivered, byteOffset: lastPacketOffset,
                                        reason: "the container marks this packet as corrupt (cut short?)")
                noteLostPacket(packet)
                noteUnreadPackets()
                startDraining(codec)
                continue
            }
            let sent = avcodec_send_packet(codec, packet)
            if sent < 0, sent != blaze_averror(EAGAIN) {
                pendingError = .damaged(path: path, framesDecoded: delivered, byteOffset: lastPacketOffset,
                                        reason: ffmpegMessage(sent))
                noteLostPacket(packet)
                startDraining(codec)
            }
        }
    }

    /// `frame` converted, or nil when it is not handed out: a frame decoded with errors is never returned (no
    /// concealed frame), nor is any frame after it in presentation order, since it may predict from the damaged
    /// one and the frames that come out stay a gap-free prefix of the clip (which frame the decoder flags
    /// first can depend on its threading). After damage the decoder is drained: frames still in its reorder
    /// buffer were decoded from the packets before the damaged one, and come out too.
    private func deliver(_ frame: UnsafeMutablePointer<AVFrame>) throws -> VideoFrame? {
        if frame.pointee.decode_error_flags != 0 || frame.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 {
            if pendingError == nil {
                pendingError = .damaged(path: path, framesDecoded: delivered, byteOffset: lastPacketOffset,
                                        reason: "frame \(delivered) decoded with errors")
            }
            passedDamagedFrame = true
            return nil
        }
        if passedDamagedFrame { return nil }
        // A frame shown after one whose packet never reached the decoder (a B-frame cut off after the P-frame
        // it precedes was decoded) would leave a gap.
        if let lost = firstLostPresentationTime, FFmpegDecoder.presentationTime(frame) > lost {
            passedDamagedFrame = true
            return nil
        }
        return try convert(frame)
    }

    /// `error` as it is thrown: a damaged stream's `framesDecoded` counts every frame delivered before the throw,
    /// those drained from the decoder after the damage was found included, so the count does not depend on
    /// how many frames FFmpeg's decoding threads still held at that moment.
    private func thrown(_ error: VideoError) -> VideoError {
        guard case let .damaged(path, _, byteOffset, reason) = error else { return error }
        return .damaged(path: path, framesDecoded: delivered, byteOffset: byteOffset, reason: reason)
    }

    /// Remembers the presentation time of a packet that is not decoded (damaged), the earliest one.
    private func noteLostPacket(_ packet: UnsafeMutablePointer<AVPacket>) {
        let pts = packet.pointee.pts != blaze_av_nopts_value() ? packet.pointee.pts : packet.pointee.dts
        guard pts != blaze_av_nopts_value() else { return }
        firstLostPresentationTime = min(firstLostPresentationTime ?? pts, pts)
    }

    /// Reading stopped before the stream's end: a packet never read is shown no earlier than it is decoded,
    /// so its presentation time is at least the decoding time of the first packet not read, which the
    /// container's index gives, or else just past the last packet read. Frames shown after that bound could
    /// follow a missing one and are not handed out.
    private func noteUnreadPackets() {
        var bound = lastReadDTS.map { $0 + 1 }
        if let stream = videoStream, avformat_index_get_entries_count(stream) > packetsRead,
           let entry = avformat_index_get_entry(stream, Int32(packetsRead)),
           entry.pointee.timestamp != blaze_av_nopts_value(), entry.pointee.timestamp > (lastReadDTS ?? Int64.min) {
            bound = entry.pointee.timestamp
        }
        guard let bound else { return }
        // Only frames strictly after the bound are held back; one shown at the bound itself cannot be preceded by
        // a missing one.
        firstLostPresentationTime = min(firstLostPresentationTime ?? bound, bound)
    }

    /// A decoded frame's presentation time (the largest one for a frame without any).
    static func presentationTime(_ frame: UnsafeMutablePointer<AVFrame>) -> Int64 {
        if frame.pointee.best_effort_timestamp != blaze_av_nopts_value() { return frame.pointee.best_effort_timestamp }
        if frame.pointee.pts != blaze_av_nopts_value() { return frame.pointee.pts }
        return Int64.max
    }

    private func startDraining(_ codec: UnsafeMutablePointer<AVCodecContext>) {
        draining = true
        _ = avcodec_send_packet(codec, nil)
    }

    private func currentOffset(_ format: UnsafeMutablePointer<AVFormatContext>) -> Int64? {
        guard let pb = format.pointee.pb else { return lastPacketOffset }
        return avio_tell(pb)
    }

    /// Converts the decoded frame to upright RGB and stamps it.
    private func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws -> VideoFrame {
        let w = Int(frame.pointee.width), h = Int(frame.pointee.height)
        guard isSupportedFrameSize(w, h) else {
            pendingError = .damaged(path: path, framesDecoded: delivered, byteOffset: lastPacketOffset,
                                    reason: "frame size changed to \(w)×\(h), beyond the caps")
            finished = true
            throw thrown(pendingError!)
        }
        // OpenCV 5.0's conversion (cap_ffmpeg_impl.hpp, `retrieveFrame`, as its wheel runs it): `sws_scale_frame`
        // from the decoded frame to a BGR24 frame of the same width and height, SWS_BICUBIC, the matrix, range
        // and chroma siting taken from the frame's tags (libswscale 9's one legacy pass). The same context here
        // (``makeScaler``): the frame's size and pixel format to BGR24, or to RGB24 where libswscale's unscaled
        // 8-bit 4:2:0 converter runs, whose two orders are the same arithmetic. The filtering scaler's are not:
        // on x86, BGR24 has an MMXEXT vertical scaler and converter (16-bit multiply-high arithmetic) that RGB24
        // lacks (its C tables round differently: 10-bit video was off by up to 12 levels), so frames it converts
        // are asked for as BGR24 and swapped while they are packed.
        let format = AVPixelFormat(frame.pointee.format)
        let colour = FrameColour(frame)
        let key = ScalerKey(width: w, height: h, format: format.rawValue, colour: colour)
        let image: Image
        if let mapping = ColourMapping(frame) {
            // Primaries or a transfer that FFmpeg 8 maps to BT.709 (BT.2020, P3, HDR): three passes.
            if mappedKey != key || mappedMapping != mapping {
                mapped = ColourMappedConverter(width: w, height: h, format: format, colour: colour, mapping: mapping)
                (mappedKey, mappedMapping) = mapped == nil ? (nil, nil) : (key, mapping)
            }
            guard let mapped else {
                finished = true
                throw VideoError.damaged(path: path, framesDecoded: delivered, byteOffset: lastPacketOffset,
                                         reason: "no conversion to RGB from colour primaries \(mapping.source.primaries) with transfer \(mapping.source.transfer) (pixel format \(frame.pointee.format))")
            }
            mapped.convert(frame, into: staging)
            image = try uprightStaged()
        } else {
            image = try converted(frame, format: format, colour: colour, key: key)
        }
        var pts = frame.pointee.best_effort_timestamp
        if pts == blaze_av_nopts_value() { pts = frame.pointee.pts }
        if pts == blaze_av_nopts_value() {
            pts = (lastTimestamp.map { $0 + nominalFrameDuration } ?? startTime)
        }
        lastTimestamp = pts
        let relative = pts - startTime
        let ms = av_rescale_q(relative, timeBase, AVRational(num: 1, den: 1000))
        defer { delivered += 1 }
        return VideoFrame(image: image, timestampMs: Int(ms), presentationTimestamp: relative, index: delivered)
    }

    /// `frame` converted as OpenCV's FFmpeg converts frames whose colours it does not map: one libswscale pass
    /// (or, for frames handed out as planes, none).
    private func converted(_ frame: UnsafeMutablePointer<AVFrame>, format: AVPixelFormat, colour: FrameColour,
                           key: ScalerKey) throws -> Image {
        let w = key.width, h = key.height
        let unscaled = FFmpegDecoder.convertsUnscaled(format: format, height: h)
        // libswscale converts 8-bit 4:2:0 with its unscaled converter (``YUVToRGB``'s arithmetic) when the
        // height is even; otherwise it goes through its filtering scaler, whose chroma is interpolated.
        if keepsYUV, info.rotationDegrees == 0, unscaled,
           frame.pointee.linesize.0 > 0, frame.pointee.linesize.1 > 0, frame.pointee.linesize.2 > 0,
           let buffers = DecodedFrameBuffers(referencing: frame) {
            // The decoder's own planes, referenced: no conversion, no copy. A crop samples them directly and
            // gets the bytes a crop of the converted frame would have.
            return try buffers.image(conversion: colour.conversion)
        }
        if key != scalerKey {
            if scaler != nil { sws_freeContext(scaler) }
            scaler = FFmpegDecoder.makeScaler(width: w, height: h, format: format, colour: colour)
            scalerKey = scaler == nil ? nil : key
        }
        guard let scaler else {
            finished = true
            throw VideoError.damaged(path: path, framesDecoded: delivered, byteOffset: lastPacketOffset,
                                     reason: "no conversion from pixel format \(frame.pointee.format) to RGB")
        }
        if convertsInPlace, info.rotationDegrees == 0, unscaled, w % 16 == 0 {
            // libswscale's unscaled YUV 4:2:0 → RGB24 converter writes whole 16-pixel groups, exactly the row when
            // the width is a multiple of 16: straight into the frame's array, without the staging copy
            // (0.33 ms a 1080p frame). The bytes are the same either way (`inPlaceAndStagedFramesAreTheSame`).
            return try Image(rgb: RGBStaging.convert(from: frame, with: scaler, reusing: recycler.take(count: w * h * 3)),
                             width: w, height: h)
        }
        staging.convert(from: frame, with: scaler, order: unscaled ? .rgb : .bgr)
        return try uprightStaged()
    }

    /// The staged frame as an upright RGB image, in a recycled array when one of its size is waiting.
    private func uprightStaged() throws -> Image {
        let upright = staging.packed(rotatedClockwiseBy: info.rotationDegrees,
                                     reusing: recycler.take(count: staging.width * staging.height * 3))
        return try Image(rgb: upright.pixels, width: upright.width, height: upright.height)
    }

    /// Whether libswscale converts frames of `format` and `height` with its unscaled converter: 8-bit YUV 4:2:0
    /// (limited or full range) of even height.
    static func convertsUnscaled(format: AVPixelFormat, height: Int) -> Bool {
        (format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P) && height % 2 == 0
    }

    /// A conversion context as OpenCV's FFmpeg makes it for a frame: `width × height` from `format`, `SWS_BICUBIC`,
    /// with the frame's chroma siting (which the filtering scaler uses: 10-bit and odd-height frames) and its
    /// colour matrix and range; to RGB24 where ``convertsUnscaled(format:height:)``, else to BGR24, OpenCV's order.
    static func makeScaler(width: Int, height: Int, format: AVPixelFormat, colour: FrameColour) -> OpaquePointer? {
        let output = convertsUnscaled(format: format, height: height) ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_BGR24
        return scalingContext(width: width, height: height, from: format, to: output,
                              options: [("src_h_chr_pos", Int64(colour.chromaX)), ("src_v_chr_pos", Int64(colour.chromaY))],
                              inverse: colour.space, sourceRange: colour.fullRange, forward: SWS_CS_DEFAULT, destinationRange: false)
    }

    /// A libswscale context converting `width × height` frames from `source` to `destination` (`SWS_BICUBIC`, the
    /// size kept) with `options` set before it is initialised, then the colour details: the YUV → RGB matrix
    /// `inverse` with `sourceRange`, the RGB → YUV matrix `forward` with `destinationRange` (libswscale's table
    /// numbers); nil when libswscale refuses any of it.
    static func scalingContext(width: Int, height: Int, from source: AVPixelFormat, to destination: AVPixelFormat,
                               options: [(String, Int64)], inverse: Int32, sourceRange: Bool, forward: Int32,
                               destinationRange: Bool) -> OpaquePointer? {
        guard let context = sws_alloc_context() else { return nil }
        let all: [(String, Int64)] = [
            ("srcw", Int64(width)), ("srch", Int64(height)), ("src_format", Int64(source.rawValue)),
            ("dstw", Int64(width)), ("dsth", Int64(height)), ("dst_format", Int64(destination.rawValue)),
            ("sws_flags", Int64(SWS_BICUBIC)),
        ] + options
        var failed = false
        for (name, value) in all where av_opt_set_int(UnsafeMutableRawPointer(context), name, value, 0) < 0 { failed = true }
        if failed || sws_init_context(context, nil, nil) < 0 {
            sws_freeContext(context)
            return nil
        }
        _ = sws_setColorspaceDetails(context, sws_getCoefficients(inverse), sourceRange ? 1 : 0,
                                     sws_getCoefficients(forward), destinationRange ? 1 : 0, 0, 1 << 16, 1 << 16)
        return context
    }

    /// The clockwise display rotation from the stream's display matrix, as a multiple of 90 in 0..<360.
    static func rotationDegrees(_ stream: UnsafeMutablePointer<AVStream>) -> Int {
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, nil) else { return 0 }
        let counterClockwise = data.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
        guard counterClockwise.isFinite else { return 0 }
        let clockwise = Int((-counterClockwise / 90).rounded()) * 90
        return ((clockwise % 360) + 360) % 360
    }

    private static func streamList(_ context: UnsafeMutablePointer<AVFormatContext>) -> String {
        (0..<Int(context.pointee.nb_streams)).compactMap { i -> String? in
            guard let stream = context.pointee.streams[i], let parameters = stream.pointee.codecpar else { return nil }
            let type = av_get_media_type_string(parameters.pointee.codec_type).map { String(cString: $0) } ?? "unknown"
            return "\(type) \(String(cString: avcodec_get_name(parameters.pointee.codec_id)))"
        }.joined(separator: ", ")
    }
}

/// A frame's colour matrix and range, as OpenCV's conversion applies them: the frame's matrix (libswscale's
/// table for it; BT.601 when untagged) and full range for `pc`-tagged frames and the `yuvj` formats.
struct FrameColour: Equatable {
    let space: Int32
    let fullRange: Bool
    /// Where chroma samples sit, in 1/256 luma pixels (libswscale's `src_h_chr_pos`, `src_v_chr_pos`); -513
    /// (libswscale's default, centred) when the frame does not say.
    let chromaX: Int32
    let chromaY: Int32

    init(_ frame: UnsafeMutablePointer<AVFrame>) {
        space = Int32(frame.pointee.colorspace.rawValue)
        var x: Int32 = -513, y: Int32 = -513
        if avcodec_enum_to_chroma_pos(&x, &y, frame.pointee.chroma_location) < 0 { (x, y) = (-513, -513) }
        (chromaX, chromaY) = (x, y)
        let format = AVPixelFormat(frame.pointee.format)
        fullRange = frame.pointee.color_range == AVCOL_RANGE_JPEG || format == AV_PIX_FMT_YUVJ420P
            || format == AV_PIX_FMT_YUVJ422P || format == AV_PIX_FMT_YUVJ444P || format == AV_PIX_FMT_YUVJ440P
            || format == AV_PIX_FMT_YUVJ411P
    }

    /// The same conversion in BlazeImage's arithmetic, for frames handed out as planes.
    var conversion: YUVToRGB {
        let table = sws_getCoefficients(space)!
        return YUVToRGB(inverseTable: (table[0], table[1], table[2], table[3]), fullRange: fullRange)
    }
}

/// The parameters a conversion context was made for.
struct ScalerKey: Equatable {
    let width: Int
    let height: Int
    let format: Int32
    let colour: FrameColour
}
