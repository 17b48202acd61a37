#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A rotated rectangle in normalized image coordinates: the "ROI" type of MediaPipe
/// (`mediapipe/framework/formats/rect.proto`, `NormalizedRect`).
///
/// `xCenter` and `width` are fractions of the image width, `yCenter` and `height` fractions of the
/// image height, so a rectangle that is square in pixels has `width * W == height * H`.
/// `rotation` is in radians, clockwise in the y-down image plane: a vector `(dx, dy)` in the
/// rectangle's own axes maps to image-pixel offsets `(cos θ·dx − sin θ·dy, sin θ·dx + cos θ·dy)`.
public struct NormalizedRect: Sendable, Codable, Equatable, Hashable {
    public var xCenter: Float
    public var yCenter: Float
    public var width: Float
    public var height: Float
    /// Radians, clockwise (y down).
    public var rotation: Float

    public init(xCenter: Float, yCenter: Float, width: Float, height: Float, rotation: Float = 0) {
        self.xCenter = xCenter
        self.yCenter = yCenter
        self.width = width
        self.height = height
        self.rotation = rotation
    }

    /// The whole image, unrotated: `{0.5, 0.5, 1, 1, 0}`.
    public static let fullImage = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1)

    /// MediaPipe's "sentinel" rect (`width == 0 && height == 0`): `ImageToTensorCalculator` emits
    /// nothing for it, without an error (`image_to_tensor_calculator.cc`, "WORKAROUND").
    public var isSentinel: Bool { width == 0 && height == 0 }
}

/// Wraps an angle to `[−π, π)`: `a − 2π·floor((a + π) / 2π)`.
///
/// Mirrors `NormalizeRadians` in `mediapipe/calculators/util/detections_to_rects_calculator.h`
/// and `rect_transformation_calculator.cc`: the argument and result are `float`, but the
/// arithmetic is done in **double** (`M_PI` is a double), then rounded once to `Float`.
@inlinable
public func normalizeRadians(_ angle: Float) -> Float {
    let a = Double(angle)
    return Float(a - 2 * Double.pi * ((a - (-Double.pi)) / (2 * Double.pi)).rounded(.down))
}
