// Re-exported, so a port changes one import: `Image`, `MPImage` and the landmarkers come with this module.
@_exported import BlazeKit
import Foundation

/// How images reach a ``PoseDetector`` (ML Kit's `PoseDetectorMode`).
public enum PoseDetectorMode: Sendable, Equatable {
    /// Frames of one stream: the most prominent person is found once, then tracked from frame to frame,
    /// and the person detector runs again only when tracking is lost. Lower latency, smoothed output.
    /// BlazeKit's `PoseLandmarker` in video mode.
    case stream
    /// Unrelated images: the person detector runs on every image and nothing is tracked.
    /// BlazeKit's `PoseLandmarker` in image mode.
    case singleImage
}

/// The options both pose detectors share (ML Kit's `CommonPoseDetectorOptions`).
///
/// A class, as in ML Kit, so the guide's `let options = PoseDetectorOptions(); options.detectorMode = …`
/// compiles. Not `Sendable`: set it up on one thread, then pass it to ``PoseDetector/poseDetector(options:)``,
/// which copies what it needs.
public class CommonPoseDetectorOptions {
    /// How images arrive; ``PoseDetectorMode/stream`` by default, as in ML Kit.
    public var detectorMode: PoseDetectorMode = .stream
    /// Threads per inference, 1…64 (BlazeKit's `BaseOptions.threadCount`; ML Kit has no such option and
    /// picks for itself). 1 by default.
    public var threadCount = 1
    /// How the networks pick their kernels when the detector is made (BlazeKit's `BaseOptions.kernelPlanning`;
    /// not in ML Kit): `.measured` (the default) times the candidates, `.fixed` follows fixed rules. The
    /// results are the same either way.
    public var kernelPlanning: Planning = .measured
    /// BlazeKit's accurate mode (`PoseAccurateMode`; ML Kit has no such option): finds people too small,
    /// turned or crowded for MediaPipe's detector, at a higher cost. nil (the default) gives MediaPipe's
    /// results.
    public var accurateMode: PoseAccurateMode?
    /// The BlazePose landmark model behind this kind of detector.
    var landmarkModel: PoseLandmarkerModel { .lite }

    /// Not public, as in ML Kit: make a ``PoseDetectorOptions`` or an ``AccuratePoseDetectorOptions``.
    init() {}
}

/// Options for the base pose detector (ML Kit's `PoseDetectorOptions`, the `PoseDetection` pod): the
/// fast model, BlazePose lite.
public final class PoseDetectorOptions: CommonPoseDetectorOptions {
    /// Options with the defaults: ``PoseDetectorMode/stream``, one thread.
    override public init() { super.init() }
}

/// Options for the accurate pose detector (ML Kit's `AccuratePoseDetectorOptions`, the
/// `PoseDetectionAccurate` pod): the larger model, BlazePose full.
public final class AccuratePoseDetectorOptions: CommonPoseDetectorOptions {
    /// Options with the defaults: ``PoseDetectorMode/stream``, one thread.
    override public init() { super.init() }
    override var landmarkModel: PoseLandmarkerModel { .full }
}

/// ML Kit's `PoseDetector`, answered by BlazeKit's `PoseLandmarker`: at most one pose (the most prominent
/// person), positions in pixels of the upright image.
///
/// ``PoseDetectorMode/singleImage`` runs the landmarker in image mode. ``PoseDetectorMode/stream`` runs it
/// in video mode, with the time of each call (milliseconds since the detector was made) as the frame's
/// timestamp, so the person is tracked and smoothed between calls: use one detector per stream.
///
/// A detector may be called from several threads at once; its calls are serialized, and each detector
/// owns its networks, so separate detectors run in parallel.
public final class PoseDetector: @unchecked Sendable {
    /// The mode the detector was made with.
    public let mode: PoseDetectorMode
    private let loaded: Result<PoseLandmarker, any Error>
    private let clockStart = DispatchTime.now().uptimeNanoseconds
    private let lock = NSLock()
    private var lastTimestamp = -1          // guarded by `lock`
    /// Runs the work of ``process(_:completion:)`` and ``process(_:)``, one image at a time.
    private let workQueue = DispatchQueue(label: "BlazeMLKit.PoseDetector")

