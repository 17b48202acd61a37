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
            {"video":NAME,"frame":"frame_00000","timestampMs":T,…}, each hand object with BlazeKit's "id", stable over the clip. An input that cannot be read gives \
            {"image":NAME,"error":MESSAGE} (for a damaged video, after the lines of the frames before the damage); the \
            others still run and the exit status is 1. With --video --fps F the inputs are one video's frames; \
            --raw WIDTHxHEIGHT reads RGB24 frames from standard input. Batch: --output-dir, --resume, --inputs-from, --shard.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var landmarker: LandmarkerCommandOptions

    @Option(help: "The most hands per photo.") var numHands = 1
    @Flag(help: ArgumentHelp("Accurate mode: finds small hands (tiled palm search) and averages each landmark pass with the mirrored one, "
                             + "at a higher cost (the default gives MediaPipe's exact results)."))
    var accurate = false
    @Option(help: ArgumentHelp("With --accurate: the smallest hand (pixels, the longer side of its landmarks' box) "
                               + "the tiled search looks for.", valueName: "PIXELS"))
    var minHandSize = HandAccurateMode().smallestHandSize
    @Option(help: ArgumentHelp("With --accurate: parts to switch off, comma-separated: tiles, flip (on by default), refine.",
                               valueName: "PARTS"))
    var accurateOff = ""
    @Option(help: ArgumentHelp("With --accurate: parts to switch on, comma-separated: refine (a second landmark pass on the "
                               + "region the first pass's landmarks give; off by default).", valueName: "PARTS"))
    var accurateOn = ""
    @Flag(help: ArgumentHelp("MediaPipe's legacy Solutions graph (mp.solutions.hands) instead of the Tasks graph: its palm regions, "
                             + "tracking and handedness labels (for mirrored images); --min-presence-confidence is its min_tracking_confidence."))
    var legacy = false
    @Flag(help: ArgumentHelp("Video: each hand's handedness is its track's vote over the frames so far (the score stays "
                             + "the frame's probability of that label) instead of each frame's own label."))
    var voteHandedness = false

    func run() throws {
        let options = HandLandmarkerOptions()
        if let builtin = landmarker.apply(to: options, input: input) { options.model = builtin == "lite" ? .lite : .full }
        options.numHands = numHands
        options.minHandDetectionConfidence = landmarker.minDetectionConfidence
        options.minHandPresenceConfidence = landmarker.minPresenceConfidence
        options.minTrackingConfidence = landmarker.minTrackingConfidence
        if accurate {
            do {
                options.accurateMode = try HandAccurateMode(smallestHandSize: minHandSize, turningOn: accurateOn, turningOff: accurateOff)
            } catch {
                throw ValidationError("--accurate-on/--accurate-off: \(error)")
            }
        }
        if legacy { options.legacySolution = LegacyHandSolution() }
        options.identity = landmarker.identity
        options.identity.votesHandedness = voteHandedness
        let task = CommandTask<HandLandmarkerDefinition>(
            options: options,
            record: { result, source in
                FrameRecord(source: source, key: "hands", items: (0..<result.landmarks.count).map { i in
                    let category = result.handedness[i].first
                    return HandItem(handedness: .init(categoryName: category?.categoryName ?? "", score: category?.score ?? 0),
                                    landmarks: result.landmarks[i].map { [$0.x, $0.y, $0.z] },
                                    worldLandmarks: result.worldLandmarks[i].map { [$0.x, $0.y, $0.z] },
                                    id: result.ids.indices.contains(i) ? result.ids[i] : nil)
                })
            },
            overlay: HandOverlay.draw,
            detectorName: "palm detector")
        try MediaRun(options: input, task: task, drawing: landmarker.drawing).run()
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
    var id: Int? = nil
}

/// Hand drawing for `--overlay-dir` and `--overlay-video`: left hands blue, right hands orange; on video
/// frames the hand's ID written above it in the ID's colour.
enum HandOverlay {
    static let connections = HandSkeleton.connections.map { ($0.start, $0.end) }
    static let leftColor: (UInt8, UInt8, UInt8) = (40, 120, 255), rightColor: (UInt8, UInt8, UInt8) = (255, 140, 0)

    static func draw(_ result: HandLandmarkerResult, on image: Image) throws -> Image {
        var canvas = OverlayCanvas(pixels: image.pixels, width: image.width, height: image.height)
        let w = Double(image.width), h = Double(image.height)
        let thickness = max(2, Int(min(w, h) / 250))
        for (i, hand) in result.landmarks.enumerated() {
            let color = result.handedness[i].first?.categoryName == "Left" ? leftColor : rightColor
            canvas.skeleton(hand, connections: connections, thickness: thickness, color, joints: (thickness + 1, (255, 255, 255)))
            if result.ids.indices.contains(i) {
                canvas.label(result.ids[i], above: hand, imageWidth: w, imageHeight: h, scale: thickness)
            }
        }
        return try Image(rgb: canvas.pixels, width: image.width, height: image.height)
    }
}
