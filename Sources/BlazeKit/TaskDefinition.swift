import BlazeKernels
import BlazeModelFormat
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a vision task is: its options, its result, the models it runs, how its pipeline is built and how a
/// live-stream result reaches its delegate. ``LandmarkerTask`` runs any definition in the three running
/// modes (checks, timestamps, live-stream scheduling, locking and orientation are the shell's), so a new
/// task is a definition, its options and result types, and a pipeline — no switch on concrete types
/// anywhere. ``PoseLandmarker`` is `LandmarkerTask<PoseLandmarkerDefinition>`; a package outside BlazeKit
/// defines its own the same way:
///
/// ```swift
/// enum PoseAndHandsDefinition: TaskDefinition {
///     static func modelRoles(for options: PoseAndHandsOptions) -> [TaskModelRole] { [] }   // it runs two landmarkers
///     static func makePipeline(options: PoseAndHandsOptions, resources: TaskResources) throws -> PoseAndHandsPipeline { … }
///     static func deliverLiveStreamResult(_ result: PoseAndHandsResult?, timestampInMilliseconds: Int, error: (any Error)?,
///                                         task: LandmarkerTask<Self>, options: PoseAndHandsOptions) {
///         options.delegate?.didFinish(result, timestampInMilliseconds, error)
///     }
/// }
/// let task = try LandmarkerTask<PoseAndHandsDefinition>(options: options)
/// ```
public protocol TaskDefinition: SendableMetatype {
    /// The task's options (a ``TaskOptions`` subclass: base options, running mode and the task's own).
    associatedtype Options: TaskOptions
    /// What one image gives.
    associatedtype Result: Sendable
    /// The task's networks and per-stream state.
    associatedtype Pipeline: TaskPipeline where Pipeline.Result == Result

    /// The models the task runs for `options`, by role. The shell resolves each from
    /// `options.baseOptions.modelAssetPath` (see ``TaskModelRole``) before ``makePipeline(options:resources:)``.
    static func modelRoles(for options: Options) -> [TaskModelRole]

    /// Builds the pipeline from validated `options` and the resolved models and worker threads.
    static func makePipeline(options: Options, resources: TaskResources) throws -> Pipeline

    /// Hands one processed live-stream frame to the options' delegate, on the task's callback queue
    /// (serial, in timestamp order): `result` nil when `error` is set.
    static func deliverLiveStreamResult(_ result: Result?, timestampInMilliseconds: Int, error: (any Error)?,
                                        task: LandmarkerTask<Self>, options: Options)
}

/// A task's networks and per-stream state, driven by ``LandmarkerTask``: one call per image, never two at once.
public protocol TaskPipeline<Result>: AnyObject {
    associatedtype Result: Sendable

    /// The result for one upright image (the shell has applied its orientation). `tracking` is true in video
    /// and live-stream mode, where images are one stream's frames in increasing timestamp order; false in
    /// image mode (timestamp 0), where nothing may be remembered from one image to the next.
    func process(_ image: MPImage, timestampInMilliseconds: Int, tracking: Bool) throws -> Result

    /// Forgets what is tracked, so the next frame starts a new stream. Default: nothing to forget.
    func resetTracking()

    /// How many frames ran the detector, of how many processed. Default: (0, 0).
    var trackingStatistics: (frames: Int, detectorRuns: Int) { get }

    /// Work for the pipeline's idle worker threads (see ``LandmarkerTask/setIdleWork(_:)``). Default: none run.
    func setIdleWork(_ work: (@Sendable () -> Bool)?)
}

extension TaskPipeline {
    public func resetTracking() {}
    public var trackingStatistics: (frames: Int, detectorRuns: Int) { (0, 0) }
    public func setIdleWork(_ work: (@Sendable () -> Bool)?) {}
}

