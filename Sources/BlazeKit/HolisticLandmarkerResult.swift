import BlazeStages
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``HolisticLandmarker`` finds in one image (MediaPipe Tasks' `HolisticLandmarkerResult`): one person's
/// pose, the hands found from it and the face mesh. A part not found is an empty list.
public struct HolisticLandmarkerResult: Sendable, Codable, Equatable {
    /// 468 face landmarks, or 478 with ``HolisticLandmarkerOptions/refineFaceLandmarks`` (irises last).
    public var faceLandmarks: [NormalizedLandmark]
    /// 33 pose landmarks with visibility and presence.
    public var poseLandmarks: [NormalizedLandmark]
    /// 33 pose landmarks in metres, origin between the hips.
    public var poseWorldLandmarks: [Landmark]
    /// 21 landmarks of the person's left hand (pose landmarks 15, 17, 19 place it).
    public var leftHandLandmarks: [NormalizedLandmark]
    /// The left hand's 21 landmarks in metres (the hand network's world output).
    public var leftHandWorldLandmarks: [Landmark]
    /// 21 landmarks of the person's right hand (pose landmarks 16, 18, 20).
    public var rightHandLandmarks: [NormalizedLandmark]
    /// The right hand's 21 landmarks in metres.
    public var rightHandWorldLandmarks: [Landmark]
    /// The person mask at the image's size (nil unless ``HolisticLandmarkerOptions/shouldOutputPoseSegmentationMasks``
    /// and a pose was found).
    public var poseSegmentationMask: Mask?
    /// The frame's timestamp (0 in image mode).
    public var timestampInMilliseconds: Int

    public init(faceLandmarks: [NormalizedLandmark] = [], poseLandmarks: [NormalizedLandmark] = [], poseWorldLandmarks: [Landmark] = [],
                leftHandLandmarks: [NormalizedLandmark] = [], leftHandWorldLandmarks: [Landmark] = [],
                rightHandLandmarks: [NormalizedLandmark] = [], rightHandWorldLandmarks: [Landmark] = [],
                poseSegmentationMask: Mask? = nil, timestampInMilliseconds: Int = 0) {
        self.faceLandmarks = faceLandmarks
        self.poseLandmarks = poseLandmarks
        self.poseWorldLandmarks = poseWorldLandmarks
        self.leftHandLandmarks = leftHandLandmarks
        self.leftHandWorldLandmarks = leftHandWorldLandmarks
        self.rightHandLandmarks = rightHandLandmarks
        self.rightHandWorldLandmarks = rightHandWorldLandmarks
        self.poseSegmentationMask = poseSegmentationMask
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
