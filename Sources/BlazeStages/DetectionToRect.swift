#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// `AlignmentPointsRectsCalculator` (`mediapipe/calculators/util/alignment_points_to_rects_calculator.cc`)
/// with the rotation of its base class `DetectionsToRectsCalculator::ComputeRotation`
/// (`mediapipe/calculators/util/detections_to_rects_calculator.cc`): a square (in pixels) rect
/// centered on the start keypoint, side twice the start→end distance, rotated so the rect's "up"
/// axis points from the start keypoint toward the end keypoint when the target angle is 90°.
public struct AlignmentPointsRect: Sendable, Codable, Equatable {
    /// Start keypoint, end keypoint and target angle. Radians: `rotation_vector_target_angle_degrees` is
    /// converted as `M_PI·deg/180.f` (double) and stored as `float`, as MediaPipe's `target_angle_` member is.
    public var rotationVector: RotationVector

    public init(startKeypointIndex: Int, endKeypointIndex: Int, targetAngle: Float) {
        rotationVector = RotationVector(startKeypointIndex: startKeypointIndex, endKeypointIndex: endKeypointIndex, targetAngle: targetAngle)
    }

    public init(startKeypointIndex: Int, endKeypointIndex: Int, targetAngleDegrees: Float) {
        self.init(startKeypointIndex: startKeypointIndex, endKeypointIndex: endKeypointIndex,
                  targetAngle: Float(Double.pi * Double(targetAngleDegrees) / Double(Float(180))))
    }

    /// The pose detector's alignment: start keypoint 0 (mid-hip), end keypoint 1, target 90°
    /// (`pose_detection_to_roi.pbtxt`; `pose_detector_graph.cc` `ConfigureAlignmentPointsRectsCalculator`).
    public static let poseDetection = AlignmentPointsRect(startKeypointIndex: 0, endKeypointIndex: 1, targetAngleDegrees: 90)

    /// The rect for `detection` (relative keypoints) on an image of `imageWidth × imageHeight` pixels.
    ///
    /// In `Float`: `P = keypoint · (W, H)`; `side = sqrt(Δx² + Δy²)·2`; center = start / (W, H);
    /// `width = side/W`, `height = side/H`; `rotation = normalizeRadians(target − atan2(−(y1 − y0), x1 − x0))`.
    /// Returns `nil` if the detection lacks either keypoint.
    public func rect(for detection: Detection, imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        guard let (xCenter, yCenter, xScale, yScale) = rotationVector.keypointPixels(of: detection, imageWidth: imageWidth,
                                                                                     imageHeight: imageHeight) else { return nil }
        let w = Float(imageWidth), h = Float(imageHeight)
        let boxSize = ((xScale - xCenter) * (xScale - xCenter) + (yScale - yCenter) * (yScale - yCenter)).squareRoot() * 2
        let rotation = rotationVector.rotation(fromX: xCenter, y: yCenter, toX: xScale, y: yScale)
        return NormalizedRect(xCenter: xCenter / w, yCenter: yCenter / h, width: boxSize / w, height: boxSize / h,
                              rotation: rotation)
    }
}

/// The rotation of `DetectionsToRectsCalculator::ComputeRotation`, shared by its conversions
/// (``AlignmentPointsRect``, ``BoundingBoxRect``): the rect is turned so that the vector from the start
/// keypoint to the end keypoint points along `targetAngle`.
public struct RotationVector: Sendable, Codable, Equatable {
    public var startKeypointIndex: Int
    public var endKeypointIndex: Int
    /// Radians, stored as the calculator's `float target_angle_`.
    public var targetAngle: Float

    public init(startKeypointIndex: Int, endKeypointIndex: Int, targetAngle: Float) {
        self.startKeypointIndex = startKeypointIndex
        self.endKeypointIndex = endKeypointIndex
        self.targetAngle = targetAngle
    }

