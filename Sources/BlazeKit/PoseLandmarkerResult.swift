import BlazeStages
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A float mask of an image's size, values in [0, 1] (MediaPipe Tasks' `MPMask` with float32 data).
public struct Mask: Sendable, Codable, Equatable {
    /// Mask width in pixels (the image's width).
    public var width: Int
    /// Mask height in pixels (the image's height).
    public var height: Int
    /// Row-major values, `width·height` of them.
    public var float32Data: [Float]

    /// A mask of `width × height` values.
    public init(width: Int, height: Int, float32Data: [Float]) {
        self.width = width
        self.height = height
        self.float32Data = float32Data
    }
}

/// What ``PoseLandmarker`` finds in one image (MediaPipe Tasks' `PoseLandmarkerResult`).
public struct PoseLandmarkerResult: Sendable, Codable, Equatable {
    /// Per pose, 33 landmarks: x, y normalized to the image, z on roughly the scale of x with the
    /// hips' midpoint as origin (smaller is closer), visibility and presence in [0, 1].
    public var landmarks: [[NormalizedLandmark]]
    /// Per pose, 33 landmarks in metres, origin between the hips.
    public var worldLandmarks: [[Landmark]]
    /// Per pose, the person mask at the image's size (empty unless `shouldOutputSegmentationMasks`).
    public var segmentationMasks: [Mask]
    /// The frame's timestamp (0 in image mode).
    public var timestampInMilliseconds: Int
    /// Per pose, its stable ID in this stream (BlazeKit's addition, not in MediaPipe's result): in video and
    /// live-stream mode one entry per pose, in the order of `landmarks`; a pose keeps its ID while it is
    /// seen and through short absences (``IdentityOptions``), a new one gets the next ID, and IDs are never
    /// reused. Empty in image mode.
    public var ids: [Int]

    /// A result; the parallel arrays hold one entry per pose.
    public init(landmarks: [[NormalizedLandmark]] = [], worldLandmarks: [[Landmark]] = [], segmentationMasks: [Mask] = [],
                timestampInMilliseconds: Int = 0, ids: [Int] = []) {
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.segmentationMasks = segmentationMasks
        self.timestampInMilliseconds = timestampInMilliseconds
        self.ids = ids
    }
}
