import ArgumentParser
import BlazeKit

/// The options `blaze pose` and `blaze hand` share: which model, the detector, presence and tracking thresholds,
/// and the drawn outputs.
struct LandmarkerCommandOptions: ParsableArguments {
    @Option(help: ArgumentHelp("full, lite, a converted landmark model (.bkm), a directory of converted models, or an "
                               + "official MediaPipe .task bundle (pose_landmarker_*.task, hand_landmarker.task)."))
    var model = "full"
    @Option(help: "Minimum detector score (pose detector, palm detector).") var minDetectionConfidence: Float = 0.5
    @Option(help: "Minimum presence score of the landmark model.") var minPresenceConfidence: Float = 0.5
    @Option(help: "Minimum tracking IoU (video and live stream).") var minTrackingConfidence: Float = 0.5
    @OptionGroup var drawing: DrawingOptions

    @Option(help: ArgumentHelp("Video: frames a person or hand may go unseen and keep its \"id\" (BlazeKit's identities).",
                               valueName: "FRAMES"))
    var maxAbsentFrames = IdentityOptions().maxAbsentFrames
    @Option(help: ArgumentHelp("Video: the lowest similarity (0-1) at which a pose or hand continues an \"id\".", valueName: "S"))
    var minIdSimilarity = IdentityOptions().minSimilarity

    /// The identity options these flags give (handedness voting is `blaze hand`'s own flag).
    var identity: IdentityOptions { IdentityOptions(maxAbsentFrames: maxAbsentFrames, minSimilarity: minIdSimilarity) }

    /// Sets the model path (for anything but full and lite) of `options`, and its threads and kernel planning
    /// as `input` says; returns "full" or "lite" when the model is a built-in one, for the task's own model option.
    func apply(to options: TaskOptions, input: InputOptions) -> String? {
        Self.apply(model: model, to: options, input: input)
    }

    /// ``apply(to:input:)`` for a `--model` value of any command.
    static func apply(model: String, to options: TaskOptions, input: InputOptions) -> String? {
        input.apply(to: options.baseOptions)
        if model == "full" || model == "lite" { return model }
        options.baseOptions.modelAssetPath = model
        return nil
    }
}

/// The drawn outputs every landmark command offers: overlay images and an overlay video.
struct DrawingOptions: ParsableArguments {
    @Option(help: "Write each photo (or video frame) with its results drawn as <stem>.overlay.png into this directory.")
    var overlayDir: String?
    @Option(help: ArgumentHelp("Write the input video with the results drawn on every frame (H.264 MP4, the input's size, "
                               + "frame rate and timestamps). Needs exactly one video file input.", valueName: "PATH"))
    var overlayVideo: String?
}
