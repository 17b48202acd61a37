import BlazeStages
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The video loop of MediaPipe's legacy pose graph (`mediapipe/modules/pose_landmark/pose_landmark_cpu.pbtxt`,
/// behind `mp.solutions.pose.Pose`), without the networks. One person only.
///
/// Per frame: ``regionsOfInterest(detect:)`` returns the region carried over from the last frame, or, when
/// there is none, runs `detect` and keeps its first region. After the landmark network,
/// ``finishFrame(_:imageWidth:imageHeight:timestampNanoseconds:)`` filters the pose
/// (``LegacyPoseFiltering``) and derives the next frame's region from the **filtered** auxiliary landmarks
/// (the Tasks graph uses the raw ones).
///
/// One tracker per stream. ``reset()`` starts over.
public struct LegacyPoseTracker: Sendable, Equatable {
    /// The region carried over from the last finished frame.
    public private(set) var trackedRegion: NormalizedRect?
    public private(set) var frameCount = 0
    public private(set) var detectorRunCount = 0
    public private(set) var filtering: LegacyPoseFiltering

    /// - Parameter smoothsLandmarks: `smooth_landmarks` (the auxiliary landmarks are filtered either way).
    public init(smoothsLandmarks: Bool) {
        filtering = LegacyPoseFiltering(smoothsLandmarks: smoothsLandmarks)
    }

    public mutating func reset() {
        trackedRegion = nil
        filtering = LegacyPoseFiltering(smoothsLandmarks: filtering.smoothsLandmarks)
    }

    /// The carried-over region, or the first of `detect`'s (the graph's `SplitDetectionVectorCalculator`
    /// keeps detection 0 only).
    public mutating func regionsOfInterest(detect: () throws -> [NormalizedRect]) rethrows -> [NormalizedRect] {
        frameCount += 1
        if let trackedRegion { return [trackedRegion] }
        detectorRunCount += 1
        return Array(try detect().prefix(1))
    }

    /// Ends the frame: `pose` is the landmark network's pose if it passed the presence gate. Returns it
    /// filtered; the next frame's region comes from its filtered auxiliary landmarks.
    public mutating func finishFrame(_ pose: PoseTracker.Pose?, imageWidth: Int, imageHeight: Int,
                                     timestampNanoseconds: Int64) -> PoseTracker.Pose? {
        guard let pose else {
            filtering.frameWithoutPose()
            trackedRegion = nil
            return nil
        }
        let filtered = filtering.filter(pose, imageWidth: imageWidth, imageHeight: imageHeight, timestampNanoseconds: timestampNanoseconds)
        trackedRegion = NextFrameROI.pose(auxiliaryLandmarks: filtered.auxiliaryLandmarks, imageWidth: imageWidth, imageHeight: imageHeight)
        return filtered
    }
}

/// `PoseLandmarkFiltering` of the legacy pose graph (`pose_landmark_filtering.pbtxt`): with
/// `smooth_landmarks`, a visibility low-pass (α 0.1) then a one-euro filter on the landmarks (0.05 / 80 / 1,
/// object scale from the **unexpanded** rect of the raw auxiliary landmarks) and on the world landmarks
/// (0.1 / 40 / 1, no value scaling); always, a visibility low-pass and a one-euro filter (0.01 / 10 / 1, same
/// object scale) on the two auxiliary landmarks, which place the next frame's region.
///
/// On a frame without a pose only the calculators that also read the image size run, and they reset: the
/// one-euro filters of the landmarks and of the auxiliary landmarks. The visibility filters and the world
/// landmarks' filter get no packet, so they keep their state for the next pose.
public struct LegacyPoseFiltering: Sendable, Equatable {
    public let smoothsLandmarks: Bool
    var landmarkVisibility = VisibilitySmoother(alpha: 0.1)
    var landmarks = OneEuroLandmarkSmoother(configuration: .poseLandmarks)
    var worldVisibility = VisibilitySmoother(alpha: 0.1)
    var worldLandmarks = OneEuroLandmarkSmoother(configuration: .poseWorldLandmarks)
    var auxiliaryVisibility = VisibilitySmoother(alpha: 0.1)
    var auxiliaryLandmarks = OneEuroLandmarkSmoother(configuration: .legacyPoseAuxiliaryLandmarks)

    public init(smoothsLandmarks: Bool) { self.smoothsLandmarks = smoothsLandmarks }

    mutating func frameWithoutPose() {
        landmarks.reset()
        auxiliaryLandmarks.reset()
    }

    /// One pose observed at `timestampNanoseconds`, filtered.
    public mutating func filter(_ pose: PoseTracker.Pose, imageWidth: Int, imageHeight: Int,
                                timestampNanoseconds ns: Int64) -> PoseTracker.Pose {
        let detection = Detection(score: 0, xmin: 0, ymin: 0, width: 0, height: 0,
                                  keypoints: pose.auxiliaryLandmarks.prefix(2).map { SIMD2($0.x, $0.y) })
        let scaleRect = AlignmentPointsRect.poseDetection.rect(for: detection, imageWidth: imageWidth, imageHeight: imageHeight)
        var out = pose
        if smoothsLandmarks {
            out.landmarks = landmarks.smooth(landmarkVisibility.smooth(pose.landmarks), imageWidth: imageWidth, imageHeight: imageHeight,
                                             objectScaleROI: scaleRect, timestampNanoseconds: ns)
            out.worldLandmarks = worldLandmarks.smooth(worldVisibility.smooth(pose.worldLandmarks), timestampNanoseconds: ns)
        }
        out.auxiliaryLandmarks = auxiliaryLandmarks.smooth(auxiliaryVisibility.smooth(pose.auxiliaryLandmarks), imageWidth: imageWidth,
                                                           imageHeight: imageHeight, objectScaleROI: scaleRect, timestampNanoseconds: ns)
        return out
    }
}