    private init(options: CommonPoseDetectorOptions) {
        let o = PoseLandmarkerOptions()
        o.model = options.landmarkModel
        o.numPoses = 1
        o.runningMode = options.detectorMode == .stream ? .video : .image
        o.baseOptions.threadCount = options.threadCount
        o.baseOptions.kernelPlanning = options.kernelPlanning
        o.accurateMode = options.accurateMode
        mode = options.detectorMode
        loaded = Result { try PoseLandmarker(options: o) }
    }

    /// A detector for `options` (ML Kit: `PoseDetector.poseDetector(options:)`); later changes to
    /// `options` do not affect it. As in ML Kit this does not throw: a problem (such as a thread count
    /// outside 1…64) is thrown by every ``results(in:)`` call and handed to every completion.
    public static func poseDetector(options: CommonPoseDetectorOptions) -> PoseDetector {
        PoseDetector(options: options)
    }

    /// The poses in `image`, detected on the calling thread: one, or none when nobody is found.
    ///
    /// ML Kit raises an exception when this is called on the main thread; BlazeMLKit allows it (it blocks
    /// the caller for the duration of one detection).
    ///
    /// - Throws: `TaskError` for bad options; `ImageError` if the image cannot be oriented.
    public func results(in image: VisionImage) throws -> [Pose] {
        try poses(in: image.snapshot)
    }

    /// Detects poses in `image` on the detector's own queue and calls `completion` on the **main queue**,
    /// as ML Kit does, with the poses (one, or none) and `nil`, or with `nil` and the error.
    ///
    /// The image and its orientation are read before this returns. The main queue runs only while the
    /// program's main thread serves it: an app's run loop, `dispatchMain()`, `RunLoop.main.run()`, or an
    /// `async` `main` (or top-level code) that is suspended in `await`. A command-line program that
    /// returns from `main`, or blocks the main thread waiting for the completion, never sees it; such a
    /// program can use ``process(_:)`` or ``results(in:)`` instead.
    public func process(_ image: VisionImage, completion: @escaping @MainActor ([Pose]?, (any Error)?) -> Void) {
        let input = image.snapshot
        workQueue.async { [self] in
            let outcome = Result { try poses(in: input) }
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    switch outcome {
                    case .success(let poses): completion(poses, nil)
                    case .failure(let error): completion(nil, error)
                    }
                }
            }
        }
    }

    /// Detects poses in `image` on the detector's own queue (ML Kit's Swift `async` form of
    /// ``process(_:completion:)``). Unlike the completion form it does not need the main queue, so it
    /// suits command-line programs. The image and its orientation are read when the call starts.
    ///
    /// - Throws: as ``results(in:)``.
    public func process(_ image: VisionImage) async throws -> [Pose] {
        let input = image.snapshot
        return try await withCheckedThrowingContinuation { continuation in
            workQueue.async { [self] in continuation.resume(with: Result { try poses(in: input) }) }
        }
    }

    /// Runs the landmarker on `image` turned upright (its orientation applied) and maps the result.
    private func poses(in image: Image) throws -> [Pose] {
        let landmarker = try loaded.get()
        let upright = try image.oriented()
        let result: PoseLandmarkerResult
        switch mode {
        case .singleImage:
            result = try landmarker.detect(image: upright)
        case .stream:
            // The timestamp is taken and used under one lock, so concurrent calls reach the landmarker in
            // increasing timestamp order.
            lock.lock()
            defer { lock.unlock() }
            let now = Int((DispatchTime.now().uptimeNanoseconds - clockStart) / 1_000_000)
            lastTimestamp = max(now, lastTimestamp + 1)
            result = try landmarker.detect(videoFrame: upright, timestampInMilliseconds: lastTimestamp)
        }
        return result.landmarks.map { Pose.from($0, width: upright.width, height: upright.height) }
    }
}
