#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// A landmark in normalized image coordinates, as MediaPipe Tasks iOS `MPPNormalizedLandmark`
/// (`mediapipe/framework/formats/landmark.proto`, `NormalizedLandmark`): `x`, `y` in `[0, 1]` of the
/// image width/height (may fall outside), `z` in roughly the same scale as `x`, and optional
/// `visibility` / `presence` probabilities.
public struct NormalizedLandmark: Sendable, Codable, Equatable, Hashable {
    public var x: Float
    public var y: Float
    public var z: Float
    public var visibility: Float?
    public var presence: Float?

    public init(x: Float, y: Float, z: Float = 0, visibility: Float? = nil, presence: Float? = nil) {
        self.x = x
        self.y = y
        self.z = z
        self.visibility = visibility
        self.presence = presence
    }
}

/// A landmark in world coordinates (meters), as MediaPipe Tasks iOS `MPPLandmark`
/// (`mediapipe/framework/formats/landmark.proto`, `Landmark`).
public struct Landmark: Sendable, Codable, Equatable, Hashable {
    public var x: Float
    public var y: Float
    public var z: Float
    public var visibility: Float?
    public var presence: Float?

    public init(x: Float, y: Float, z: Float = 0, visibility: Float? = nil, presence: Float? = nil) {
        self.x = x
        self.y = y
        self.z = z
        self.visibility = visibility
        self.presence = presence
    }
}

/// `LandmarkProjectionCalculator` in `NORM_RECT` mode (`mediapipe/calculators/util/landmark_projection_calculator.cc`):
/// maps landmarks normalized to an (unpadded) ROI into image-normalized coordinates.
public enum LandmarkProjection {
    /// `dx = x − 0.5`, `dy = y − 0.5`; `X = (cos θ·dx − sin θ·dy)·rect.width + rect.xCenter`;
    /// `Y = (sin θ·dx + cos θ·dy)·rect.height + rect.yCenter`; `Z = z·rect.width`; visibility and
    /// presence copied. `Float` throughout (`std::cos(float)`). Rotation is applied in normalized
    /// units before the per-axis scale, so it is exact only for ROIs square in pixels (which all pose
    /// ROIs are).
    public static func project(_ landmark: NormalizedLandmark, onto rect: NormalizedRect) -> NormalizedLandmark {
        let x = landmark.x - 0.5
        let y = landmark.y - 0.5
        let angle = rect.rotation
        var newX = cos(angle) * x - sin(angle) * y
        var newY = sin(angle) * x + cos(angle) * y
        newX = newX * rect.width + rect.xCenter
        newY = newY * rect.height + rect.yCenter
        var out = landmark
        out.x = newX
        out.y = newY
        out.z = landmark.z * rect.width
        return out
    }

    public static func project(_ landmarks: [NormalizedLandmark], onto rect: NormalizedRect) -> [NormalizedLandmark] {
        landmarks.map { project($0, onto: rect) }
    }
}

/// `WorldLandmarkProjectionCalculator` (`mediapipe/calculators/util/world_landmark_projection_calculator.cc`):
/// rotation only, about z, by the ROI rotation; no translation or scaling (units stay meters).
public enum WorldLandmarkProjection {
    /// `x' = cos θ·x − sin θ·y`, `y' = sin θ·x + cos θ·y`, `z' = z`; visibility/presence carried over.
    public static func rotate(_ landmark: Landmark, by rect: NormalizedRect) -> Landmark {
        let c = cos(rect.rotation), s = sin(rect.rotation)
        var out = landmark
        out.x = c * landmark.x - s * landmark.y
        out.y = s * landmark.x + c * landmark.y
        return out
    }

    public static func rotate(_ landmarks: [Landmark], by rect: NormalizedRect) -> [Landmark] {
        landmarks.map { rotate($0, by: rect) }
    }
}