extension OneEuroConfiguration {
    /// The legacy pose graph's auxiliary landmarks (`pose_landmark_filtering.pbtxt`): 0.01, 10, 1.0, scaled.
    public static let legacyPoseAuxiliaryLandmarks = OneEuroConfiguration(minCutoff: Double(Float(0.01)), beta: 10, derivateCutoff: 1,
                                                                          valueScaling: true)
}

/// `SegmentationSmoothingCalculator` as the legacy pose graph runs it (`pose_segmentation_filtering.pbtxt`,
/// `combine_with_previous_ratio: 0.7`; `mediapipe/calculators/image/segmentation_smoothing_calculator.cc`):
/// each new mask is blended with the last **smoothed** mask, pixel by pixel, by how uncertain the new value
/// is. The previous mask is the last one produced, however many frames without a pose came between
/// (`PreviousLoopbackCalculator` keyed on the mask stream); the first mask passes through.
public struct SegmentationSmoother: Sendable, Equatable {
    public let combineWithPreviousRatio: Float
    private var previous: [Float]?
    private var previousSize = (width: 0, height: 0)

    public init(combineWithPreviousRatio: Float = 0.7) { self.combineWithPreviousRatio = combineWithPreviousRatio }

    public static func == (a: Self, b: Self) -> Bool {
        a.combineWithPreviousRatio == b.combineWithPreviousRatio && a.previous == b.previous && a.previousSize == b.previousSize
    }

    public mutating func reset() { previous = nil }

    /// `mask` (row-major, `width × height`) smoothed with the previous one. A mask of another size than the
    /// previous one passes through and starts over (MediaPipe's graph fails on it instead).
    public mutating func smooth(_ mask: [Float], width: Int, height: Int) -> [Float] {
        guard let prev = previous, previousSize == (width, height), prev.count == mask.count else {
            previous = mask
            previousSize = (width, height)
            return mask
        }
        let ratio = combineWithPreviousRatio
        let c1: Float = 5.68842, c2: Float = -0.748699, c3: Float = -57.8051, c4: Float = 291.309, c5: Float = -624.717
        var out = [Float](repeating: 0, count: mask.count)
        for i in mask.indices {
            let p = mask[i]
            let t = p - 0.5
            let x = t * t
            let uncertainty = 1 - min(1, x * (c1 + x * (c2 + x * (c3 + x * (c4 + x * c5)))))
            out[i] = p + (prev[i] - p) * (uncertainty * ratio)
        }
        previous = out
        return out
    }
}

/// The video loop of MediaPipe's legacy hand graph (`mediapipe/modules/hand_landmark/hand_landmark_tracking_cpu.pbtxt`,
/// behind `mp.solutions.hands.Hands`), without the networks.
///
/// Per frame: ``regionsOfInterest(detect:)`` runs `detect` (palm regions, already limited to `numHands`) only
/// when fewer than `numHands` regions were carried over, then associates them with `AssociationNormRectCalculator`
/// at a fixed IoU of 0.5, palm regions first and carried-over regions second, so a **tracked** region replaces
/// the palms it overlaps. The list is not limited again, and hands are neither deduplicated nor smoothed.
/// ``finishFrame(hands:imageWidth:imageHeight:)`` derives the next frame's regions from every hand found.
public struct LegacyHandTracker: Sendable, Equatable {
    /// `min_similarity_threshold` of the graph's association (not an option in `mp.solutions`).
    public static let associationThreshold: Float = 0.5
    public let numHands: Int
    public private(set) var trackedRegions: [NormalizedRect] = []
    public private(set) var frameCount = 0
    public private(set) var detectorRunCount = 0

    public init(numHands: Int) { self.numHands = numHands }

    public mutating func reset() { trackedRegions = [] }

    public mutating func regionsOfInterest(detect: () throws -> [NormalizedRect]) rethrows -> [NormalizedRect] {
        frameCount += 1
        var detected: [NormalizedRect] = []
        if trackedRegions.count < numHands {
            detectorRunCount += 1
            detected = try detect()
        }
        return RegionAssociation.associating([detected, trackedRegions], threshold: Self.associationThreshold)
    }

    /// Ends the frame: `hands` are the 21-landmark lists that passed the presence gate, in region order.
    public mutating func finishFrame(hands: [[NormalizedLandmark]], imageWidth: Int, imageHeight: Int) {
        trackedRegions = hands.compactMap { NextFrameROI.hand(landmarks: $0, imageWidth: imageWidth, imageHeight: imageHeight) }
    }
}