    /// The start and end keypoints in pixels (`keypoint · (W, H)`, in `Float`); nil if the detection lacks either.
    func keypointPixels(of detection: Detection, imageWidth: Int, imageHeight: Int) -> (x0: Float, y0: Float, x1: Float, y1: Float)? {
        guard detection.keypoints.indices.contains(startKeypointIndex),
              detection.keypoints.indices.contains(endKeypointIndex) else { return nil }
        let w = Float(imageWidth), h = Float(imageHeight)
        let start = detection.keypoints[startKeypointIndex], end = detection.keypoints[endKeypointIndex]
        return (start.x * w, start.y * h, end.x * w, end.y * h)
    }

    /// `normalizeRadians(target − atan2(−(y1 − y0), x1 − x0))`.
    func rotation(fromX x0: Float, y y0: Float, toX x1: Float, y y1: Float) -> Float {
        normalizeRadians(targetAngle - atan2(-(y1 - y0), x1 - x0))
    }
}

/// `RectTransformationCalculator` for `NormalizedRect` (`mediapipe/calculators/util/rect_transformation_calculator.cc`
/// + `.proto`): shift (in the rect's rotated frame), then make square, then scale. The calculator's
/// extra-rotation options are not used by the pose/hand graphs and are not modelled.
public struct RectTransformation: Sendable, Codable, Equatable {
    public var scaleX: Float
    public var scaleY: Float
    public var shiftX: Float
    public var shiftY: Float
    public var squareLong: Bool
    public var squareShort: Bool

    public init(scaleX: Float = 1, scaleY: Float = 1, shiftX: Float = 0, shiftY: Float = 0,
                squareLong: Bool = false, squareShort: Bool = false) {
        self.scaleX = scaleX
        self.scaleY = scaleY
        self.shiftX = shiftX
        self.shiftY = shiftY
        self.squareLong = squareLong
        self.squareShort = squareShort
    }

    /// Detection → landmark ROI for pose: ×1.25, square on the long side, no shift
    /// (`pose_detection_to_roi.pbtxt`; `pose_detector_graph.cc` `ConfigureRectTransformationCalculator`).
    public static let poseDetectionToROI = RectTransformation(scaleX: 1.25, scaleY: 1.25, squareLong: true)

    /// `TransformNormalizedRect`, in `Float`, in MediaPipe's order:
    /// 1. shift using the **original** width/height — if `rotation == 0` exactly,
    ///    `x += width·shift_x`, `y += height·shift_y`; otherwise
    ///    `x += (W·width·shift_x·cos θ − H·height·shift_y·sin θ)/W`,
    ///    `y += (W·width·shift_x·sin θ + H·height·shift_y·cos θ)/H`;
    /// 2. `square_long`: `long = max(width·W, height·H)`, `width = long/W`, `height = long/H`
    ///    (`square_short` likewise with `min`);
    /// 3. `width *= scale_x`, `height *= scale_y`. Rotation unchanged.
    public func apply(to rect: NormalizedRect, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        var out = rect
        var width = rect.width
        var height = rect.height
        let rotation = rect.rotation
        let w = Float(imageWidth), h = Float(imageHeight)
        if rotation == 0 {
            out.xCenter = rect.xCenter + width * shiftX
            out.yCenter = rect.yCenter + height * shiftY
        } else {
            let c = cos(rotation), s = sin(rotation)
            let xShift = (w * width * shiftX * c - h * height * shiftY * s) / w
            let yShift = (w * width * shiftX * s + h * height * shiftY * c) / h
            out.xCenter = rect.xCenter + xShift
            out.yCenter = rect.yCenter + yShift
        }
        if squareLong {
            let long = max(width * w, height * h)
            width = long / w
            height = long / h
        } else if squareShort {
            let short = min(width * w, height * h)
            width = short / w
            height = short / h
        }
        out.width = width * scaleX
        out.height = height * scaleY
        return out
    }
}
