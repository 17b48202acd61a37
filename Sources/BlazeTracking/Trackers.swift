import BlazeStages
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The video / live-stream loop of MediaPipe Tasks' PoseLandmarker (`pose_landmarker_graph.cc`), without
/// the networks: which regions the landmark network sees on each frame, when the detector runs, and the
/// smoothing of the single pose.
///
/// Per frame: call ``regionsOfInterest(detect:)`` — it runs `detect` only when fewer than `numPoses` poses
/// are tracked, merges tracked and detected regions (a detection replaces the tracked region it overlaps
/// by IoU > `minTrackingConfidence`) and keeps the first `numPoses` — then run the landmark network on
/// each region and pass the poses that passed the presence gate to ``finishFrame(_:imageWidth:imageHeight:timestampMilliseconds:)``.
/// That derives the next frame's regions from the auxiliary landmarks and, with one pose, smooths it.
///
/// One tracker per stream: frames of different streams must not share one. ``reset()`` starts over.
public struct PoseTracker: Sendable, Equatable {
    /// One pose as the landmark network gave it (image-normalized landmarks, metres, auxiliary landmarks).
    public struct Pose: Sendable, Equatable {
        public var landmarks: [NormalizedLandmark]
        public var worldLandmarks: [Landmark]
        public var auxiliaryLandmarks: [NormalizedLandmark]

        public init(landmarks: [NormalizedLandmark], worldLandmarks: [Landmark], auxiliaryLandmarks: [NormalizedLandmark]) {
            self.landmarks = landmarks
            self.worldLandmarks = worldLandmarks
            self.auxiliaryLandmarks = auxiliaryLandmarks
        }
    }

    public let numPoses: Int
    /// The IoU above which a detected region replaces a tracked one.
    public let minTrackingConfidence: Float
    /// The regions carried over from the last finished frame.
    public private(set) var trackedRegions: [NormalizedRect] = []
    public private(set) var frameCount = 0
    public private(set) var detectorRunCount = 0
    private var smoother = PoseSmoother()

    public init(numPoses: Int, minTrackingConfidence: Float) {
        self.numPoses = numPoses
        self.minTrackingConfidence = minTrackingConfidence
    }

    /// MediaPipe smooths only when it tracks a single pose.
    public var smoothsLandmarks: Bool { numPoses == 1 }

    /// Forgets the tracked regions and the smoothing state.
    public mutating func reset() {
        trackedRegions = []
        smoother.reset()
    }

    /// This frame's landmark regions; `detect` returns the detector's regions (already limited to `numPoses`).
    public mutating func regionsOfInterest(detect: () throws -> [NormalizedRect]) rethrows -> [NormalizedRect] {
        frameCount += 1
        var detected: [NormalizedRect] = []
        if trackedRegions.count < numPoses {
            detectorRunCount += 1
            detected = try detect()
        }
        let merged = RegionAssociation.replacingOverlaps(tracked: trackedRegions, detected: detected, threshold: minTrackingConfidence)
        return Array(merged.prefix(numPoses))
    }

    /// Ends the frame: `poses` are those that passed the presence gate, in region order. Returns them,
    /// smoothed when ``smoothsLandmarks``.
    public mutating func finishFrame(_ poses: [Pose], imageWidth: Int, imageHeight: Int, timestampMilliseconds: Int) -> [Pose] {
        trackedRegions = poses.compactMap {
            NextFrameROI.pose(auxiliaryLandmarks: $0.auxiliaryLandmarks, imageWidth: imageWidth, imageHeight: imageHeight)
        }
        guard smoothsLandmarks else { return poses }
        guard var pose = poses.first else {
            smoother.reset()
            return []
        }
        (pose.landmarks, pose.worldLandmarks) = smoother.smooth(
            landmarks: pose.landmarks, worldLandmarks: pose.worldLandmarks, nextFrameROI: trackedRegions.first,
            imageWidth: imageWidth, imageHeight: imageHeight, timestampMilliseconds: timestampMilliseconds)
        return [pose]
    }
}

/// The video / live-stream loop of MediaPipe Tasks' HandLandmarker (`hand_landmarker_graph.cc`), without
/// the networks.
///
/// Per frame: ``regionsOfInterest(detect:)`` runs `detect` (palm regions, already limited to `numHands`)
/// only when fewer than `numHands` hands are tracked; tracked regions are all kept and a palm region is
/// added only if its IoU with every kept region is ≤ `minTrackingConfidence`; the first `numHands` are
/// returned. After the landmark network, ``finishFrame(hands:imageWidth:imageHeight:)`` removes duplicate
/// hands (as in image mode) and derives the next frame's regions from the kept hands' landmarks.
/// Hands are not smoothed, as in MediaPipe Tasks.
///
/// One tracker per stream. ``reset()`` starts over.
public struct HandTracker: Sendable, Equatable {
    public let numHands: Int
    /// The IoU above which a palm region is dropped in favour of an overlapping tracked one.
    public let minTrackingConfidence: Float
    public private(set) var trackedRegions: [NormalizedRect] = []
    public private(set) var frameCount = 0
    public private(set) var detectorRunCount = 0

    public init(numHands: Int, minTrackingConfidence: Float) {
        self.numHands = numHands
        self.minTrackingConfidence = minTrackingConfidence
    }

    public mutating func reset() { trackedRegions = [] }

    public mutating func regionsOfInterest(detect: () throws -> [NormalizedRect]) rethrows -> [NormalizedRect] {
        frameCount += 1
        var detected: [NormalizedRect] = []
        if trackedRegions.count < numHands {
            detectorRunCount += 1
            detected = try detect()
        }
        let merged = RegionAssociation.keepingTracked(tracked: trackedRegions, detected: detected, threshold: minTrackingConfidence)
        return Array(merged.prefix(numHands))
    }

    /// Ends the frame: `hands` are the 21-landmark lists that passed the presence gate, in region order.
    /// Returns the indices of the hands to report (duplicates removed), ascending.
    public mutating func finishFrame(hands: [[NormalizedLandmark]], imageWidth: Int, imageHeight: Int) -> [Int] {
        let kept = HandDeduplication.retainedIndices(of: hands, imageWidth: imageWidth, imageHeight: imageHeight)
        trackedRegions = kept.compactMap { NextFrameROI.hand(landmarks: hands[$0], imageWidth: imageWidth, imageHeight: imageHeight) }
        return kept
    }
}
