#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// The regions of MediaPipe's legacy Holistic graph (`mediapipe/modules/holistic_landmark/`, 0.10.14): where
/// the face and the hands are cropped, derived from the pose, from a face detection, from the hand re-crop
/// network's two points, and from the previous frame's landmarks. All in `Float`, in MediaPipe's order.
public enum HolisticRegions {
    /// `LandmarksToDetectionCalculator` (`mediapipe/calculators/util/landmarks_to_detection_calculator.cc`):
    /// every landmark becomes a keypoint; the box spans them, its maxima starting at `FLT_MIN` (the smallest
    /// positive float, `std::numeric_limits<float>::min()`) and its minima at `FLT_MAX`.
    public static func detection(from landmarks: [NormalizedLandmark]) -> Detection {
        var xMin = Float.greatestFiniteMagnitude, yMin = Float.greatestFiniteMagnitude
        var xMax = Float.leastNormalMagnitude, yMax = Float.leastNormalMagnitude
        for l in landmarks {
            xMin = min(xMin, l.x); xMax = max(xMax, l.x)
            yMin = min(yMin, l.y); yMax = max(yMax, l.y)
        }
        return Detection(score: 0, xmin: xMin, ymin: yMin, width: xMax - xMin, height: yMax - yMin,
                         keypoints: landmarks.map { SIMD2($0.x, $0.y) })
    }

    // MARK: Face

    /// `face_landmarks_from_pose_to_recrop_roi.pbtxt`: the pose's landmarks 0…10 as a detection, its box
    /// rotated from keypoint 5 (right eye) to keypoint 2 (left eye), target 0°, then ×3 and square on the
    /// long side. nil with fewer than 11 landmarks.
    public static func faceFromPose(_ pose: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        guard pose.count >= 11 else { return nil }
        let conversion = BoundingBoxRect(startKeypointIndex: 5, endKeypointIndex: 2, targetAngle: 0)
        return conversion.rect(for: detection(from: Array(pose.prefix(11))), imageWidth: imageWidth, imageHeight: imageHeight)
            .map { RectTransformation(scaleX: 3, scaleY: 3, squareLong: true).apply(to: $0, imageWidth: imageWidth, imageHeight: imageHeight) }
    }

    /// `face_detection_front_detections_to_roi.pbtxt`: the first detection's keypoints' extent
    /// (`conversion_mode: USE_KEYPOINTS`: centre `(min + max)/2`, size `max − min`, the extremes starting at
    /// ∓`FLT_MAX`), rotated from keypoint 0 (right eye) to keypoint 1 (left eye), target 0°; then ×2, shift
    /// −0.1 of the height, square on the long side. nil without a detection.
    public static func faceFromDetection(_ detections: [Detection], imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        guard let d = detections.first, d.keypoints.count > 1 else { return nil }
        var xMin = Float.greatestFiniteMagnitude, yMin = Float.greatestFiniteMagnitude
        var xMax = -Float.greatestFiniteMagnitude, yMax = -Float.greatestFiniteMagnitude
        for k in d.keypoints {
            xMin = min(xMin, k.x); yMin = min(yMin, k.y)
            xMax = max(xMax, k.x); yMax = max(yMax, k.y)
        }
        let vector = RotationVector(startKeypointIndex: 0, endKeypointIndex: 1, targetAngle: 0)
        guard let (x0, y0, x1, y1) = vector.keypointPixels(of: d, imageWidth: imageWidth, imageHeight: imageHeight) else { return nil }
        let rect = NormalizedRect(xCenter: (xMin + xMax) / 2, yCenter: (yMin + yMax) / 2, width: xMax - xMin, height: yMax - yMin,
                                  rotation: vector.rotation(fromX: x0, y: y0, toX: x1, y: y1))
        return RectTransformation(scaleX: 2, scaleY: 2, shiftY: -0.1, squareLong: true).apply(to: rect, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// `face_landmarks_to_roi.pbtxt` (holistic): all face landmarks as a detection, its box rotated from
    /// landmark 33 to landmark 263, target 0°, then ×1.5, square on the long side.
    public static func faceFromLandmarks(_ face: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        let conversion = BoundingBoxRect(startKeypointIndex: 33, endKeypointIndex: 263, targetAngle: 0)
        return conversion.rect(for: detection(from: face), imageWidth: imageWidth, imageHeight: imageHeight)
            .map { RectTransformation(scaleX: 1.5, scaleY: 1.5, squareLong: true).apply(to: $0, imageWidth: imageWidth, imageHeight: imageHeight) }
    }

    // MARK: Hands

    /// The pose landmarks a hand is found from: wrist, pinky, index (`hand_landmarks_left_and_right_cpu.pbtxt`:
    /// 15, 17, 19 for the left hand, 16, 18, 20 for the right).
    public static func handLandmarksFromPose(_ pose: [NormalizedLandmark], left: Bool) -> [NormalizedLandmark]? {
        guard pose.count >= 21 else { return nil }
        return (left ? [15, 17, 19] : [16, 18, 20]).map { pose[$0] }
    }

    /// `hand_visibility_from_hand_landmarks_from_pose.pbtxt`: the wrist's visibility strictly above 0.1
    /// (`ThresholdingCalculator`, compared in double). A missing visibility counts as 0.
    public static func isHandVisible(wrist: NormalizedLandmark) -> Bool {
        Double(wrist.visibility ?? 0) > 0.1
    }

    /// `hand_landmarks_from_pose_to_recrop_roi.pbtxt` with `HandDetectionsFromPoseToRectsCalculator`: the
    /// middle finger estimated as `(2·index + pinky)/3`, a square centred on it with side twice its distance
    /// to the wrist, rotated so the wrist→middle vector points up (target π/2); then ×2.7, shift −0.1, square long.
    /// `hand` is wrist, pinky, index.
    public static func handFromPose(_ hand: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        guard hand.count == 3 else { return nil }
        let w = Float(imageWidth), h = Float(imageHeight)
        let xWrist = hand[0].x * w, yWrist = hand[0].y * h
        let xIndex = hand[2].x * w, yIndex = hand[2].y * h
        let xPinky = hand[1].x * w, yPinky = hand[1].y * h
        let xMiddle = (2 * xIndex + xPinky) / 3, yMiddle = (2 * yIndex + yPinky) / 3
        let dx = xMiddle - xWrist, dy = yMiddle - yWrist
        let boxSize = Float(Double((dx * dx + dy * dy).squareRoot()) * 2.0)
        let rotation = normalizeRadians(Float(Double.pi * 0.5) - atan2(-(yMiddle - yWrist), xMiddle - xWrist))
        let rect = NormalizedRect(xCenter: xMiddle / w, yCenter: yMiddle / h, width: boxSize / w, height: boxSize / h, rotation: rotation)
        return RectTransformation(scaleX: 2.7, scaleY: 2.7, shiftY: -0.1, squareLong: true).apply(to: rect, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// `hand_recrop_by_roi_cpu.pbtxt`, after the network: its two image-normalized points become an
    /// `AlignmentPointsRectsCalculator` rect (centre on point 0, side twice the distance, target −90°), then
    /// ×1, shift −0.1, square long.
    public static func handFromRecrop(_ points: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        let alignment = AlignmentPointsRect(startKeypointIndex: 0, endKeypointIndex: 1, targetAngleDegrees: -90)
        return alignment.rect(for: detection(from: points), imageWidth: imageWidth, imageHeight: imageHeight)
            .map { RectTransformation(shiftY: -0.1, squareLong: true).apply(to: $0, imageWidth: imageWidth, imageHeight: imageHeight) }
    }
}
