#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The palm detector's fixed configuration, as `hand_detector_graph.cc`
// (`mediapipe/tasks/cc/vision/hand_detector/hand_detector_graph.cc`) hard-codes it; the legacy
// `mediapipe/modules/palm_detection/palm_detection_cpu.pbtxt` uses the same values.

extension SSDAnchorOptions {
    /// The palm detector's anchors (`hand_detector_graph.cc` `ConfigureSsdAnchorsCalculator`;
    /// `palm_detection_cpu.pbtxt`): 192×192, 4 layers, scales 0.1484375…0.75, strides 8, 16, 16, 16,
    /// aspect ratio 1, offsets 0.5, fixed size, interpolated scale aspect ratio 1.0 (proto default).
    /// Stride 8 → 24×24 cells × 2 anchors = 1152; strides 16 (merged) → 12×12 × 6 = 864;
    /// **2016** anchors, all `w = h = 1`.
    public static let palmDetection = SSDAnchorOptions(
        inputSizeWidth: 192, inputSizeHeight: 192, minScale: 0.1484375, maxScale: 0.75,
        anchorOffsetX: 0.5, anchorOffsetY: 0.5, strides: [8, 16, 16, 16], aspectRatios: [1.0],
        fixedAnchorSize: true)
}

extension DetectionDecoder {
    /// The palm detector's decoding (`hand_detector_graph.cc` `ConfigureTensorsToDetectionsCalculator`;
    /// `palm_detection_cpu.pbtxt`): 2016 boxes × 18 coords (box + 7 keypoints, XYWH, x-then-y),
    /// scales 192, one class, sigmoid with clipping ±100. `minScore` is
    /// `min_hand_detection_confidence` (Tasks default 0.5); detections with `score < minScore` are dropped.
    ///
    /// Keypoint 0 is the center of the wrist and keypoint 2 the middle finger's MCP (the graph's
    /// comments); the meaning of the other five is not documented.
    public static func palmDetection(minScore: Float = 0.5) -> DetectionDecoder {
        DetectionDecoder(numBoxes: 2016, numCoords: 18, numClasses: 1, boxCoordOffset: 0,
                         keypointCoordOffset: 4, numKeypoints: 7, numValuesPerKeypoint: 2,
                         xScale: 192, yScale: 192, wScale: 192, hScale: 192,
                         reverseOutputOrder: true, sigmoidScore: true,
                         scoreClippingThreshold: 100, minScoreThreshold: minScore)
    }
}

/// `DetectionsToRectsCalculator` in its default (bounding-box) conversion mode with rotation
/// (`mediapipe/calculators/util/detections_to_rects_calculator.cc`, `DetectionToNormalizedRect` +
/// `ComputeRotation`): the rect is the detection's relative bounding box, rotated so that the vector
/// start keypoint → end keypoint points along `targetAngle`.
public struct BoundingBoxRect: Sendable, Codable, Equatable {
    /// Start keypoint, end keypoint and target angle (radians).
    public var rotationVector: RotationVector
    /// The target angle in radians.
    public var targetAngle: Float { rotationVector.targetAngle }

    public init(startKeypointIndex: Int, endKeypointIndex: Int, targetAngle: Float) {
        rotationVector = RotationVector(startKeypointIndex: startKeypointIndex, endKeypointIndex: endKeypointIndex, targetAngle: targetAngle)
    }

    /// The Tasks palm → hand-rect conversion (`hand_detector_graph.cc` `ConfigureDetectionsToRectsCalculator`):
    /// start keypoint 0 (wrist center), end keypoint 2 (middle-finger MCP), and
    /// `set_rotation_vector_target_angle(90)` — the **radians** field
    /// (`detections_to_rects_calculator.proto`: `rotation_vector_target_angle`, "in radians"), so the target
    /// is literally 90 rad. After `NormalizeRadians` that is 90 − 28π ≈ 2.0354 rad (≈ 116.6°): the Tasks
    /// palm ROI is turned ≈ 26.6° further clockwise than the legacy graph's. This is what MediaPipe Tasks
    /// runs (`mediapipe/tasks/cc/vision/hand_detector/hand_detector_graph.cc`, intended or not), and it is
    /// confirmed by mediapipe 0.10.14's HandLandmarker output on the photo fixtures
    /// (`Tests/BlazeKitTests/Fixtures/hand`): a reproduction with 90 rad lands within ~0.001 of its wrist
    /// landmarks, one with π/2 is off by up to 0.03. See `palmDetectionLegacy` for π/2.
    public static let palmDetection = BoundingBoxRect(startKeypointIndex: 0, endKeypointIndex: 2, targetAngle: 90)

    /// The legacy graph's conversion (`mediapipe/modules/hand_landmark/palm_detection_detection_to_roi.pbtxt`:
    /// `rotation_vector_target_angle_degrees: 90`, i.e. `M_PI·90/180.f` = π/2).
    public static let palmDetectionLegacy = BoundingBoxRect(
        startKeypointIndex: 0, endKeypointIndex: 2, targetAngle: Float(Double.pi * 90 / Double(Float(180))))

    /// The rect for `detection` (relative box and keypoints) on an image of `imageWidth × imageHeight`.
    ///
    /// In `Float`: `x_center = xmin + width/2`, `y_center = ymin + height/2`, size = the box's;
    /// `rotation = normalizeRadians(target − atan2(−(y1 − y0), x1 − x0))` with the keypoints in pixels.
    /// Returns `nil` if the detection lacks either keypoint (MediaPipe would fail the graph).
    public func rect(for detection: Detection, imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        guard let (x0, y0, x1, y1) = rotationVector.keypointPixels(of: detection, imageWidth: imageWidth, imageHeight: imageHeight)
        else { return nil }
        let rotation = rotationVector.rotation(fromX: x0, y: y0, toX: x1, y: y1)
        return NormalizedRect(xCenter: detection.xmin + detection.width / 2,
                              yCenter: detection.ymin + detection.height / 2,
                              width: detection.width, height: detection.height, rotation: rotation)
    }
}

extension RectTransformation {
    /// Palm rect → hand ROI (`hand_detector_graph.cc` `ConfigureRectTransformationCalculator`;
    /// `palm_detection_detection_to_roi.pbtxt`): shift `−0.5` of the box height along the rect's "up"
    /// axis (toward the fingers), square on the long side, ×2.6.
    public static let palmDetectionToROI = RectTransformation(scaleX: 2.6, scaleY: 2.6, shiftY: -0.5, squareLong: true)
}
