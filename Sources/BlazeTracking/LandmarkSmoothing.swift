import BlazeStages
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One-euro parameters of a landmark stream (`OneEuroFilter` options of
/// `mediapipe/calculators/util/landmarks_smoothing_calculator.proto`).
public struct OneEuroConfiguration: Sendable, Equatable {
    public var minCutoff: Double
    public var beta: Double
    public var derivateCutoff: Double
    /// Initial sampling frequency, until two timestamps give the real one.
    public var frequency: Double = 30
    /// Below this object scale (pixels) landmarks pass through unfiltered.
    public var minAllowedObjectScale: Float = 1e-6
    /// With value scaling off the derivative is not divided by the object's size (world landmarks).
    public var valueScaling: Bool

    public init(minCutoff: Double, beta: Double, derivateCutoff: Double, valueScaling: Bool) {
        self.minCutoff = minCutoff
        self.beta = beta
        self.derivateCutoff = derivateCutoff
        self.valueScaling = valueScaling
    }

    /// Pose landmarks in MediaPipe Tasks (`pose_landmarks_detector_graph.cc`): 0.05, 80, 1.0, scaled.
    public static let poseLandmarks = OneEuroConfiguration(minCutoff: Double(Float(0.05)), beta: 80, derivateCutoff: 1,
                                                           valueScaling: true)
    /// Pose world landmarks in MediaPipe Tasks: 0.1, 40, 1.0, no value scaling.
    public static let poseWorldLandmarks = OneEuroConfiguration(minCutoff: Double(Float(0.1)), beta: 40, derivateCutoff: 1,
                                                                valueScaling: false)
}

/// `VisibilitySmoothingCalculator` with its low-pass filter
/// (`mediapipe/calculators/util/visibility_smoothing_calculator.cc`): one `LowPassFilter` per landmark on
/// `visibility` only; presence and coordinates untouched.
public struct VisibilitySmoother: Sendable, Equatable {
    public let alpha: Float
    private var filters: [LowPassFilter] = []

    public init(alpha: Float = 0.1) { self.alpha = alpha }

    /// Forgets all state (MediaPipe does this on a frame without landmarks).
    public mutating func reset() { filters.removeAll() }

    /// Smooths the visibilities of `visibilities` in place (nil is read as 0, as protobuf does).
    mutating func smooth(_ visibilities: inout [Float?]) {
        if filters.count != visibilities.count { filters = Array(repeating: LowPassFilter(alpha: alpha), count: visibilities.count) }
        for i in visibilities.indices { visibilities[i] = filters[i].apply(visibilities[i] ?? 0) }
    }

    public mutating func smooth(_ landmarks: [NormalizedLandmark]) -> [NormalizedLandmark] {
        var v = landmarks.map(\.visibility)
        smooth(&v)
        return zip(landmarks, v).map { var l = $0; l.visibility = $1; return l }
    }

    public mutating func smooth(_ landmarks: [Landmark]) -> [Landmark] {
        var v = landmarks.map(\.visibility)
        smooth(&v)
        return zip(landmarks, v).map { var l = $0; l.visibility = $1; return l }
    }
}

/// `LandmarksSmoothingCalculator` with a one-euro filter
/// (`mediapipe/calculators/util/landmarks_smoothing_calculator.cc`, `landmarks_smoothing_calculator_utils.cc`):
/// three independent `OneEuroFilter`s (x, y, z) per landmark, created on the first frame after a reset.
///
/// Normalized landmarks are filtered in pixels (`x·W`, `y·H`, `z·W`) and converted back; the object
/// scale is `(roi.width·W + roi.height·H)/2` when a ROI is given, else the mean of the landmarks'
/// x- and y-extent in pixels. World landmarks are filtered as they are.
public struct OneEuroLandmarkSmoother: Sendable, Equatable {
    public let configuration: OneEuroConfiguration
    private var filters: [(x: OneEuroFilter, y: OneEuroFilter, z: OneEuroFilter)] = []

    public init(configuration: OneEuroConfiguration) { self.configuration = configuration }

    public static func == (a: Self, b: Self) -> Bool {
        a.configuration == b.configuration && a.filters.count == b.filters.count
            && zip(a.filters, b.filters).allSatisfy { $0.x == $1.x && $0.y == $1.y && $0.z == $1.z }
    }

    /// Forgets all state (MediaPipe does this on a frame without landmarks).
    public mutating func reset() { filters.removeAll() }

    /// `GetObjectScale(LandmarkList)`: mean of the x- and y-extent.
    static func objectScale(_ points: [SIMD3<Float>]) -> Float {
        guard let first = points.first else { return 0 }
        var lo = first, hi = first
        for p in points { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        return ((hi.x - lo.x) + (hi.y - lo.y)) / 2
    }

    /// The core: filters pixel-space (or world) points observed at `timestampNanoseconds`.
    mutating func filter(_ points: [SIMD3<Float>], timestampNanoseconds: Int64, objectScale: Float?) -> [SIMD3<Float>] {
        if filters.count != points.count {
            let f = OneEuroFilter(frequency: configuration.frequency, minCutoff: configuration.minCutoff,
                                  beta: configuration.beta, derivateCutoff: configuration.derivateCutoff)
            filters = Array(repeating: (f, f, f), count: points.count)
        }
        var valueScale: Float = 1
        if configuration.valueScaling {
            let scale = objectScale ?? Self.objectScale(points)
            if scale < configuration.minAllowedObjectScale { return points }
            valueScale = 1 / scale
        }
        let s = Double(valueScale)
        return points.indices.map { i in
            let p = points[i]
            return SIMD3(filters[i].x.apply(p.x, timestampNanoseconds: timestampNanoseconds, valueScale: s),
                         filters[i].y.apply(p.y, timestampNanoseconds: timestampNanoseconds, valueScale: s),
                         filters[i].z.apply(p.z, timestampNanoseconds: timestampNanoseconds, valueScale: s))
        }
    }

    /// Smooths image-normalized landmarks of an `imageWidth × imageHeight` image; `objectScaleROI`
    /// sets the object scale (MediaPipe Tasks passes the pose's next-frame ROI).
    public mutating func smooth(_ landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int,
                                objectScaleROI: NormalizedRect?, timestampNanoseconds: Int64) -> [NormalizedLandmark] {
        let w = Float(imageWidth), h = Float(imageHeight)
        let points = landmarks.map { SIMD3($0.x * w, $0.y * h, $0.z * w) }
        let scale = objectScaleROI.map { ($0.width * w + $0.height * h) / 2 }
        let out = filter(points, timestampNanoseconds: timestampNanoseconds, objectScale: scale)
        return zip(landmarks, out).map { l, p in
            var l = l
            l.x = p.x / w
            l.y = p.y / h
            l.z = p.z / w
            return l
        }
    }

    /// Smooths world landmarks (metres).
    public mutating func smooth(_ landmarks: [Landmark], timestampNanoseconds: Int64) -> [Landmark] {
        let out = filter(landmarks.map { SIMD3($0.x, $0.y, $0.z) }, timestampNanoseconds: timestampNanoseconds, objectScale: nil)
        return zip(landmarks, out).map { l, p in
            var l = l
            l.x = p.x
            l.y = p.y
            l.z = p.z
            return l
        }
    }
}

/// The smoothing MediaPipe Tasks' PoseLandmarker applies to its single pose in video and live-stream
/// mode (`pose_landmarks_detector_graph.cc`): visibility low-pass (α 0.1) then one-euro, on the landmarks
/// (0.05 / 80 / 1.0, object scale from the next-frame ROI) and on the world landmarks (0.1 / 40 / 1.0, no
/// value scaling). Hands are not smoothed in MediaPipe Tasks.
public struct PoseSmoother: Sendable, Equatable {
    public var landmarkVisibility = VisibilitySmoother(alpha: 0.1)
    public var landmarks = OneEuroLandmarkSmoother(configuration: .poseLandmarks)
    public var worldVisibility = VisibilitySmoother(alpha: 0.1)
    public var worldLandmarks = OneEuroLandmarkSmoother(configuration: .poseWorldLandmarks)

    public init() {}

    /// Forgets all state; MediaPipe does this on every frame without a pose.
    public mutating func reset() {
        landmarkVisibility.reset()
        landmarks.reset()
        worldVisibility.reset()
        worldLandmarks.reset()
    }

    /// Smooths one pose observed at `timestampMilliseconds` (converted to microseconds, as the graph's
    /// timestamps are, then to nanoseconds for the filter).
    public mutating func smooth(landmarks lms: [NormalizedLandmark], worldLandmarks world: [Landmark], nextFrameROI: NormalizedRect?,
                                imageWidth: Int, imageHeight: Int, timestampMilliseconds: Int)
        -> (landmarks: [NormalizedLandmark], worldLandmarks: [Landmark]) {
        let ns = Int64(timestampMilliseconds) * 1_000_000
        let smoothed = landmarks.smooth(landmarkVisibility.smooth(lms), imageWidth: imageWidth, imageHeight: imageHeight,
                                        objectScaleROI: nextFrameROI, timestampNanoseconds: ns)
        let smoothedWorld = worldLandmarks.smooth(worldVisibility.smooth(world), timestampNanoseconds: ns)
        return (smoothed, smoothedWorld)
    }
}
