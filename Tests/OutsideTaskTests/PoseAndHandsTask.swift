// A task defined outside BlazeKit with its public API alone (`import BlazeKit`, no @testable, no engine
// module): "pose and hands in one call", run by BlazeKit's task shell in all three running modes.
import BlazeKit
import Foundation

/// Options of the composite task: the pose and hand counts, and a live-stream delegate.
final class PoseAndHandsOptions: TaskOptions {
    var numPoses = 1
    var numHands = 2
    weak var delegate: (any PoseAndHandsDelegate)?

    required init() {}

    override func copyOptions(from other: TaskOptions) {
        super.copyOptions(from: other)
        guard let other = other as? PoseAndHandsOptions else { return }
        (numPoses, numHands, delegate) = (other.numPoses, other.numHands, other.delegate)
    }

    override var taskSpecificOptions: (delegate: (name: String, object: AnyObject?), count: (name: String, value: Int),
                                       confidences: KeyValuePairs<String, Float>) {
        (("delegate", delegate), ("numHands", numHands), [:])
    }
}

/// What one image gives: MediaPipe's two results side by side.
struct PoseAndHandsResult: Sendable, Equatable {
    var pose: PoseLandmarkerResult
    var hands: HandLandmarkerResult
}

protocol PoseAndHandsDelegate: AnyObject {
    func poseAndHands(_ task: LandmarkerTask<PoseAndHandsDefinition>, didFinish result: PoseAndHandsResult?, timestampInMilliseconds: Int,
                      error: (any Error)?)
}

enum PoseAndHandsDefinition: TaskDefinition {
    /// The inner landmarkers load their own models.
    static func modelRoles(for options: PoseAndHandsOptions) -> [TaskModelRole] { [] }

    static func makePipeline(options: PoseAndHandsOptions, resources: TaskResources) throws -> PoseAndHandsPipeline {
        try PoseAndHandsPipeline(options: options, threadCount: resources.threadCount)
    }

    static func deliverLiveStreamResult(_ result: PoseAndHandsResult?, timestampInMilliseconds: Int, error: (any Error)?,
                                        task: LandmarkerTask<Self>, options: PoseAndHandsOptions) {
        options.delegate?.poseAndHands(task, didFinish: result, timestampInMilliseconds: timestampInMilliseconds, error: error)
    }
}

/// A pose landmarker and a hand landmarker, in `.image` mode for photos and `.video` mode for streams.
final class PoseAndHandsPipeline: TaskPipeline {
    private let pose: PoseLandmarker
    private let hands: HandLandmarker
    private let tracks: Bool

    init(options: PoseAndHandsOptions, threadCount: Int) throws {
        tracks = options.runningMode != .image
        let poseOptions = PoseLandmarkerOptions()
        poseOptions.numPoses = options.numPoses
        poseOptions.runningMode = tracks ? .video : .image
        poseOptions.baseOptions.threadCount = threadCount
        let handOptions = HandLandmarkerOptions()
        handOptions.numHands = options.numHands
        handOptions.runningMode = poseOptions.runningMode
        handOptions.baseOptions.threadCount = threadCount
        pose = try PoseLandmarker(options: poseOptions)
        hands = try HandLandmarker(options: handOptions)
    }

    func process(_ image: MPImage, timestampInMilliseconds: Int, tracking: Bool) throws -> PoseAndHandsResult {
        guard tracking else { return PoseAndHandsResult(pose: try pose.detect(image: image), hands: try hands.detect(image: image)) }
        return PoseAndHandsResult(pose: try pose.detect(videoFrame: image, timestampInMilliseconds: timestampInMilliseconds),
                                  hands: try hands.detect(videoFrame: image, timestampInMilliseconds: timestampInMilliseconds))
    }

    func resetTracking() {
        pose.resetTracking()
        hands.resetTracking()
    }

    var trackingStatistics: (frames: Int, detectorRuns: Int) {
        let (p, h) = (pose.trackingStatistics, hands.trackingStatistics)
        return (p.frames, p.detectorRuns + h.detectorRuns)
    }
}
