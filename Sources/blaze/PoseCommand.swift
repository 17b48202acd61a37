import ArgumentParser
import BlazeKit
import Foundation

/// `blaze pose`: MediaPipe's 33 body landmarks for each photo, as JSON Lines on stdout.
struct PoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Detect body poses in photos and videos and print one JSON object per photo or video frame.",
        discussion: """
            Each photo gives a line {"image":NAME,"width":W,"height":H,"poses":[{"landmarks":[[x,y,z,visibility,presence],…33],\
            "worldLandmarks":[[x,y,z,visibility,presence],…33]}]}, with MediaPipe Tasks' conventions (x, y normalized \
            to the displayed image, EXIF orientation applied; world landmarks in metres around the hips). Each frame of a \
            video file is tracked as MediaPipe's VIDEO mode does and gives {"video":NAME,"frame":"frame_00000",\
            "timestampMs":T,…} with the stream's presentation time (display rotation applied), each pose object also with \
            BlazeKit's "id", stable over the clip. An input that cannot be \
            read gives {"image":NAME,"error":MESSAGE} (for a damaged video, after the lines of the frames before the \
            damage); the others still run and the exit status is 1. With --video --fps F the inputs are one video's frames; \
            --raw WIDTHxHEIGHT reads RGB24 frames from standard input. Batch: --output-dir, --resume, --inputs-from, --shard.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var landmarker: LandmarkerCommandOptions

    @Option(help: "The most poses per photo.") var numPoses = 1
    @Option(help: "Write each pose's person mask as <stem>.mask<i>.png into this directory.") var segmentationDir: String?
    @Flag(help: ArgumentHelp("Accurate mode: finds small, rotated and crowded people and refines their landmarks, "
                             + "at a higher cost (the default gives MediaPipe's exact results)."))
    var accurate = false
    @Option(help: ArgumentHelp("With --accurate: the smallest person height (pixels) the tiled search looks for.",
                               valueName: "PIXELS"))
    var minPersonHeight = PoseAccurateMode().smallestPersonHeight
    @Option(help: ArgumentHelp("With --accurate: parts to switch off, comma-separated: tiles, rotations, zoom-out, zoom-in, refine, flip, masked-retry.",
                               valueName: "PARTS"))
    var accurateOff = ""
    @Flag(help: ArgumentHelp("MediaPipe's legacy Solutions graph (mp.solutions.pose) instead of the Tasks graph: one person, "
                             + "the legacy filters and mask smoothing; --min-presence-confidence is its min_tracking_confidence."))
    var legacy = false

    func run() throws {
        let options = PoseLandmarkerOptions()
        if let builtin = landmarker.apply(to: options, input: input) { options.model = builtin == "lite" ? .lite : .full }
        options.numPoses = numPoses
        options.minPoseDetectionConfidence = landmarker.minDetectionConfidence
        options.minPosePresenceConfidence = landmarker.minPresenceConfidence
        options.minTrackingConfidence = landmarker.minTrackingConfidence
        options.shouldOutputSegmentationMasks = segmentationDir != nil
        options.identity = landmarker.identity
        if accurate {
            do {
                options.accurateMode = try PoseAccurateMode(smallestPersonHeight: minPersonHeight, turningOff: accurateOff)
            } catch {
                throw ValidationError("--accurate-off: \(error)")
            }
        }
        if legacy { options.legacySolution = LegacyPoseSolution() }
        if let dir = segmentationDir { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        let task = CommandTask<PoseLandmarkerDefinition>(
            options: options,
            record: { result, source in
                FrameRecord(source: source, key: "poses", items: result.landmarks.indices.map { i in
                    PoseItem(landmarks: result.landmarks[i].map { [$0.x, $0.y, $0.z, $0.visibility ?? 0, $0.presence ?? 0] },
                             worldLandmarks: result.worldLandmarks[i].map { [$0.x, $0.y, $0.z, $0.visibility ?? 0, $0.presence ?? 0] },
                             id: result.ids.indices.contains(i) ? result.ids[i] : nil)
                })
            },
            overlay: PoseOverlay.draw,
            sideFiles: { [segmentationDir] result, source in
                try segmentationDir.map { try SegmentationFiles.write(result.segmentationMasks, stem: source.stem, into: $0) }
            },
            detectorName: "pose detector")
        try MediaRun(options: input, task: task, drawing: landmarker.drawing).run()
    }
}

/// One pose of a `blaze pose` line; `id` only for video frames.
struct PoseItem: Encodable {
    var landmarks: [[Float]]
    var worldLandmarks: [[Float]]
    var id: Int? = nil
}

/// `--segmentation-dir`: each person mask as an 8-bit grey PNG.
enum SegmentationFiles {
    /// Writes mask `k` as `<stem>.mask<k>.png` into `directory`.
    static func write(_ masks: [Mask], stem: String, into directory: String) throws {
        for (k, mask) in masks.enumerated() {
            let gray = mask.float32Data.map { UInt8((min(max($0, 0), 1) * 255).rounded()) }
            try Data(Image.pngData(gray: gray, width: mask.width, height: mask.height))
                .write(to: URL(fileURLWithPath: directory).appendingPathComponent("\(stem).mask\(k).png"))
        }
    }
}

/// Skeleton drawing for `--overlay-dir` and `--overlay-video`: green, or on video frames in the colour of
/// the pose's ID, with the ID written above it.
enum PoseOverlay {
    static let connections = PoseSkeleton.connections.map { ($0.start, $0.end) }

    static func draw(_ result: PoseLandmarkerResult, on image: Image) throws -> Image {
        var canvas = OverlayCanvas(pixels: image.pixels, width: image.width, height: image.height)
        let w = Double(image.width), h = Double(image.height)
        let thickness = max(2, Int(min(w, h) / 200))
        for (i, pose) in result.landmarks.enumerated() {
            let id = result.ids.indices.contains(i) ? result.ids[i] : nil
            let color = id.map(OverlayCanvas.identityColor) ?? (0, 255, 0)
            canvas.skeleton(pose, connections: PoseOverlay.connections, thickness: thickness, color, joints: (thickness + 1, (255, 48, 48)))
            if let id { canvas.label(id, above: pose, imageWidth: w, imageHeight: h, scale: thickness + 1) }
        }
        return try Image(rgb: canvas.pixels, width: image.width, height: image.height)
    }
}
