import Foundation
import BlazeImage
import CFFmpeg

/// Errors thrown by BlazeVideo. Every case names the file, and where it applies the frame, the byte
/// offset or the option at fault with the expected and actual values.
public enum VideoError: Error, Equatable, CustomStringConvertible {
    /// FFmpeg could not open the file as a container it knows; `reason` is FFmpeg's message.
    case openFailed(path: String, reason: String)
    /// The container holds no video stream; `streams` lists what it does hold.
    case noVideoStream(path: String, streams: String)
    /// This build of FFmpeg has no decoder (or encoder) for the codec.
    case unsupportedCodec(path: String, codec: String)
    /// The stream's frame size is zero or beyond BlazeImage's caps (`Image.maxDimension`
    /// per side, `Image.maxPixelCount` pixels); checked before anything is allocated.
    case invalidFrameSize(path: String, width: Int, height: Int)
    /// Decoding stopped at damaged data. `framesDecoded` frames were delivered before it; `byteOffset` is
    /// the position of the packet (or read) that failed, when FFmpeg knows it.
    case damaged(path: String, framesDecoded: Int, byteOffset: Int64?, reason: String)
    /// The stream ended early: the container announced `framesExpected` frames, `framesDecoded` came out.
    case truncated(path: String, framesDecoded: Int, framesExpected: Int, byteOffset: Int64?)
    /// Writing a video failed; `reason` is FFmpeg's message or the step that failed.
    case encodingFailed(path: String, reason: String)
    /// An argument is out of range: `option` names it.
    case invalidOption(option: String, expected: String, actual: String)

    public var description: String {
        switch self {
        case let .openFailed(path, reason):
            return "\(path): not a video FFmpeg can open: \(reason)"
        case let .noVideoStream(path, streams):
            return "\(path): the file has no video stream (streams: \(streams.isEmpty ? "none" : streams))"
        case let .unsupportedCodec(path, codec):
            return "\(path): this FFmpeg build has no codec for \(codec)"
        case let .invalidFrameSize(path, w, h):
            return "\(path): video frame size \(w)×\(h) is not supported; expected 1…\(Image.maxDimension) pixels per side "
                + "and at most \(Image.maxPixelCount) pixels"
        case let .damaged(path, frames, offset, reason):
            return "\(path): damaged video data after frame \(frames) (\(frames) frames decoded)"
                + (offset.map { " at byte offset \($0)" } ?? "") + ": \(reason)"
        case let .truncated(path, frames, expected, offset):
            return "\(path): video is truncated: the container announces \(expected) frames, the data ended after \(frames)"
                + (offset.map { " (last packet read at byte offset \($0))" } ?? "")
        case let .encodingFailed(path, reason):
            return "\(path): writing the video failed: \(reason)"
        case let .invalidOption(option, expected, actual):
            return "invalid \(option): expected \(expected), got \(actual)"
        }
    }
}

/// FFmpeg's message for an error code.
func ffmpegMessage(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    av_strerror(code, &buffer, buffer.count)
    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return text.isEmpty ? "FFmpeg error \(code)" : text
}

/// Whether a frame of this size is within BlazeImage's caps (checked before any frame buffer exists).
func isSupportedFrameSize(_ width: Int, _ height: Int) -> Bool {
    width > 0 && height > 0 && width <= Image.maxDimension && height <= Image.maxDimension
        && width * height <= Image.maxPixelCount
}

/// Frees what a decoder or encoder owns besides its container, leaving every pointer nil.
func freeCodecObjects(_ scaler: inout OpaquePointer?, _ frame: inout UnsafeMutablePointer<AVFrame>?,
                      _ packet: inout UnsafeMutablePointer<AVPacket>?, _ codec: inout UnsafeMutablePointer<AVCodecContext>?) {
    if scaler != nil { sws_freeContext(scaler); scaler = nil }
    if frame != nil { av_frame_free(&frame) }
    if packet != nil { av_packet_free(&packet) }
    if codec != nil { avcodec_free_context(&codec) }
}

/// `localizedDescription` is the message that names the file, option or value at fault.
extension VideoError: LocalizedError {
    /// The same message as `description`.
    public var errorDescription: String? { description }
}
