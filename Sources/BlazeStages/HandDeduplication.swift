#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `HandLandmarksDeduplicationCalculator`
/// (`mediapipe/tasks/cc/vision/hand_landmarker/calculators/hand_landmarks_deduplication_calculator.cc`,
/// `HandDuplicatesFinder` with `start_from_the_end = false`), which `hand_landmarker_graph.cc` runs on every
/// frame in **every** running mode, IMAGE included, after the landmark model and the presence gate.
///
/// Hands are visited in list order; hand *i* is suppressed if some already **retained** hand *j* has
/// (a) at least 10 of the 21 corresponding landmarks closer than `0.2·max(baseline_i, baseline_j)` pixels
/// **and** (b) landmark-box IoU `> 0.2`. So the earlier hand (detector NMS order: higher palm score; in
/// stream mode tracked hands first) wins; presence scores play no part. Suppressed hands are removed from
/// landmarks, world landmarks, handedness and next-frame ROIs alike.
public enum HandDeduplication {
    /// `Distance`: `std::sqrt(std::pow((a.x − b.x)·W, 2) + std::pow((a.y − b.y)·H, 2))` — the products
    /// in `float`, `std::pow(float, int)` promotes to `double`, the result is stored as `float`.
    public static func pixelDistance(_ a: NormalizedLandmark, _ b: NormalizedLandmark, imageWidth: Int, imageHeight: Int) -> Float {
        let dx = Double((a.x - b.x) * Float(imageWidth)), dy = Double((a.y - b.y) * Float(imageHeight))
        return Float((dx * dx + dy * dy).squareRoot())
    }

    /// `HandBaselineDistance`: the largest of the pixel distances wrist–index MCP, index MCP–pinky MCP,
    /// pinky MCP–wrist (landmarks 0, 5, 17).
    public static func baselineDistance(_ hand: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) -> Float {
        precondition(hand.count == 21, "a hand has 21 landmarks")
        var d = pixelDistance(hand[0], hand[5], imageWidth: imageWidth, imageHeight: imageHeight)
        d = max(d, pixelDistance(hand[5], hand[17], imageWidth: imageWidth, imageHeight: imageHeight))
        d = max(d, pixelDistance(hand[17], hand[0], imageWidth: imageWidth, imageHeight: imageHeight))
        return d
    }

    /// The axis-aligned box of a hand's landmarks, `(left, top, right, bottom)`, normalized (`CalculateBound`).
    public static func bounds(_ hand: [NormalizedLandmark]) -> (left: Float, top: Float, right: Float, bottom: Float) {
        var left = Float.greatestFiniteMagnitude, top = Float.greatestFiniteMagnitude
        var right = -Float.greatestFiniteMagnitude, bottom = -Float.greatestFiniteMagnitude
        for l in hand {
            left = min(left, l.x); top = min(top, l.y)
            right = max(right, l.x); bottom = max(bottom, l.y)
        }
        return (left, top, right, bottom)
    }

    /// `CalculateIOU` (`mediapipe/tasks/cc/vision/utils/landmarks_utils.cc`): 0 if either area is ≤ 0;
    /// otherwise `I / (A + B − I)` with the intersection's sides clamped at 0, all in `float`.
    public static func intersectionOverUnion(_ a: (left: Float, top: Float, right: Float, bottom: Float),
                                             _ b: (left: Float, top: Float, right: Float, bottom: Float)) -> Float {
        let areaA = (a.right - a.left) * (a.bottom - a.top)
        let areaB = (b.right - b.left) * (b.bottom - b.top)
        if areaA <= 0 || areaB <= 0 { return 0 }
        let intersection = max(min(a.bottom, b.bottom) - max(a.top, b.top), 0)
            * max(min(a.right, b.right) - max(a.left, b.left), 0)
        return intersection / (areaA + areaB - intersection)
    }

    /// The indices of the hands to **keep**, ascending. `hands` are image-normalized landmark lists of
    /// 21 landmarks each; `imageWidth × imageHeight` is the input image size.
    public static func retainedIndices(of hands: [[NormalizedLandmark]], imageWidth: Int, imageHeight: Int) -> [Int] {
        let baselines = hands.map { baselineDistance($0, imageWidth: imageWidth, imageHeight: imageHeight) }
        let boxes = hands.map { bounds($0) }
        var retained: [Int] = []
        for i in hands.indices {
            let suppressed = retained.contains { j in
                let threshold = max(baselines[i], baselines[j]) * 0.2
                var matched = 0
                for k in hands[i].indices where pixelDistance(hands[i][k], hands[j][k], imageWidth: imageWidth,
                                                              imageHeight: imageHeight) < threshold {
                    matched += 1
                }
                return matched >= 10 && intersectionOverUnion(boxes[i], boxes[j]) > 0.2
            }
            if !suppressed { retained.append(i) }
        }
        return retained
    }

    /// `retainedIndices` applied to a list of per-hand values (e.g. `HandLandmarkDecoding`s with their ROIs).
    public static func deduplicate<T>(_ hands: [T], imageWidth: Int, imageHeight: Int,
                                      landmarks: (T) -> [NormalizedLandmark]) -> [T] {
        retainedIndices(of: hands.map(landmarks), imageWidth: imageWidth, imageHeight: imageHeight).map { hands[$0] }
    }
}
