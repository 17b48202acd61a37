import BlazeImage
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// One image of a ``FrameStream`` and where it came from.
public struct StreamFrame: Sendable {
    /// The pixels, upright (EXIF or display rotation already applied).
    public var image: MPImage
    /// The frame's own name: a photo's file name, or `frame_00012` for the frames of a video file or of
    /// raw input.
    public var name: String
    /// The file the frame belongs to, for the frames of one video file; nil for a photo or a raw frame.
    public var container: String?
    /// Position in the stream, from 0 (for a video file, the decoder's frame index).
    public var index: Int
    /// The frame's time in a video stream; nil for independent photos, which run in `.image` mode.
    public var timestampInMilliseconds: Int?
    /// The container's own timestamp in its time base, for a writer that keeps a video's timing; nil when
    /// the frame has none.
    public var presentationTimestamp: Int64?

    public init(image: MPImage, name: String, container: String? = nil, index: Int, timestampInMilliseconds: Int? = nil,
                presentationTimestamp: Int64? = nil) {
        self.image = image
        self.name = name
        self.container = container
        self.index = index
        self.timestampInMilliseconds = timestampInMilliseconds
        self.presentationTimestamp = presentationTimestamp
    }
}

/// What a ``FrameStream`` yields next.
public enum FrameStreamEvent: Sendable {
    /// A frame to process.
    case frame(StreamFrame)
    /// A video frame whose timestamp does not increase: `.video` mode cannot take it, so it is passed over
    /// (a writer that copies the video may still want it).
    case skipped(StreamFrame, previousTimestampInMilliseconds: Int)
    /// An input or frame that could not be read: `name` is what to report it under (a file, or a raw
    /// frame's name). After it the stream goes on unless ``FrameStream/endsAtFailure`` is true.
    case failed(name: String, error: any Error)
}

/// A source of images with timestamps: photos, the frames of a video file, a folder of frames, raw RGB
/// frames from a pipe. A loop that runs a task over a stream is the same for every source:
///
/// ```swift
/// var stream = PhotoFiles(paths: ["a.jpg", "b.png"])
/// while let event = stream.next() {
///     if case .frame(let frame) = event {
///         let result = try landmarker.detect(image: frame.image)
///         …
///     }
/// }
/// ```
///
/// A stream whose frames carry timestamps (``isVideo``) is one video: run it through a `.video`-mode task
/// (`detect(videoFrame:timestampInMilliseconds:)`); the others are independent photos for an `.image`-mode
/// task. A new kind of input is one more conformer.
public protocol FrameStream {
    /// Whether the frames are one video's, with increasing timestamps (a `.video`-mode task), rather than
    /// independent photos.
    var isVideo: Bool { get }
    /// What the stream is, for progress and summary lines: a file name, "frames", "standard input".
    var label: String { get }
    /// How many frames are expected, if known (for progress).
    var expectedFrameCount: Int? { get }
    /// Whether a ``FrameStreamEvent/failed(name:error:)`` is the stream's last event (a damaged video ends
    /// there; a bad photo in a list does not end the list).
    var endsAtFailure: Bool { get }
    /// Work that decodes frames ahead, to be run by a task's idle worker threads (`setIdleWork(_:)`); nil if
    /// the stream decodes on its own.
    var idleWork: (@Sendable () -> Bool)? { get }

    /// The next event, or nil at the end.
    mutating func next() -> FrameStreamEvent?
    /// Hands back a frame the caller is done with, so its memory can be reused (a no-op by default).
    mutating func recycle(_ frame: StreamFrame)
}

extension FrameStream {
    public var expectedFrameCount: Int? { nil }
    public var endsAtFailure: Bool { false }
    public var idleWork: (@Sendable () -> Bool)? { nil }
    public mutating func recycle(_ frame: StreamFrame) {}
}

/// Photos (PNG or JPEG, recognized by content), each decoded when it is reached and turned upright by its
/// EXIF orientation, mirrored ones included, so results are in the displayed photo's coordinates; or, with
/// `framesPerSecond`, the frames of one video in order, frame i at round(i·1000/fps) ms (a folder of
/// extracted frames). A file that cannot be read is reported under its name, and the stream goes on.
public struct PhotoFiles: FrameStream {
    public let paths: [String]
    /// Set for a sequence of video frames.
    public let framesPerSecond: Double?
    private var position = 0

