import BlazeImage
import BlazeRuntime
import BlazeStages
import BlazeTracking
import Foundation

/// A detector stage as the task shell uses it: detections in an image, then landmark regions from them.
/// ``PoseDetectorStage`` and ``PalmDetectorStage`` have exactly this shape.
protocol RegionDetector {
    func detect(in image: Image, rect: NormalizedRect, minScore: Float) throws -> [Detection]
    func regionsOfInterest(for detections: [Detection], imageWidth: Int, imageHeight: Int) -> [NormalizedRect]
}

extension PoseDetectorStage: RegionDetector {}
extension PalmDetectorStage: RegionDetector {}

/// A tracker as the task shell uses it: this frame's regions (running the detector only when it must),
/// counters, and a reset. ``PoseTracker`` and ``HandTracker`` have exactly this shape.
protocol RegionTracker {
    var frameCount: Int { get }
    var detectorRunCount: Int { get }
    mutating func reset()
    mutating func regionsOfInterest(detect: () throws -> [NormalizedRect]) rethrows -> [NormalizedRect]
}

extension PoseTracker: RegionTracker {}
extension HandTracker: RegionTracker {}

/// What differs between the landmark tasks: their detector, tracker and landmark stage. Everything else
/// (option and mode checks, timestamps, the live-stream scheduler, locking, orientation) is
/// ``VisionTaskRunner``'s.
protocol LandmarkPipeline: AnyObject {
    associatedtype Detector: RegionDetector
    associatedtype Tracker: RegionTracker
    associatedtype Output: Sendable

    var detector: Detector { get }
    var tracker: Tracker { get set }
    /// The detector's minimum score and how many regions it may hand on (`numPoses`, `numHands`).
    var detection: (minScore: Float, maxCount: Int) { get }
    /// The planned networks, for ``LandmarkerTask/setIdleWork(_:)``.
    var sessions: [InferenceSession] { get }

    /// Runs the landmark network on each region of the upright `image` and assembles the result;
    /// `tracking` (video and live stream) also ends the tracker's frame.
    func landmarks(in image: Image, regions: [NormalizedRect], timestamp: Int, tracking: Bool) throws -> Output
}

/// A pipeline and the lock that serializes its calls. Owned by a ``VisionTaskRunner`` and captured by its
/// live-stream scheduler (which therefore never keeps the runner itself alive).
final class LockedPipeline<Pipeline: LandmarkPipeline>: @unchecked Sendable {
    private let pipeline: Pipeline
    private let lock = NSLock()

    init(_ pipeline: Pipeline) { self.pipeline = pipeline }

    /// One image through detector (or tracker), landmark network and result assembly.
    func process(_ input: Image, timestamp: Int, tracking: Bool) throws -> Pipeline.Output {
        let image = try TaskOptionChecks.displayed(input)
        lock.lock()
        defer { lock.unlock() }
        let detect = { [pipeline] () throws -> [NormalizedRect] in
            let (minScore, maxCount) = pipeline.detection
            let detections = try pipeline.detector.detect(in: image, rect: .fullImage, minScore: minScore)
            return pipeline.detector.regionsOfInterest(for: Array(detections.prefix(maxCount)),
                                                       imageWidth: image.width, imageHeight: image.height)
        }
        let regions = tracking ? try pipeline.tracker.regionsOfInterest(detect: detect) : try detect()
        return try pipeline.landmarks(in: image, regions: regions, timestamp: timestamp, tracking: tracking)
    }

    var statistics: (frames: Int, detectorRuns: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (pipeline.tracker.frameCount, pipeline.tracker.detectorRunCount)
    }

    func resetTracking() {
        lock.lock()
        pipeline.tracker.reset()
        lock.unlock()
    }

    /// Needs no lock: the sessions are fixed and their worker pools guard the idle work themselves.
    func setIdleWork(_ work: (@Sendable () -> Bool)?) {
        for session in pipeline.sessions { session.setIdleWork(work) }
    }
}

/// The running-mode machinery every landmark task shares, MediaPipe's task runner in miniature
/// (`mediapipe/tasks/cc/core/task_runner.cc`, `mediapipe/tasks/cc/vision/core/base_vision_task_api.h`):
/// each detect method checks the task's running mode, video and live-stream timestamps must increase
/// strictly, live-stream frames go through a ``LiveStreamScheduler``, and tracking can be reset.
/// ``PoseLandmarker`` and ``HandLandmarker`` are typed wrappers around one.
final class VisionTaskRunner<Pipeline: LandmarkPipeline>: TaskRunning, @unchecked Sendable {
    let runningMode: RunningMode
    private let pipeline: LockedPipeline<Pipeline>
    private let timestamps = TimestampGate()
    private var liveStream: LiveStreamScheduler?

    init(runningMode: RunningMode, pipeline: Pipeline) {
        self.runningMode = runningMode
        self.pipeline = LockedPipeline(pipeline)
    }

    deinit { liveStream?.close() }

