import BlazeImage
import BlazeKernels
import BlazeRuntime
import BlazeStages
import BlazeTracking
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

/// The shape of BlazeKit's own landmark pipelines: a detector finds regions (in video, a tracker carries
/// them from frame to frame and calls the detector only when it must), and a landmark stage turns each
/// region into the result. Conforming gives the ``TaskPipeline`` methods.
protocol LandmarkPipeline: TaskPipeline {
    associatedtype Detector: RegionDetector
    associatedtype Tracker: RegionTracker

    var detector: Detector { get }
    var tracker: Tracker { get set }
    /// The detector's minimum score and how many regions it may hand on (`numPoses`, `numHands`).
    var detection: (minScore: Float, maxCount: Int) { get }
    /// The worker pool the pipeline's networks share, for ``LandmarkerTask/setIdleWork(_:)``.
    var workers: WorkerPool { get }

    /// Runs the landmark network on each region of the upright `image` and assembles the result;
    /// `tracking` (video and live stream) also ends the tracker's frame.
    func landmarks(in image: Image, regions: [NormalizedRect], timestamp: Int, tracking: Bool) throws -> Result
}

extension LandmarkPipeline {
    /// One image through detector (or tracker), landmark network and result assembly.
    func process(_ image: MPImage, timestampInMilliseconds: Int, tracking: Bool) throws -> Result {
        let detect = { [self] () throws -> [NormalizedRect] in
            let (minScore, maxCount) = detection
            let detections = try detector.detect(in: image, rect: .fullImage, minScore: minScore)
            return detector.regionsOfInterest(for: Array(detections.prefix(maxCount)), imageWidth: image.width, imageHeight: image.height)
        }
        let regions = tracking ? try tracker.regionsOfInterest(detect: detect) : try detect()
        return try landmarks(in: image, regions: regions, timestamp: timestampInMilliseconds, tracking: tracking)
    }

    func resetTracking() { tracker.reset() }

    var trackingStatistics: (frames: Int, detectorRuns: Int) { (tracker.frameCount, tracker.detectorRunCount) }

    func setIdleWork(_ work: (@Sendable () -> Bool)?) { workers.setIdleWork(work) }
}

/// A pipeline and the lock that serializes its calls. Owned by a ``LandmarkerTask`` and captured by its
/// live-stream scheduler (which therefore never keeps the task itself alive).
final class LockedPipeline<Pipeline: TaskPipeline>: @unchecked Sendable {
    private let pipeline: Pipeline
    private let lock = MutexLock()

    init(_ pipeline: Pipeline) { self.pipeline = pipeline }

    /// One image, turned upright first.
    func process(_ input: Image, timestamp: Int, tracking: Bool) throws -> Pipeline.Result {
        let image = try TaskOptionChecks.displayed(input)
        lock.lock()
        defer { lock.unlock() }
        return try pipeline.process(image, timestampInMilliseconds: timestamp, tracking: tracking)
    }

    var statistics: (frames: Int, detectorRuns: Int) {
        lock.lock()
        defer { lock.unlock() }
        return pipeline.trackingStatistics
    }

    func resetTracking() {
        lock.lock()
        pipeline.resetTracking()
        lock.unlock()
    }

    /// Needs no lock: the worker pool guards its idle work itself.
    func setIdleWork(_ work: (@Sendable () -> Bool)?) { pipeline.setIdleWork(work) }
}

/// The one task shell, MediaPipe's task runner in miniature (`mediapipe/tasks/cc/core/task_runner.cc`,
/// `mediapipe/tasks/cc/vision/core/base_vision_task_api.h`): it runs any ``TaskDefinition`` in the three
/// running modes. ``PoseLandmarker`` is a `LandmarkerTask<PoseLandmarkerDefinition>` and ``HandLandmarker``
/// a `LandmarkerTask<HandLandmarkerDefinition>`, each adding nothing but its name; their initializers and
/// methods, with MediaPipe Tasks' names, are all here. A task of another package is a `LandmarkerTask` of its
/// own definition, used as it is or through a subclass that names it.
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
open class LandmarkerTask<Definition: TaskDefinition>: @unchecked Sendable {
    public typealias Options = Definition.Options
    public typealias Result = Definition.Result

