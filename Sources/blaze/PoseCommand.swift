import ArgumentParser
import BlazeKit
import Foundation

/// `blaze pose`: MediaPipe's 33 body landmarks for each photo, as JSON Lines on stdout.
struct PoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Detect body poses in PNG photos and print one JSON object per photo.",
        discussion: """
            Each line: {"image":NAME,"width":W,"height":H,"poses":[{"landmarks":[[x,y,z,visibility,presence],…33],\
            "worldLandmarks":[[x,y,z,visibility,presence],…33]}]}, with MediaPipe Tasks' conventions (x, y normalized \
            to the image; world landmarks in metres around the hips). A photo that cannot be read gives \
            {"image":NAME,"error":MESSAGE}; the others still run and the exit status is 1. \
            With --video --fps F the inputs are one video's frames, tracked as MediaPipe's VIDEO mode does, and each \
            line adds "timestampMs"; --raw WIDTHxHEIGHT reads RGB24 frames from standard input, e.g. \
            ffmpeg -i clip.mp4 -f rawvideo -pix_fmt rgb24 - | blaze pose --raw 640x360 --video --fps 25.
            """)

    @OptionGroup var input: InputOptions

    @Option(help: "full, lite, or a converted pose landmark model (.bkm) or a directory of converted models.")
    var model = "full"
    @Option(help: "The most poses per photo.") var numPoses = 1
    @Option(help: "Minimum pose detector score.") var minDetectionConfidence: Float = 0.5
    @Option(help: "Minimum pose presence score.") var minPresenceConfidence: Float = 0.5
    @Option(help: "Minimum tracking IoU (video and live stream).") var minTrackingConfidence: Float = 0.5
    @Option(help: "Write each pose's person mask as <stem>.mask<i>.png into this directory.") var segmentationDir: String?
    @Option(help: "Write each photo with its skeletons drawn as <stem>.overlay.png into this directory.") var overlayDir: String?

    func run() throws {
        var options = PoseLandmarkerOptions()
        switch model {
        case "full": options.model = .full
        case "lite": options.model = .lite
        default: options.baseOptions.modelAssetPath = model
        }
        options.baseOptions.threadCount = input.threads
        options.numPoses = numPoses
        options.minPoseDetectionConfidence = minDetectionConfidence
        options.minPosePresenceConfidence = minPresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        options.runningMode = input.video ? .video : .image
        options.outputSegmentationMasks = segmentationDir != nil
        let landmarker = try makeTask { try PoseLandmarker(options: options) }
        for dir in [segmentationDir, overlayDir].compactMap({ $0 }) {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        }
        defer { input.reportTracking(landmarker.trackingStatistics, detector: "pose detector") }
        try input.forEachImage { image, name, stem, timestamp in
            let result = try timestamp.map { try landmarker.detect(videoFrame: image, timestampInMilliseconds: $0) }
                ?? landmarker.detect(image: image)
            try JSONLines.write(PoseRecord(image: name, width: image.width, height: image.height, result: result,
                                               timestampMs: timestamp))
            if let dir = segmentationDir {
                for (k, mask) in result.segmentationMasks.enumerated() {
                    let gray = mask.float32Data.map { UInt8((min(max($0, 0), 1) * 255).rounded()) }
                    try Data(Image.pngData(gray: gray, width: mask.width, height: mask.height))
                        .write(to: URL(fileURLWithPath: dir).appendingPathComponent("\(stem).mask\(k).png"))
                }
            }
            if let dir = overlayDir {
                try PoseOverlay.draw(result, on: image).writePNG(to: URL(fileURLWithPath: dir).appendingPathComponent("\(stem).overlay.png").path)
            }
        }
    }
}

/// One line of `blaze pose` output.
struct PoseRecord: Encodable {
    struct Pose: Encodable {
        var landmarks: [[Float]]
        var worldLandmarks: [[Float]]
    }

    var image: String
    /// Present in video mode.
    var timestampMs: Int?
    var width: Int
    var height: Int
    var poses: [Pose]

    init(image: String, width: Int, height: Int, result: PoseLandmarkerResult, timestampMs: Int? = nil) {
        self.image = image
        self.timestampMs = timestampMs
        self.width = width
        self.height = height
        poses = zip(result.landmarks, result.worldLandmarks).map { lms, world in
            Pose(landmarks: lms.map { [$0.x, $0.y, $0.z, $0.visibility ?? 0, $0.presence ?? 0] },
                 worldLandmarks: world.map { [$0.x, $0.y, $0.z, $0.visibility ?? 0, $0.presence ?? 0] })
        }
    }
}

/// Skeleton drawing for `--overlay-dir`.
enum PoseOverlay {
    static func draw(_ result: PoseLandmarkerResult, on image: Image) throws -> Image {
        var canvas = OverlayCanvas(pixels: image.pixels, width: image.width, height: image.height)
        let w = Double(image.width), h = Double(image.height)
        let thickness = max(2, Int(min(w, h) / 200))
        for pose in result.landmarks {
            for c in PoseSkeleton.connections {
                let a = pose[c.start], b = pose[c.end]
                canvas.line(Double(a.x) * w, Double(a.y) * h, Double(b.x) * w, Double(b.y) * h, thickness: thickness, (0, 255, 0))
            }
            for l in pose { canvas.disc(Double(l.x) * w, Double(l.y) * h, radius: thickness + 1, (255, 48, 48)) }
        }
        return try Image(rgb: canvas.pixels, width: image.width, height: image.height)
    }
}