    /// In `.liveStream` mode, starts the scheduler. Each processed frame's outcome is handed to `deliver`
    /// on the callback queue, with the task, held weakly: nothing is delivered once the task is gone.
    func startLiveStream(label: String, task: AnyObject,
                         deliver: @escaping @Sendable (AnyObject, Pipeline.Output?, Int, (any Error)?) -> Void) {
        guard runningMode == .liveStream else { return }
        let pipeline = self.pipeline
        let task = WeakReference(task)
        liveStream = LiveStreamScheduler(label: label) { frame, callbackQueue in
            let outcome = Result { try pipeline.process(frame.image, timestamp: frame.timestamp, tracking: true) }
            callbackQueue.async {
                guard let task = task.value else { return }
                deliver(task, try? outcome.get(), frame.timestamp, outcome.failureError)
            }
        }
    }

    func detect(image: Image) throws -> Pipeline.Output {
        try TaskOptionChecks.mode(runningMode, .image, method: "detect(image:)")
        return try pipeline.process(image, timestamp: 0, tracking: false)
    }

    func detect(videoFrame image: Image, timestampInMilliseconds: Int) throws -> Pipeline.Output {
        let method = "detect(videoFrame:timestampInMilliseconds:)"
        try TaskOptionChecks.mode(runningMode, .video, method: method)
        try timestamps.accept(timestampInMilliseconds, method: method)
        return try pipeline.process(image, timestamp: timestampInMilliseconds, tracking: true)
    }

    func detectAsync(image: Image, timestampInMilliseconds: Int) throws {
        let method = "detectAsync(image:timestampInMilliseconds:)"
        try TaskOptionChecks.mode(runningMode, .liveStream, method: method)
        try timestamps.accept(timestampInMilliseconds, method: method)
        liveStream?.submit(.init(image: image, timestamp: timestampInMilliseconds))
    }

    var trackingStatistics: (frames: Int, detectorRuns: Int) { pipeline.statistics }

    func resetTracking() { pipeline.resetTracking() }

    func setIdleWork(_ work: (@Sendable () -> Bool)?) { pipeline.setIdleWork(work) }
}

/// A ``VisionTaskRunner`` seen through its output type only, so ``LandmarkerTask`` can hold one without
/// naming its pipeline.
protocol TaskRunning<Output>: AnyObject, Sendable {
    associatedtype Output: Sendable
    func detect(image: Image) throws -> Output
    func detect(videoFrame image: Image, timestampInMilliseconds: Int) throws -> Output
    func detectAsync(image: Image, timestampInMilliseconds: Int) throws
    var trackingStatistics: (frames: Int, detectorRuns: Int) { get }
    func resetTracking()
    func setIdleWork(_ work: (@Sendable () -> Bool)?)
    func startLiveStream(label: String, task: AnyObject, deliver: @escaping @Sendable (AnyObject, Output?, Int, (any Error)?) -> Void)
}

/// The one task shell behind every landmarker: ``PoseLandmarker`` is a
/// `LandmarkerTask<PoseLandmarkerOptions, PoseLandmarkerResult>` and ``HandLandmarker`` a
/// `LandmarkerTask<HandLandmarkerOptions, HandLandmarkerResult>`, each adding nothing but its name; their
/// initializers and methods, with MediaPipe Tasks' names, are all here. Create the named subclasses.
///
/// - `.image`: ``detect(image:)``; the detector runs on every photo, nothing is remembered.
/// - `.video`: ``detect(videoFrame:timestampInMilliseconds:)`` with strictly increasing timestamps; the
///   task tracks its subjects from frame to frame and runs the detector only when it tracks fewer than
///   it may return.
/// - `.liveStream`: ``detectAsync(image:timestampInMilliseconds:)`` returns at once and the result goes to
///   the options' live-stream delegate. While a frame is processed, a newer frame replaces the one
///   waiting, which is dropped without a callback.
///
/// A method of another running mode than the task's throws ``TaskError/runningModeMismatch(method:expected:actual:)``;
/// a timestamp that does not increase throws ``TaskError/nonIncreasingTimestamp(method:previous:actual:)``.
/// Calls on one task are serialized; separate tasks run concurrently, and N tasks on N threads give exactly
/// the results they give one at a time. A thread inside a detect method keeps its task alive, so another
/// thread may drop its own reference meanwhile. Releasing a live-stream task's last reference blocks that
/// thread until the frame being processed finishes; that frame and the one waiting get no callback, and
/// none starts after the release returns. A delegate may drop the last reference inside its own callback:
/// the task is then freed on its callback queue when the callback returns.
public class LandmarkerTask<Options: TaskOptions, Result: Sendable>: @unchecked Sendable {
    private let createdWith: Options
    private let runner: any TaskRunning<Result>

    /// A task for the model at `modelPath` (an official MediaPipe `.task` bundle, a directory of converted
    /// models, or a converted landmark model used with the built-in detector), with default options.
    public convenience init(modelPath: String) throws {
        try self.init(options: .withModelAssetPath(modelPath))
    }

