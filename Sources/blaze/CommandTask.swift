import BlazeKit
import Foundation

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
    /// The frame's position in its stream, from 0 (a video file's decoder index; 0 for a photo). Tables
    /// write it; JSON lines name the frame instead.
    var index = 0

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
        index = frame.index
    }

    /// Writes the leading fields of a result's line with `JSONEncoder` (``members`` writes the same directly).
    func encode(into container: inout KeyedEncodingContainer<RecordKey>) throws {
        try container.encodeIfPresent(image, forKey: RecordKey("image"))
        try container.encodeIfPresent(video, forKey: RecordKey("video"))
        try container.encodeIfPresent(frame, forKey: RecordKey("frame"))
        try container.encodeIfPresent(timestampMs, forKey: RecordKey("timestampMs"))
        try container.encode(width, forKey: RecordKey("width"))
        try container.encode(height, forKey: RecordKey("height"))
    }
}

/// A key of a result's line, by name.
struct RecordKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// One output line: where the result came from (``FrameOrigin``'s fields) and the result's items under
/// `key` ("poses", "hands", "observations"). Keys are written sorted, so lines are reproducible byte for byte.
struct FrameRecord<Item: Encodable>: Encodable {
    var source: FrameOrigin
    var key: String
    var items: [Item]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: RecordKey.self)
        try source.encode(into: &container)
        try container.encode(items, forKey: RecordKey(key))
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
    /// With `--format csv`: the table its rows are written to instead of JSON lines.
    var table: CSVTable<Result>? = nil
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
