#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A handedness classification as MediaPipe Tasks reports it: one `Category` per hand
/// (`mediapipe/tasks/cc/components/containers/category.h`; iOS `MPPCategory`).
public struct HandednessCategory: Sendable, Codable, Equatable {
    /// 0 = "Right", 1 = "Left" (Tasks label map).
    public var index: Int
    /// The kept class's score: the raw model output `s` for "Right", `1 − s` for "Left" (always ≥ 0.5
    /// unless the raw score is NaN or outside [0, 1]).
    public var score: Float
    public var categoryName: String
    public var displayName: String

    public init(index: Int, score: Float, categoryName: String, displayName: String) {
        self.index = index
        self.score = score
        self.categoryName = categoryName
        self.displayName = displayName
    }

    /// `TensorsToClassificationCalculator` with `binary_classification: true`, `top_k: 1` and the Tasks label
    /// map (`mediapipe/calculators/tensor/tensors_to_classification_calculator.cc`;
    /// `hand_landmarks_detector_graph.cc` `ConfigureTensorsToHandednessCalculator`, label 0 = "Right",
    /// 1 = "Left" since "Swap left and right hand labels", 2023 — confirmed on mediapipe 0.10.14 output).
    ///
    /// Two classes are formed, index 0 with score `s` and index 1 with `(float)(1.0 − s)` (double
    /// arithmetic), and `std::partial_sort(…, score >)` keeps the first: index 1 wins only if its score is
    /// strictly greater, so `s = 0.5` (and NaN) give index 0, "Right". No activation is applied to `s`.
    /// Tasks assumes a **non-mirrored** image; the legacy solution's labels are the opposite.
    public static func fromRawScore(_ s: Float) -> HandednessCategory {
        let second = Float(1.0 - Double(s))
        return second > s
            ? HandednessCategory(index: 1, score: second, categoryName: "Left", displayName: "Left")
            : HandednessCategory(index: 0, score: s, categoryName: "Right", displayName: "Right")
    }

    /// The same classification with the legacy graph's label map (`mediapipe/modules/hand_landmark/handedness.txt`:
    /// 0 = "Left", 1 = "Right"), which `mp.solutions.hands` reports: the same index and score as Tasks, the
    /// opposite label, because the legacy graph assumes a mirrored (selfie) image.
    public var legacyLabeled: HandednessCategory {
        let label = index == 0 ? "Left" : "Right"
        return HandednessCategory(index: index, score: score, categoryName: label, displayName: label)
    }
}

/// The decoded outputs of the hand landmark model for one ROI, before the presence gate
/// (check `isHandPresent(threshold:)`).
public struct HandLandmarkDecoding: Sendable, Equatable {
    /// Tensor 1 as the model outputs it (no activation; `TensorsToFloatsCalculator`).
    public var presenceScore: Float
    /// Tensor 2 as the model outputs it: the raw binary handedness score `s` (probability of "Right"
    /// in Tasks' non-mirrored convention). See `handedness`.
    public var handednessScore: Float
    /// The 21 landmarks in image-normalized coordinates: crop landmarks after letterbox removal and
    /// projection through the ROI (`z = raw_z/224/0.4·roi.width`); no visibility/presence.
    public var landmarks: [NormalizedLandmark]
    /// The 21 world landmarks (meters), rotated about z by the ROI rotation; no visibility/presence.
    public var worldLandmarks: [Landmark]
    /// The 21 landmarks normalized to the crop (`x/224`, `y/224`, `z/224/0.4`), before projection.
    public var cropLandmarks: [NormalizedLandmark]

    /// The Tasks handedness category for `handednessScore`.
    public var handedness: HandednessCategory { HandednessCategory.fromRawScore(handednessScore) }

    /// The presence gate (`ThresholdingCalculator`): strictly `presenceScore > threshold` (Tasks:
    /// `min_hand_presence_confidence`, default 0.5). When false MediaPipe drops this hand entirely.
    public func isHandPresent(threshold: Float = 0.5) -> Bool { presenceScore > threshold }
}

/// Errors from `HandLandmarkDecoder`.
public enum HandLandmarkDecoderError: Error, Equatable, CustomStringConvertible {
    case tensorTooShort(name: String, expected: Int, actual: Int)

    public var description: String {
        switch self {
        case let .tensorTooShort(name, e, a): return "HandLandmarkDecoder: \(name) tensor needs \(e) floats, has \(a)"
        }
    }
}

