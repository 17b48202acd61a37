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
    @Option(help: "Write each photo (or video frame) with its results drawn as <stem>.overlay.png into this directory.")
    var overlayDir: String?
    @Option(help: ArgumentHelp("Write the input video with the results drawn on every frame (H.264 MP4, the input's size, "
                               + "frame rate and timestamps). Needs exactly one video file input.", valueName: "PATH"))
    var overlayVideo: String?

    /// Sets the model path (for anything but full and lite) and the thread count of `options`; returns
    /// "full" or "lite" when the model is a built-in one, for the task's own model option.
    func apply(to options: TaskOptions, threads: Int) -> String? {
        options.baseOptions.threadCount = threads
        if model == "full" || model == "lite" { return model }
        options.baseOptions.modelAssetPath = model
        return nil
    }
}