/// One model a task runs: its role, the built-in network used by default, and its entry in a MediaPipe
/// `.task` bundle.
///
/// How `baseOptions.modelAssetPath` maps to the roles:
/// - nil: each role's built-in model;
/// - a directory: each role's built-in file name inside it (for example `pose_detection.bkm`);
/// - a MediaPipe `.task` bundle: each role's bundle entry, converted in memory;
/// - any other file: the role marked ``isUserReplaceable`` (the landmark network) is that converted model,
///   the others built in.
public struct TaskModelRole: Sendable, Hashable {
    /// The role's name, the key in ``TaskResources/models``: for example "detector" or "landmarks".
    public var name: String
    /// The network used when the options name no model.
    public var builtin: BuiltinModel
    /// The model's entry in MediaPipe's `.task` bundles, without `.tflite`.
    public var taskBundleEntry: String
    /// Whether a single model file given as `modelAssetPath` replaces this role.
    public var isUserReplaceable: Bool

    public init(name: String, builtin: BuiltinModel, taskBundleEntry: String? = nil, isUserReplaceable: Bool = false) {
        self.name = name
        self.builtin = builtin
        self.taskBundleEntry = taskBundleEntry ?? builtin.taskBundleEntryName
        self.isUserReplaceable = isUserReplaceable
    }
}

/// What the shell hands a definition to build its pipeline with.
public struct TaskResources {
    /// The loaded model of each role, by ``TaskModelRole/name``. Tasks built on the engine read them with
    /// `import BlazeModelFormat` and run them with `import BlazeStages` or `import BlazeRuntime`.
    public let models: [String: ModelFile]
    /// The task's worker threads: every network of one pipeline runs on this one pool, so
    /// `baseOptions.threadCount` N means N threads in all, the caller's included.
    public let workers: WorkerPool
    /// `baseOptions.threadCount`.
    public var threadCount: Int { workers.threadCount }
    /// `baseOptions.kernelPlanning`: how each network the pipeline plans picks its kernels (pass it to every
    /// stage, e.g. `PoseDetectorStage(model:workers:planning:)`).
    public let planning: Planning

    /// The model of the role named `role`; throws ``TaskError/modelNotFound(path:reason:)`` when the
    /// definition did not ask for it.
    public func model(_ role: String) throws -> ModelFile {
        guard let model = models[role] else {
            throw TaskError.modelNotFound(path: role, reason: "no model of this role was resolved; roles: \(models.keys.sorted())")
        }
        return model
    }
}

/// One of several pipelines a task may run, chosen when it is made (MediaPipe's, or an accurate mode's):
/// what ``TaskDefinition/makePipeline(options:resources:)`` returns when the choice depends on the options.
///
/// In video and live-stream mode it also gives the result's subjects their IDs, when made with identities.
public final class TaskPipelineChoice<Result: Sendable>: TaskPipeline {
    private let pipeline: any TaskPipeline<Result>
    /// Sets a tracked result's IDs from an image of (width, height); forgets the tracks.
    private let identities: (assign: (inout Result, Int, Int) -> Void, reset: () -> Void)?

    init(_ pipeline: any TaskPipeline<Result>) {
        self.pipeline = pipeline
        identities = nil
    }

    init(_ pipeline: any TaskPipeline<Result>, identities: ResultIdentities<Result>) where Result: IdentifiedResult {
        self.pipeline = pipeline
        self.identities = ({ identities.assign(&$0, imageWidth: $1, imageHeight: $2) }, identities.reset)
    }

    public func process(_ image: MPImage, timestampInMilliseconds: Int, tracking: Bool) throws -> Result {
        var result = try pipeline.process(image, timestampInMilliseconds: timestampInMilliseconds, tracking: tracking)
        if tracking, let identities { identities.assign(&result, image.width, image.height) }
        return result
    }
    public func resetTracking() {
        pipeline.resetTracking()
        identities?.reset()
    }
    public var trackingStatistics: (frames: Int, detectorRuns: Int) { pipeline.trackingStatistics }
    public func setIdleWork(_ work: (@Sendable () -> Bool)?) { pipeline.setIdleWork(work) }
}
