import BlazeStages
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// `RoiTrackingCalculator` of MediaPipe's legacy Holistic graph
/// (`mediapipe/modules/holistic_landmark/calculators/roi_tracking_calculator.cc`): keep the region derived from
/// the previous frame's landmarks while it stays close to this frame's re-crop region, otherwise take the
/// re-crop region. `hand_tracking.pbtxt` and `face_tracking.pbtxt` configure it.
public struct RegionTracking: Sendable, Equatable {
    /// Largest rotation difference, in degrees.
    public var rotationDegrees: Float
    /// Largest centre shift, as a fraction of the re-crop region's width (x) or height (y), in its axes.
    public var translation: Float
    /// Largest size difference, as a fraction of the re-crop region's width or height.
    public var scale: Float
    /// Margin of the re-crop region (−0.1: 10 % smaller) that every previous landmark must lie inside.
    public var recropRectMargin: Float

    public init(rotationDegrees: Float, translation: Float, scale: Float, recropRectMargin: Float) {
        self.rotationDegrees = rotationDegrees
        self.translation = translation
        self.scale = scale
        self.recropRectMargin = recropRectMargin
    }

    /// `hand_tracking.pbtxt`: 40°, 0.2, 0.4, margin −0.1.
    public static let hand = RegionTracking(rotationDegrees: 40, translation: 0.2, scale: 0.4, recropRectMargin: -0.1)
    /// `face_tracking.pbtxt`: 15°, 0.1, 0.3, margin −0.2.
    public static let face = RegionTracking(rotationDegrees: 15, translation: 0.1, scale: 0.3, recropRectMargin: -0.2)

    /// The region to crop this frame: `previous` (from the last frame's landmarks, with those landmarks) when
    /// every requirement holds, else `recrop`; nil without a re-crop region (the part is not found this frame).
    public func region(recrop: NormalizedRect?, previous: (rect: NormalizedRect, landmarks: [NormalizedLandmark])?,
                       imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        guard let recrop else { return nil }
        guard let previous else { return recrop }
        let keep = rectRequirementsHold(previous.rect, recrop, imageWidth: imageWidth, imageHeight: imageHeight)
            && landmarksInside(previous.landmarks, recrop, imageWidth: imageWidth, imageHeight: imageHeight)
        return keep ? previous.rect : recrop
    }

    /// `RectRequirementsSatisfied`, in `Float`: both centres turned by −(re-crop rotation) in pixels, rotations
    /// compared in degrees (`rotation / M_PI · 180.f`).
    func rectRequirementsHold(_ prev: NormalizedRect, _ recrop: NormalizedRect, imageWidth: Int, imageHeight: Int) -> Bool {
        let w = Float(imageWidth), h = Float(imageHeight)
        let rotation = -recrop.rotation
        let c = cos(rotation), s = sin(rotation)
        let prevX = prev.xCenter * w * c - prev.yCenter * h * s
        let prevY = prev.xCenter * w * s + prev.yCenter * h * c
        let recropX = recrop.xCenter * w * c - recrop.yCenter * h * s
        let recropY = recrop.xCenter * w * s + recrop.yCenter * h * c
        let prevDegrees = Float(Double(prev.rotation) / Double.pi * 180)
        let recropDegrees = Float(Double(recrop.rotation) / Double.pi * 180)
        var rotationDiff = prevDegrees - recropDegrees
        if rotationDiff > 180 { rotationDiff -= 360 }
        if rotationDiff < -180 { rotationDiff += 360 }
        let recropWidth = recrop.width * w, recropHeight = recrop.height * h
        return abs(rotationDiff) <= rotationDegrees
            && abs(prevX - recropX) <= recropWidth * translation
            && abs(prevY - recropY) <= recropHeight * translation
            && abs(prev.width * w - recropWidth) <= recropWidth * scale
            && abs(prev.height * h - recropHeight) <= recropHeight * scale
    }

    /// `LandmarksRequirementsSatisfied`: every landmark strictly inside the re-crop region shrunk by the margin,
    /// in the region's axes.
    func landmarksInside(_ landmarks: [NormalizedLandmark], _ recrop: NormalizedRect, imageWidth: Int, imageHeight: Int) -> Bool {
        let w = Float(imageWidth), h = Float(imageHeight)
        let rotation = -recrop.rotation
        let c = cos(rotation), s = sin(rotation)
        let x = recrop.xCenter * w * c - recrop.yCenter * h * s
        let y = recrop.xCenter * w * s + recrop.yCenter * h * c
        let width = recrop.width * w * (1 + recropRectMargin), height = recrop.height * h * (1 + recropRectMargin)
        let left = x - width * 0.5, right = x + width * 0.5, top = y - height * 0.5, bottom = y + height * 0.5
        return landmarks.allSatisfy { l in
            let lx = l.x * w * c - l.y * h * s
            let ly = l.x * w * s + l.y * h * c
            return left < lx && lx < right && top < ly && ly < bottom
        }
    }
}