    /// Copies and validates `options`, loads the models and plans both networks. In `.liveStream` mode it
    /// starts the task's serial queue, which calls the options' delegate.
    public init(options: Options) throws {
        let options = options.copy()
        try options.validate()
        guard type(of: self) != LandmarkerTask.self else {
            throw TaskError.invalidOption(name: "options", expected: "a PoseLandmarker or HandLandmarker to create", actual: "\(Self.self)")
        }
        guard let runner = try Self.makeRunner(options) as? any TaskRunning<Result> else {
            throw TaskError.invalidOption(name: "options", expected: "options of a task whose result is \(Result.self)",
                                          actual: "\(Options.self)")
        }
        createdWith = options
        self.runner = runner
        runner.startLiveStream(label: "BlazeKit.\(type(of: self))", task: self) { task, result, timestamp, error in
            guard let task = task as? LandmarkerTask else { return }
            Self.deliver(result, from: task, to: task.createdWith, timestampInMilliseconds: timestamp, error: error)
        }
    }

    /// Each task's pipeline and running-mode machinery, chosen by its options' type: the one place that
    /// names every landmark task.
    private static func makeRunner(_ options: Options) throws -> AnyObject {
        switch options {
        case let options as PoseLandmarkerOptions: return VisionTaskRunner(runningMode: options.runningMode, pipeline: try PosePipeline(options: options))
        case let options as HandLandmarkerOptions: return VisionTaskRunner(runningMode: options.runningMode, pipeline: try HandPipeline(options: options))
        default: throw TaskError.invalidOption(name: "options", expected: "PoseLandmarkerOptions or HandLandmarkerOptions", actual: "\(Options.self)")
        }
    }

    /// Hands one processed live-stream frame to the delegate, with the task's own protocol.
    private static func deliver(_ result: Result?, from task: LandmarkerTask, to options: Options, timestampInMilliseconds: Int,
                                error: (any Error)?) {
        switch (task, options, result) {
        case let (task as PoseLandmarker, options as PoseLandmarkerOptions, result as PoseLandmarkerResult?):
            options.poseLandmarkerLiveStreamDelegate?.poseLandmarker(task, didFinishDetection: result,
                                                                     timestampInMilliseconds: timestampInMilliseconds, error: error)
        case let (task as HandLandmarker, options as HandLandmarkerOptions, result as HandLandmarkerResult?):
            options.handLandmarkerLiveStreamDelegate?.handLandmarker(task, didFinishDetection: result,
                                                                     timestampInMilliseconds: timestampInMilliseconds, error: error)
        default: break
        }
    }

    /// A copy of the validated options the task was created with (changing it changes nothing).
    public var options: Options { createdWith.copy() }

    /// Finds what the task looks for in a photo (running mode `.image`).
    public func detect(image: MPImage) throws -> Result { try runner.detect(image: image) }

    /// Finds it in the next frame of a video (running mode `.video`), tracking from the previous frame.
    /// Timestamps must increase strictly.
    public func detect(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> Result {
        try runner.detect(videoFrame: image, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Queues a camera frame (running mode `.liveStream`) and returns at once; the result goes to the
    /// options' live-stream delegate. Timestamps must increase strictly.
    public func detectAsync(image: MPImage, timestampInMilliseconds: Int) throws {
        try runner.detectAsync(image: image, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// How many frames ran the detector, of how many processed (video and live stream).
    public var trackingStatistics: (frames: Int, detectorRuns: Int) { runner.trackingStatistics }

    /// Forgets what is tracked (and any smoothing state), so the next frame starts a new stream;
    /// timestamps must still increase.
    public func resetTracking() { runner.resetTracking() }

    /// Work the task's worker threads (`baseOptions.threadCount` − 1 of them) take up while it has nothing for
    /// them, typically decoding the next frames of the video it tracks; nil removes it. A BlazeKit addition,
    /// for machines whose cores all run the task:
    ///
    /// ```swift
    /// var readerOptions = VideoFileReader.Options()
    /// readerOptions.decodesAhead = .onIdleWorkers
    /// readerOptions.decodeThreads = 1
    /// let reader = try VideoFileReader(path: "clip.mp4", options: readerOptions)
    /// landmarker.setIdleWork(reader.decodeAheadWork)
    /// defer { landmarker.setIdleWork(nil) }
    /// while let frame = try reader.nextFrame() { … }
    /// ```
    ///
    /// A decoder on threads of its own competes with the workers for the cores; as idle work it runs in
    /// their gaps instead. `work` returns whether it did something; it is called on one worker at a time and
    /// should return false at once when it has nothing to do. Results do not depend on it. When this call
    /// returns, a previous work is no longer running and is never called again. With one thread there are no
    /// workers, and `work` is never called.
    public func setIdleWork(_ work: (@Sendable () -> Bool)?) { runner.setIdleWork(work) }
}