/// Decodes `hand_landmark_{lite,full}.tflite` outputs the way MediaPipe Tasks'
/// `HandLandmarksDetectorGraph` does (`mediapipe/tasks/cc/vision/hand_landmarker/hand_landmarks_detector_graph.cc`;
/// legacy `mediapipe/modules/hand_landmark/hand_landmark_cpu.pbtxt`). The model's outputs are used **by
/// index** (`SplitTensorVectorCalculator`), not by their metadata names, which are in a different order:
///
/// | index | tensor | shape | meaning |
/// |---|---|---|---|
/// | 0 | `Identity` | `[1, 63]` | 21 × (x, y, z) in pixels of the 224×224 input |
/// | 1 | `Identity_1` | `[1, 1]` | hand presence score |
/// | 2 | `Identity_2` | `[1, 1]` | handedness score |
/// | 3 | `Identity_3` | `[1, 63]` | 21 × (x, y, z) world landmarks, meters |
///
/// 1. `TensorsToLandmarksCalculator` (`tensors_to_landmarks_calculator.cc`): `x/224`, `y/224`,
///    `z/224/0.4` (`normalize_z` 0.4);
/// 2. `LandmarkLetterboxRemovalCalculator` (zero padding in Tasks: the crop is stretched, ROIs are square)
///    then `LandmarkProjectionCalculator` with the ROI;
/// 3. world landmarks: raw meters, `WorldLandmarkProjectionCalculator` (rotation by the ROI);
/// 4. presence and handedness as raw floats.
public struct HandLandmarkDecoder: Sendable, Equatable {
    public var landmarkCount: Int = 21
    public var inputWidth: Int = 224
    public var inputHeight: Int = 224
    /// `kLandmarksNormalizeZ` in `hand_landmarks_detector_graph.cc` (`float`).
    public var normalizeZ: Float = 0.4

    public init() {}

    /// Step 1: the 21 crop-normalized landmarks from tensor 0 (`[1, 63]`).
    public func cropLandmarks(fromRaw raw: UnsafeBufferPointer<Float>) throws -> [NormalizedLandmark] {
        let needed = landmarkCount * 3
        guard raw.count >= needed else {
            throw HandLandmarkDecoderError.tensorTooShort(name: "landmarks", expected: needed, actual: raw.count)
        }
        let w = Float(inputWidth), h = Float(inputHeight)
        return (0..<landmarkCount).map { i in
            NormalizedLandmark(x: raw[3 * i] / w, y: raw[3 * i + 1] / h, z: raw[3 * i + 2] / w / normalizeZ)
        }
    }

    /// Steps 1–4 for one ROI.
    /// - Parameters:
    ///   - landmarks: tensor 0 (`[1, 63]`).
    ///   - presence: tensor 1 (`[1, 1]`).
    ///   - handedness: tensor 2 (`[1, 1]`).
    ///   - worldLandmarks: tensor 3 (`[1, 63]`).
    ///   - roi: the ROI the crop was taken from.
    ///   - letterboxPadding: the crop's padding — zero in the Tasks graph.
    public func decode(landmarks: UnsafeBufferPointer<Float>, presence: UnsafeBufferPointer<Float>,
                       handedness: UnsafeBufferPointer<Float>, worldLandmarks: UnsafeBufferPointer<Float>,
                       roi: NormalizedRect, letterboxPadding: LetterboxPadding = .zero) throws -> HandLandmarkDecoding {
        guard let presenceScore = presence.first else {
            throw HandLandmarkDecoderError.tensorTooShort(name: "presence", expected: 1, actual: 0)
        }
        guard let handednessScore = handedness.first else {
            throw HandLandmarkDecoderError.tensorTooShort(name: "handedness", expected: 1, actual: 0)
        }
        guard worldLandmarks.count >= landmarkCount * 3 else {
            throw HandLandmarkDecoderError.tensorTooShort(name: "world landmarks", expected: landmarkCount * 3,
                                                          actual: worldLandmarks.count)
        }
        let crop = try cropLandmarks(fromRaw: landmarks)
        let world = (0..<landmarkCount).map { i in
            WorldLandmarkProjection.rotate(
                Landmark(x: worldLandmarks[3 * i], y: worldLandmarks[3 * i + 1], z: worldLandmarks[3 * i + 2]), by: roi)
        }
        return HandLandmarkDecoding(
            presenceScore: presenceScore,
            handednessScore: handednessScore,
            landmarks: crop.map { LandmarkProjection.project(letterboxPadding.removing(from: $0), onto: roi) },
            worldLandmarks: world,
            cropLandmarks: crop)
    }
}
