import BlazeStages
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One category of a classification (MediaPipe Tasks' `ResultCategory`); for hands, the handedness.
///
/// `categoryName` and `displayName` are optional, as in MediaPipe, where a model without label metadata
/// leaves them unset; BlazeKit's hand models always set `categoryName` ("Left" or "Right") and
/// `displayName` (the same word).
public struct ResultCategory: Sendable, Codable, Equatable, Hashable {
    /// The category's index in the model's label list (handedness: 0 = "Right", 1 = "Left").
    public var index: Int
    /// The category's score, in [0, 1].
    public var score: Float
    /// The label, e.g. "Left" or "Right".
    public var categoryName: String?
    /// The label for display.
    public var displayName: String?

    /// A category with MediaPipe's fields.
    public init(index: Int, score: Float, categoryName: String?, displayName: String?) {
        self.index = index
        self.score = score
        self.categoryName = categoryName
        self.displayName = displayName
    }

    /// The handedness decoded by the landmark stage, as a category.
    init(_ handedness: HandednessCategory) {
        self.init(index: handedness.index, score: handedness.score, categoryName: handedness.categoryName,
                  displayName: handedness.displayName)
    }
}

/// What ``HandLandmarker`` finds in one image (MediaPipe Tasks' `HandLandmarkerResult`).
public struct HandLandmarkerResult: Sendable, Codable, Equatable {
    /// Per hand, its handedness as one category ("Left" or "Right", index 0 = Right, 1 = Left).
    public var handedness: [[ResultCategory]]
    /// Per hand, 21 landmarks: x, y normalized to the image, z relative to the wrist on about x's scale.
    /// `presence` holds the hand's presence score from the landmark network (MediaPipe leaves it unset).
    public var landmarks: [[NormalizedLandmark]]
    /// Per hand, 21 landmarks in metres around the hand's centre.
    public var worldLandmarks: [[Landmark]]
    /// The frame's timestamp (0 in image mode).
    public var timestampInMilliseconds: Int
    /// Per hand, its stable ID in this stream (BlazeKit's addition, not in MediaPipe's result): in video and
    /// live-stream mode one entry per hand, in the order of `landmarks`; a hand keeps its ID while it is
    /// seen and through short absences (``IdentityOptions``), a new one gets the next ID, and IDs are never
    /// reused. Empty in image mode.
    public var ids: [Int]

    /// A result; the parallel arrays hold one entry per hand.
    public init(handedness: [[ResultCategory]] = [], landmarks: [[NormalizedLandmark]] = [], worldLandmarks: [[Landmark]] = [],
                timestampInMilliseconds: Int = 0, ids: [Int] = []) {
        self.handedness = handedness
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.timestampInMilliseconds = timestampInMilliseconds
        self.ids = ids
    }
}