    public init(paths: [String], framesPerSecond: Double? = nil) {
        self.paths = paths
        self.framesPerSecond = framesPerSecond
    }

    public var isVideo: Bool { framesPerSecond != nil }
    public var label: String { isVideo ? "frames" : "inputs" }
    public var expectedFrameCount: Int? { paths.count }

    public mutating func next() -> FrameStreamEvent? {
        guard position < paths.count else { return nil }
        defer { position += 1 }
        let path = paths[position]
        let name = URL(fileURLWithPath: path).lastPathComponent
        do {
            let image = try Image(contentsOfFile: path).oriented()
            return .frame(StreamFrame(image: image, name: name, index: position,
                                      timestampInMilliseconds: framesPerSecond.map { Self.timestamp(ofFrame: position, framesPerSecond: $0) }))
        } catch {
            return .failed(name: name, error: error)
        }
    }

    /// round(index·1000/fps) ms, the timestamps MediaPipe's examples give extracted frames.
    public static func timestamp(ofFrame index: Int, framesPerSecond: Double) -> Int {
        Int((Double(index) * 1000 / framesPerSecond).rounded())
    }
}

/// Where raw frames are read from: an open file descriptor (standard input by default).
public struct RawFrameSource: Sendable {
    public let fileDescriptor: Int32

    public init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

    /// Standard input (descriptor 0).
    public static let standardInput = RawFrameSource(fileDescriptor: 0)

    /// Up to `count` bytes, fewer only at the end of the input (or a read error, which ends it too).
    func bytes(upTo count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = bytes.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress! + filled, count - filled) }
            if n > 0 { filled += n } else if n < 0 && errno == EINTR { continue } else { break }
        }
        bytes.removeLast(count - filled)
        return bytes
    }
}

extension StreamFrame {
    /// `frame_00000`, …: a frame's index with at least five digits, as `String(format: "frame_%05d", index)` writes it.
    public static func name(ofFrame index: Int) -> String {
        let digits = String(index.magnitude)
        return "frame_" + (index < 0 ? "-" : "") + String(repeating: "0", count: max(0, (index < 0 ? 4 : 5) - digits.count)) + digits
    }
}

/// Raw RGB24 frames of one size read from a file descriptor (typically standard input, fed by
/// `ffmpeg -f rawvideo -pix_fmt rgb24 -`), named `frame_00000`, …: independent photos, or with
/// `framesPerSecond` one video. A frame cut short by the end of the input is reported, and ends the stream.
public struct RawRGBFrames: FrameStream {
    public let width: Int
    public let height: Int
    public let framesPerSecond: Double?
    public let label: String
    private let handle: RawFrameSource
    private var index = 0
    private var ended = false

    public init(handle: RawFrameSource, width: Int, height: Int, framesPerSecond: Double? = nil, label: String = "standard input") {
        self.handle = handle
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.label = label
    }

    public var isVideo: Bool { framesPerSecond != nil }

    public mutating func next() -> FrameStreamEvent? {
        guard !ended else { return nil }
        let frameBytes = width * height * 3
        let data = handle.bytes(upTo: frameBytes)
        if data.isEmpty { ended = true; return nil }
        defer { index += 1 }
        let name = StreamFrame.name(ofFrame: index)
        guard data.count == frameBytes else {
            ended = true
            return .failed(name: name, error: RawFrameError.truncatedFrame(index: index, expected: frameBytes, actual: data.count))
        }
        do {
            let image = try Image(rgb: data, width: width, height: height)
            return .frame(StreamFrame(image: image, name: name, index: index,
                                      timestampInMilliseconds: framesPerSecond.map { PhotoFiles.timestamp(ofFrame: index, framesPerSecond: $0) }))
        } catch {
            return .failed(name: name, error: error)
        }
    }
}

/// Why a raw frame could not be read.
public enum RawFrameError: Error, CustomStringConvertible, Sendable {
    /// The input ended inside a frame.
    case truncatedFrame(index: Int, expected: Int, actual: Int)

    public var description: String {
        switch self {
        case let .truncatedFrame(index, expected, actual):
            return "raw frame \(index) is truncated: expected \(expected) bytes (WIDTH·HEIGHT·3), standard input ended after \(actual)"
        }
    }
}
