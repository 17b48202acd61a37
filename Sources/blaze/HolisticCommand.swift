import ArgumentParser
import BlazeKit
import Foundation

/// `blaze holistic`: one person's pose, both hands and the face mesh (MediaPipe's legacy Holistic graph), as
/// JSON Lines or a long CSV table.
struct HolisticCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "holistic",
        abstract: "Detect one person's pose, hands and face mesh in photos and videos (MediaPipe Holistic).",
        discussion: """
            Each photo gives a line {"image":NAME,"width":W,"height":H,"pose":{"landmarks":[[x,y,z,visibility,presence],…33],\
            "worldLandmarks":[[x,y,z,visibility,presence],…33]},"face":{"landmarks":[[x,y,z],…468]},"leftHand":\
            {"landmarks":[[x,y,z],…21],"worldLandmarks":[[x,y,z],…21]},"rightHand":{…}}: the results of \
            mp.solutions.holistic (mediapipe 0.10.14), x and y normalized to the displayed image (EXIF orientation \
            applied). A part not found is null (no pose: all four are null). "leftHand" is the person's left hand \
            (placed by pose landmarks 15, 17, 19). --refine-face gives 478 face points, the irises last. Each frame of \
            a video file is tracked as the legacy graph's video mode does (static_image_mode=False) and gives \
            {"video":NAME,"frame":"frame_00000","timestampMs":T,…}. An input that cannot be read gives \
            {"image":NAME,"error":MESSAGE} (for a damaged video, after the lines of the frames before the damage); \
            the others still run and the exit status is 1.

            --format csv writes a long table instead, the layout of Google's Isolated Sign Language Recognition \
            data: the header source,frame,timestamp_ms,part,index,x,y,z, then one row per landmark: source is the \
            video file's (or photo's) name, frame the frame's index from 0 (0 for a photo), timestamp_ms empty for a \
            photo; parts in the order face, left_hand, pose, right_hand. Every frame has the same 543 rows (553 with \
            --refine-face): a part not found has its rows with x, y, z NaN. Failures go to standard error, not into \
            the table. With --output-dir each input's table is <file name>.csv, each with the header.

            With --video --fps F the inputs are one video's frames; --raw WIDTHxHEIGHT reads RGB24 frames from \
            standard input. Batch: --output-dir, --resume, --inputs-from, --shard.
            """)

    @OptionGroup var input: InputOptions

    @Option(help: ArgumentHelp("The pose landmark model: full or lite (model_complexity 1 / 0), a converted pose landmark "
                               + "model (.bkm or .tflite, such as pose_landmark_heavy), or a directory of converted models."))
    var model = "full"
    @Flag(help: "The attention face mesh (refine_face_landmarks): 478 points, refined lips and eyes, the irises last.")
    var refineFace = false
    @Option(help: "Minimum pose detector score (min_detection_confidence).") var minDetectionConfidence: Float = 0.5
    @Option(help: ArgumentHelp("Minimum pose landmark presence score (min_tracking_confidence); below it a video's "
                               + "next frame runs the detector again."))
    var minTrackingConfidence: Float = 0.5
    @Flag(help: "Video: do not smooth the pose landmarks across frames (smooth_landmarks=False).") var noSmoothing = false
    @Option(help: "Write the person mask as <stem>.mask0.png into this directory (enable_segmentation).") var segmentationDir: String?
    @Flag(help: ArgumentHelp("With --segmentation-dir, video: do not blend each mask with the previous frame's "
                             + "(smooth_segmentation=False)."))
    var noSegmentationSmoothing = false
    @Option(help: "jsonl (one JSON object per photo or frame) or csv (one row per landmark).") var format: OutputFormat = .jsonl
    @OptionGroup var drawing: DrawingOptions

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case jsonl, csv
    }

    func validate() throws {
        if noSegmentationSmoothing, segmentationDir == nil {
            throw ValidationError("--no-segmentation-smoothing needs --segmentation-dir (it changes only the masks)")
        }
    }

    func run() throws {
        let options = HolisticLandmarkerOptions()
        if let builtin = LandmarkerCommandOptions.apply(model: model, to: options, input: input) {
            options.poseModel = builtin == "lite" ? .lite : .full
        }
        options.refineFaceLandmarks = refineFace
        options.minPoseDetectionConfidence = minDetectionConfidence
        options.minPoseLandmarksConfidence = minTrackingConfidence
        options.poseSmoothing.smoothLandmarks = !noSmoothing
        options.poseSmoothing.smoothSegmentation = !noSegmentationSmoothing
        options.shouldOutputPoseSegmentationMasks = segmentationDir != nil
        if let dir = segmentationDir { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        let task = CommandTask<HolisticLandmarkerDefinition>(
            options: options,
            record: HolisticRecord.init,
            table: format == .csv ? HolisticRecord.table(facePoints: refineFace ? 478 : 468) : nil,
            overlay: HolisticOverlay.draw,
            sideFiles: { [segmentationDir] result, source in
                try segmentationDir.map { try SegmentationFiles.write(result.poseSegmentationMask.map { [$0] } ?? [], stem: source.stem, into: $0) }
            },
            detectorName: "pose detector")
        try MediaRun(options: input, task: task, drawing: drawing).run()
    }
}

