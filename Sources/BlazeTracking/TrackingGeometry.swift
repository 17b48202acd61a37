import BlazeStages
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// The next frame's region of interest, computed from this frame's landmarks.
public enum NextFrameROI {
    /// Pose (`pose_landmarks_detector_graph.cc`, "region of interest based on auxiliary landmarks";
    /// `mediapipe/modules/pose_landmark/pose_landmarks_to_roi.pbtxt`): the two auxiliary landmarks
    /// (model indices 33, 34, projected to the image) become keypoints 0 and 1 of a detection;
    /// `AlignmentPointsRect` (centre on keypoint 0, side 2·distance, rotated toward keypoint 1, 90°);
    /// then ×1.25, square on the long side. Returns nil without two auxiliary landmarks.
    public static func pose(auxiliaryLandmarks aux: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        guard aux.count >= 2 else { return nil }
        let detection = Detection(score: 0, xmin: 0, ymin: 0, width: 0, height: 0,
                                  keypoints: aux.prefix(2).map { SIMD2($0.x, $0.y) })
        return AlignmentPointsRect.poseDetection.rect(for: detection, imageWidth: imageWidth, imageHeight: imageHeight)
            .map { RectTransformation.poseDetectionToROI.apply(to: $0, imageWidth: imageWidth, imageHeight: imageHeight) }
    }

    /// The 12 landmarks `HandLandmarksToRectCalculator` uses when given all 21.
    public static let handSubset = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18]

    /// `HandLandmarksToRectCalculator` (`mediapipe/modules/hand_landmark/calculators/hand_landmarks_to_rect_calculator.cc`)
    /// on the 12-landmark subset, without the transformation: rotation from the wrist toward
    /// `((lm5 + lm13)/2 + lm9)/2` (target π/2), then the tightest box of the subset in that rotated frame.
    /// All in `Float`, with the running maxima starting at `FLT_MIN` as in the C++.
    public static func handRect(landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        guard landmarks.count == 21 else { return nil }
        let p = handSubset.map { landmarks[$0] }
        let w = Float(imageWidth), h = Float(imageHeight)
        // ComputeRotation: subset indices 0 (wrist), 4, 6, 8 = landmarks 5, 9, 13.
        let x0 = p[0].x * w, y0 = p[0].y * h
        var x1 = (p[4].x + p[8].x) / 2, y1 = (p[4].y + p[8].y) / 2
        x1 = (x1 + p[6].x) / 2 * w
        y1 = (y1 + p[6].y) / 2 * h
        let rotation = normalizeRadians(Float(Double.pi * 0.5) - atan2(-(y1 - y0), x1 - x0))
        let reverse = normalizeRadians(-rotation)

        var maxX = Float.leastNormalMagnitude, maxY = Float.leastNormalMagnitude
        var minX = Float.greatestFiniteMagnitude, minY = Float.greatestFiniteMagnitude
        for l in p {
            maxX = max(maxX, l.x); maxY = max(maxY, l.y)
            minX = min(minX, l.x); minY = min(minY, l.y)
        }
        let cx = (maxX + minX) / 2, cy = (maxY + minY) / 2
        maxX = .leastNormalMagnitude; maxY = .leastNormalMagnitude
        minX = .greatestFiniteMagnitude; minY = .greatestFiniteMagnitude
        let cr = cos(reverse), sr = sin(reverse)
        for l in p {
            let ox = (l.x - cx) * w, oy = (l.y - cy) * h
            let px = ox * cr - oy * sr
            let py = ox * sr + oy * cr
            maxX = max(maxX, px); maxY = max(maxY, py)
            minX = min(minX, px); minY = min(minY, py)
        }
        let pcx = (maxX + minX) / 2, pcy = (maxY + minY) / 2
        let c = cos(rotation), s = sin(rotation)
        let centerX = pcx * c - pcy * s + w * cx
        let centerY = pcx * s + pcy * c + h * cy
        return NormalizedRect(xCenter: centerX / w, yCenter: centerY / h, width: (maxX - minX) / w, height: (maxY - minY) / h,
                              rotation: rotation)
    }

    /// Hand ROI transformation of MediaPipe Tasks (`ConfigureHandRectTransformationCalculator`): ×2, shift −0.1, square long.
    public static let handTransformation = RectTransformation(scaleX: 2, scaleY: 2, shiftY: -0.1, squareLong: true)

    /// The hand's next-frame ROI: `handRect` then `handTransformation`.
    public static func hand(landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        handRect(landmarks: landmarks, imageWidth: imageWidth, imageHeight: imageHeight)
            .map { handTransformation.apply(to: $0, imageWidth: imageWidth, imageHeight: imageHeight) }
    }
}

/// How tracked regions (from the previous frame's landmarks) and newly detected ones are merged,
/// with IoU on the **axis-aligned** rects (rotation ignored), as MediaPipe computes it.
public enum RegionAssociation {
    /// `Rectangle_f(x_center − width/2, y_center − height/2, width, height)` (the half-widths in double,
    /// as `width() / 2.0`), then `CalculateIou` (0 unless intersecting, `I/(A + B − I)`).
    public static func intersectionOverUnion(_ a: NormalizedRect, _ b: NormalizedRect) -> Float {
        NonMaxSuppression.intersectionOverUnion(box(a), box(b))
    }

    static func box(_ r: NormalizedRect) -> Detection {
        Detection(score: 0, xmin: Float(Double(r.xCenter) - Double(r.width) / 2.0),
                  ymin: Float(Double(r.yCenter) - Double(r.height) / 2.0), width: r.width, height: r.height)
    }

    /// Pose (`AssociationNormRectCalculator`, inputs [tracked, detected]): the list starts with the first
    /// non-empty input's first element; every further element (the rest of that input, then the later
    /// input) is appended after removing each element already listed whose IoU with it is `> threshold`.
    /// So a detection **replaces** the tracked region it overlaps.
    public static func replacingOverlaps(tracked: [NormalizedRect], detected: [NormalizedRect], threshold: Float) -> [NormalizedRect] {
        associating([tracked, detected], threshold: threshold)
    }

    /// `AssociationNormRectCalculator` over its input streams in order: a later element replaces every
    /// element already listed whose IoU with it is `> threshold`. The legacy hand graph passes palm regions
    /// first and tracked regions second.
    public static func associating(_ inputs: [[NormalizedRect]], threshold: Float) -> [NormalizedRect] {
        var result: [NormalizedRect] = []
        for (i, element) in inputs.joined().enumerated() {
            if i > 0 { result.removeAll { intersectionOverUnion(element, $0) > threshold } }
            result.append(element)
        }
        return result
    }

    /// Hand (`HandAssociationCalculator`, BASE_RECTS = tracked, RECTS = detected): every tracked region is
    /// kept; a detected one is appended only if its IoU with every region already kept is `≤ threshold`.
    /// So the **tracked** region wins.
    public static func keepingTracked(tracked: [NormalizedRect], detected: [NormalizedRect], threshold: Float) -> [NormalizedRect] {
        var result = tracked
        for element in detected where !result.contains(where: { intersectionOverUnion($0, element) > threshold }) {
            result.append(element)
        }
        return result
    }
}
