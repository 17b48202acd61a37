import ArgumentParser
import BlazeKit
import Foundation

/// `blaze hand`: MediaPipe's 21 hand landmarks and handedness for each photo, as JSON Lines.
struct HandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hand",
        abstract: "Detect hands in PNG photos and print one JSON object per photo.",
        discussion: """
            Each line: {"image":NAME,"width":W,"height":H,"hands":[{"handedness":{"categoryName":"Left"|"Right","score":s},\
            "landmarks":[[x,y,z],…21],"worldLandmarks":[[x,y,z],…21]}]}, with MediaPipe Tasks' conventions. A photo that \
            cannot be read gives {"image":NAME,"error":MESSAGE}; the others still run and the exit status is 1. \
            With --video --fps F the inputs are one video's frames, tracked as MediaPipe's VIDEO mode does, and each \
            line adds "timestampMs"; --raw WIDTHxHEIGHT reads RGB24 frames from standard input, e.g. \
            ffmpeg -i clip.mp4 -f rawvideo -pix_fmt rgb24 - | blaze hand --raw 640x360 --video --fps 25.
            """)

    @OptionGroup var input: InputOptions

    @Option(help: "full, lite, a directory of converted models, or an official hand_landmarker .task bundle.")
    var model = "full"
    @Option(help: "The most hands per photo.") var numHands = 1
    @Option(help: "Minimum palm detector score.") var minDetectionConfidence: Float = 0.5
    @Option(help: "Minimum hand presence score.") var minPresenceConfidence: Float = 0.5
    @Option(help: "Minimum tracking IoU (video and live stream).") var minTrackingConfidence: Float = 0.5
    @Option(help: "Write each photo with its hands drawn as <stem>.overlay.png into this directory.") var overlayDir: String?

    func run() throws {
        var options = HandLandmarkerOptions()
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
        options.runningMode = input.video ? .video : .image
        let landmarker = try makeTask { try HandLandmarker(options: options) }
        if let dir = overlayDir { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        defer { input.reportTracking(landmarker.trackingStatistics, detector: "palm detector") }
        try input.forEachImage { image, name, stem, timestamp in
            let result = try timestamp.map { try landmarker.detect(videoFrame: image, timestampInMilliseconds: $0) }
                ?? landmarker.detect(image: image)
            try JSONLines.write(HandRecord(image: name, width: image.width, height: image.height, result: result,
                                               timestampMs: timestamp))
            if let dir = overlayDir {
                try HandOverlay.draw(result, on: image).writePNG(to: URL(fileURLWithPath: dir).appendingPathComponent("\(stem).overlay.png").path)
            }
        }
    }
}

/// One line of `blaze hand` output.
struct HandRecord: Encodable {
    struct Handedness: Encodable {
        var categoryName: String
        var score: Float
    }

    struct Hand: Encodable {
        var handedness: Handedness
        var landmarks: [[Float]]
        var worldLandmarks: [[Float]]
    }

    var image: String
    /// Present in video mode.
    var timestampMs: Int?
    var width: Int
    var height: Int
    var hands: [Hand]

    init(image: String, width: Int, height: Int, result: HandLandmarkerResult, timestampMs: Int? = nil) {
        self.image = image
        self.timestampMs = timestampMs
        self.width = width
        self.height = height
        hands = (0..<result.landmarks.count).map { i in
            let category = result.handedness[i].first
            return Hand(handedness: Handedness(categoryName: category?.categoryName ?? "", score: category?.score ?? 0),
                        landmarks: result.landmarks[i].map { [$0.x, $0.y, $0.z] },
                        worldLandmarks: result.worldLandmarks[i].map { [$0.x, $0.y, $0.z] })
        }
    }
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