/// Drawing for `--overlay-dir` and `--overlay-video`, bottom to top: the pose skeleton in green (without its face
/// points when the face mesh is drawn), the face mesh
/// (tesselation thin and light grey, contours white, the eyes and irises green for the person's left and red
/// for the right, as MediaPipe's drawing styles colour them), the left hand blue and the right hand orange.
enum HolisticOverlay {
    /// The pose skeleton without its face points, indexed from landmark 11.
    static let bodyConnections = PoseOverlay.connections.filter { min($0.0, $0.1) >= 11 }.map { ($0.0 - 11, $0.1 - 11) }

    static func draw(_ result: HolisticLandmarkerResult, on image: Image) throws -> Image {
        var canvas = OverlayCanvas(pixels: image.pixels, width: image.width, height: image.height)
        let side = Double(min(image.width, image.height))
        let face = result.faceLandmarks, line = max(1, Int(side / 400))
        let (green, red): ((UInt8, UInt8, UInt8), (UInt8, UInt8, UInt8)) = ((48, 255, 48), (255, 48, 48))
        let poseThickness = max(2, Int(side / 200)), handThickness = max(2, Int(side / 250))
        // With a face mesh, the pose's eleven face points (0–10) are left out: the mesh shows the face.
        let (pose, connections) = face.isEmpty ? (result.poseLandmarks, PoseOverlay.connections)
            : (Array(result.poseLandmarks.dropFirst(11)), bodyConnections)
        canvas.skeleton(pose, connections: connections, thickness: poseThickness, (0, 255, 0), joints: (poseThickness + 1, red))
        canvas.skeleton(face, connections: FaceMeshConnections.tesselation, thickness: 1, (176, 176, 176))
        canvas.skeleton(face, connections: FaceMeshConnections.faceOval + FaceMeshConnections.lips, thickness: line, (255, 255, 255))
        canvas.skeleton(face, connections: FaceMeshConnections.leftEye + FaceMeshConnections.leftEyebrow + FaceMeshConnections.leftIris,
                        thickness: line, green)
        canvas.skeleton(face, connections: FaceMeshConnections.rightEye + FaceMeshConnections.rightEyebrow + FaceMeshConnections.rightIris,
                        thickness: line, red)
        for (hand, color) in [(result.leftHandLandmarks, HandOverlay.leftColor), (result.rightHandLandmarks, HandOverlay.rightColor)] {
            canvas.skeleton(hand, connections: HandOverlay.connections, thickness: handThickness, color, joints: (max(1, handThickness / 2), (255, 255, 255)))
        }
        return try Image(rgb: canvas.pixels, width: image.width, height: image.height)
    }
}
