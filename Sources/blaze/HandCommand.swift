import ArgumentParser
import BlazeKit
import Foundation

/// `blaze hand`: MediaPipe's 21 hand landmarks and handedness for each photo, as JSON Lines.
struct HandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hand",
        abstract: "Detect hands in photos and videos and print one JSON object per photo or video frame.",
        discussion: """
            Each photo gives a line {"image":NAME,"width":W,"height":H,"hands":[{"handedness":{"categoryName":"Left"|"Right",\
            "score":s},"landmarks":[[x,y,z],…21],"worldLandmarks":[[x,y,z],…21]}]}, with MediaPipe Tasks' conventions \
            (EXIF orientation applied). Each frame of a video file is tracked as MediaPipe's VIDEO mode does and gives \
            {"video":NAME,"frame":"frame_00000","timestampMs":T,…}. An input that cannot be read gives \
            {"image":NAME,"error":MESSAGE} (for a damaged video, after the lines of the frames before the damage); the \
            others still run and the exit status is 1. With --video --fps F the inputs are one video's frames; \
            --raw WIDTHxHEIGHT reads RGB24 frames from standard input. Batch: --output-dir, --resume, --inputs-from, --shard.
            """)

    @OptionGroup var input: InputOptions

    @Option(help: "full, lite, a directory of converted models, or an official hand_landmarker .task bundle.")
    var model = "full"
    @Option(help: "The most hands per photo.") var numHands = 1
    @Option(help: "Minimum palm detector score.") var minDetectionConfidence: Float = 0.5
    @Option(help: "Minimum hand presence score.") var minPresenceConfidence: Float = 0.5
    @Option(help: "Minimum tracking IoU (video and live stream).") var minTrackingConfidence: Float = 0.5
    @Option(help: "Write each photo (or video frame) with its hands drawn as <stem>.overlay.png into this directory.") var overlayDir: String?
    @Option(help: ArgumentHelp("Write the input video with the hands drawn on every frame (H.264 MP4, the input's size, "
                               + "frame rate and timestamps). Needs exactly one video file input.", valueName: "PATH"))
    var overlayVideo: String?

    func run() throws {
        let options = HandLandmarkerOptions()
        switch model {
        case "full": options.model = .full
        case "lite": options.model = .lite
        default: options.baseOptions.modelAssetPath = model
        }
        options.baseOptions.threadCount = input.threads
        options.numHands = numHands
        options.minHandDetectionConfidence = minDetectionConfidence
        options.minHandPresenceConfidence = minPresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        let task = LandmarkTask<HandLandmarkerResult>(
            makePhotoDetector: {
                let photos = try HandLandmarker(options: options)
                return { try photos.detect(image: $0) }
            },
            makeVideoTracker: {
                let video = options.copy()
                video.runningMode = .video
                return VideoTracker(try HandLandmarker(options: video))
            },
            record: { result, source in
                FrameRecord(source: source, key: "hands", items: (0..<result.landmarks.count).map { i in
                    let category = result.handedness[i].first
                    return HandItem(handedness: .init(categoryName: category?.categoryName ?? "", score: category?.score ?? 0),
                                    landmarks: result.landmarks[i].map { [$0.x, $0.y, $0.z] },
                                    worldLandmarks: result.worldLandmarks[i].map { [$0.x, $0.y, $0.z] })
                })
            },
            overlay: HandOverlay.draw,
            sideFiles: nil,
            detectorName: "palm detector")
        try MediaRun(options: input, task: task, overlayDirectory: overlayDir, overlayVideo: overlayVideo).run()
    }
}

/// One hand of a `blaze hand` line.
struct HandItem: Encodable {
    struct Handedness: Encodable {
        var categoryName: String
        var score: Float
    }

    var handedness: Handedness
    var landmarks: [[Float]]
    var worldLandmarks: [[Float]]
}

/// Hand drawing for `--overlay-dir`: left hands blue, right hands orange.
enum HandOverlay {
    static func draw(_ result: HandLandmarkerResult, on image: Image) throws -> Image {
        var canvas = OverlayCanvas(pixels: image.pixels, width: image.width, height: image.height)
        let w = Double(image.width), h = Double(image.height)
        let thickness = max(2, Int(min(w, h) / 250))
        for (i, hand) in result.landmarks.enumerated() {
            let color: (UInt8, UInt8, UInt8) = result.handedness[i].first?.categoryName == "Left" ? (40, 120, 255) : (255, 140, 0)
            for c in HandSkeleton.connections {
                let a = hand[c.start], b = hand[c.end]
                canvas.line(Double(a.x) * w, Double(a.y) * h, Double(b.x) * w, Double(b.y) * h, thickness: thickness, color)
            }
            for l in hand { canvas.disc(Double(l.x) * w, Double(l.y) * h, radius: thickness + 1, (255, 255, 255)) }
        }
        return try Image(rgb: canvas.pixels, width: image.width, height: image.height)
    }
}
