import BlazeImage
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

public enum DetectorInputRectError: Error, Equatable, CustomStringConvertible {
    case mirroredOrientationUnsupported(ImageOrientation)
    case rotationNotMultipleOf90(Int)
    case invalidImageSize(width: Int, height: Int)

    public var description: String {
        switch self {
        case let .mirroredOrientationUnsupported(o):
            return "Unsupported image orientation \(o): mirrored orientations are rejected (MPPVisionTaskRunner)"
        case let .rotationNotMultipleOf90(d): return "rotation_degrees must be a multiple of 90, got \(d)"
        case let .invalidImageSize(w, h): return "image size must be > 0, got \(w)×\(h)"
        }
    }
}

/// The full-image `NORM_RECT` that the Tasks API feeds to the detector's crop (and, in stream mode, uses
/// as the frame's input rect) for a given input rotation. `PoseLandmarker` accepts no region of interest,
/// only a rotation (`pose_landmarker.h`, `ConvertToNormalizedRect(..., roi_allowed = false)`).
///
/// **Mapping detections back when rotation ≠ 0.** The crop then samples a rotated ROI, so the detector's
/// outputs live in the rotated-ROI frame. MediaPipe's pose detector (`pose_detector_graph.cc`) only
/// removes the letterbox, which leaves them in that frame and mis-places the pose ROI on the unrotated
/// image (homuler/MediaPipeUnityPlugin #1196). The correct mapping is the one the hand detector uses
/// (`hand_detector_graph.cc`, `DetectionProjectionCalculator`): project the NMS survivors, still in
/// tensor-normalized coordinates of the **padded** crop, through the crop's `MATRIX` —
/// `ImageToTensorGeometry(rect: thisRect, …, keepAspectRatio: true).projectToImage(detection)` — instead of
/// `LetterboxPadding.removing(from:)`. The keypoints are then image-normalized, so
/// `AlignmentPointsRect` derives the ROI rotation in the image frame and the landmark stage needs no
/// further correction. With rotation 0 both mappings agree (to `Float` rounding).
public enum DetectorInputRect {
    /// iOS Tasks (`mediapipe/tasks/ios/vision/core/sources/MPPVisionTaskRunner.mm`): up → 0,
    /// right → 3π/2, down → π, left → π/2, computed as `degrees·M_PI/−180` in double with degrees
    /// `−270 / −180 / −90` and stored as `Float` (not normalized). For left/right the rect's width and
    /// height are swapped and rescaled, `width = 1·H/W`, `height = 1·W/H` (double, then `Float`), so the
    /// rotated crop covers exactly the image. Mirrored orientations throw.
    ///
    /// Note: older revisions of that file used `right = −90°` / `left = −270°` (i.e. right → π/2); the
    /// mapping here follows the current source.
    public static func forOrientation(_ orientation: ImageOrientation, imageWidth: Int,
                                      imageHeight: Int) throws -> NormalizedRect {
        guard imageWidth > 0, imageHeight > 0 else {
            throw DetectorInputRectError.invalidImageSize(width: imageWidth, height: imageHeight)
        }
        let degrees: Int
        switch orientation {
        case .up: degrees = 0
        case .right: degrees = -270
        case .down: degrees = -180
        case .left: degrees = -90
        case .upMirrored, .downMirrored, .leftMirrored, .rightMirrored:
            throw DetectorInputRectError.mirroredOrientationUnsupported(orientation)
        }
        var rect = NormalizedRect.fullImage
        rect.rotation = Float(Double(degrees) * Double.pi / Double(-180))
        if degrees % 180 != 0 {
            rect.width = Float(1.0 * Double(imageHeight) / Double(imageWidth))
            rect.height = Float(1.0 * Double(imageWidth) / Double(imageHeight))
        }
        return rect
    }

    /// C++/Python/Android Tasks (`mediapipe/tasks/cc/vision/core/base_vision_task_api.h`,
    /// `ConvertToNormalizedRect`): `ImageProcessingOptions.rotation_degrees` (clockwise, multiple of 90)
    /// becomes `{0.5, 0.5, 1, 1}` with `rotation = −degrees·π/180` (double → `Float`); width and height are
    /// **not** swapped.
    public static func forRotationDegrees(_ degrees: Int) throws -> NormalizedRect {
        guard degrees % 90 == 0 else { throw DetectorInputRectError.rotationNotMultipleOf90(degrees) }
        var rect = NormalizedRect.fullImage
        rect.rotation = Float(Double(-degrees) * Double.pi / 180.0)
        return rect
    }
}