    private let createdWith: Options
    /// The running mode the task was created with.
    public let runningMode: RunningMode
    private let pipeline: LockedPipeline<Definition.Pipeline>
    private let timestamps = IncreasingTimestamps()
    private var liveStream: LiveStreamScheduler?

    /// A task for the model at `modelPath` (an official MediaPipe `.task` bundle, a directory of converted
    /// models, or a converted landmark model used with the built-in detector), with default options.
    public convenience init(modelPath: String) throws {
        try self.init(options: .withModelAssetPath(modelPath))
    }

    /// Copies and validates `options`, loads the models and plans the networks (as `baseOptions.kernelPlanning`
    /// says) on one worker pool of `baseOptions.threadCount` threads. In `.liveStream` mode it starts the task's serial queue, which
    /// calls the options' delegate.
    public init(options: Options) throws {
        let options = options.copy()
        try options.validate()
        let models = try TaskModelLocator.locate(options, roles: Definition.modelRoles(for: options))
        let workers = WorkerPool(threadCount: options.baseOptions.threadCount)
        createdWith = options
        runningMode = options.runningMode
        let resources = TaskResources(models: models, workers: workers, planning: options.baseOptions.kernelPlanning)
        pipeline = LockedPipeline(try Definition.makePipeline(options: options, resources: resources))
        guard runningMode == .liveStream else { return }
        let pipeline = self.pipeline
        let task = WeakReference(self)
        liveStream = LiveStreamScheduler(label: "BlazeKit.\(type(of: self))") { frame, callbackQueue in
            let outcome = Swift.Result { try pipeline.process(frame.image, timestamp: frame.timestamp, tracking: true) }
            callbackQueue.async {
                guard let task = task.value else { return }
                Definition.deliverLiveStreamResult(try? outcome.get(), timestampInMilliseconds: frame.timestamp,
                                                   error: outcome.failureError, task: task, options: task.createdWith)
            }
        }
    }

    deinit { liveStream?.close() }

    /// A copy of the validated options the task was created with (changing it changes nothing).
    public var options: Options { createdWith.copy() }

    /// Finds what the task looks for in a photo (running mode `.image`).
    public func detect(image: MPImage) throws -> Result {
        try TaskOptionChecks.mode(runningMode, .image, method: "detect(image:)")
        return try pipeline.process(image, timestamp: 0, tracking: false)
    }

    /// Finds it in the next frame of a video (running mode `.video`), tracking from the previous frame.
    /// Timestamps must increase strictly.
    public func detect(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> Result {
        let method = "detect(videoFrame:timestampInMilliseconds:)"
        try TaskOptionChecks.mode(runningMode, .video, method: method)
        try timestamps.accept(timestampInMilliseconds, method: method)
        return try pipeline.process(image, timestamp: timestampInMilliseconds, tracking: true)
    }

    /// Queues a camera frame (running mode `.liveStream`) and returns at once; the result goes to the
    /// options' live-stream delegate. Timestamps must increase strictly.
    public func detectAsync(image: MPImage, timestampInMilliseconds: Int) throws {
        let method = "detectAsync(image:timestampInMilliseconds:)"
        try TaskOptionChecks.mode(runningMode, .liveStream, method: method)
        try timestamps.accept(timestampInMilliseconds, method: method)
        liveStream?.submit(.init(image: image, timestamp: timestampInMilliseconds))
    }

    /// How many frames ran the detector, of how many processed (video and live stream).
    public var trackingStatistics: (frames: Int, detectorRuns: Int) { pipeline.statistics }

    /// Forgets what is tracked (and any smoothing state), so the next frame starts a new stream;
    /// timestamps must still increase.
    public func resetTracking() { pipeline.resetTracking() }

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
    public func setIdleWork(_ work: (@Sendable () -> Bool)?) { pipeline.setIdleWork(work) }
}
