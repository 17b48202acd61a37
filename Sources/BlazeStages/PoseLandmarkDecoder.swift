#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// The decoded outputs of the pose landmark model for one ROI (before the presence gate is applied —
/// check `isPosePresent(threshold:)`).
public struct PoseLandmarkDecoding: Sendable, Equatable {
    /// Tensor 1 as the model outputs it: **no** activation (`TensorsToFloatsCalculator`, activation NONE).
    public var presenceScore: Float
    /// All 39 landmarks in crop-normalized coordinates (x, y in `[0, 1]` of the 256×256 input, z = raw/256,
    /// sigmoid visibility/presence), after heatmap refinement, before letterbox removal and projection.
    public var cropLandmarks: [NormalizedLandmark]
    /// The 33 public pose landmarks in image-normalized coordinates (indices 0–32).
    public var landmarks: [NormalizedLandmark]
    /// The 2 auxiliary landmarks (indices 33–34) in image-normalized coordinates; they only feed the
    /// next-frame ROI.
    public var auxiliaryLandmarks: [NormalizedLandmark]
    /// The 33 world landmarks (meters, hip-centered), rotated by the ROI rotation, with visibility and
    /// presence copied from the refined crop landmarks.
    public var worldLandmarks: [Landmark]

    /// The presence gate (`ThresholdingCalculator`, `mediapipe/calculators/util/thresholding_calculator.cc`):
    /// strictly `presenceScore > threshold` (Tasks: `min_pose_presence_confidence`, default 0.5). When
    /// false MediaPipe drops everything for this ROI (landmarks, world landmarks, mask, next ROI).
    public func isPosePresent(threshold: Float = 0.5) -> Bool { presenceScore > threshold }
}

/// Errors from `PoseLandmarkDecoder`.
public enum PoseLandmarkDecoderError: Error, Equatable, CustomStringConvertible {
    case tensorTooShort(name: String, expected: Int, actual: Int)
    case heatmapShapeMismatch(channels: Int, landmarks: Int)

    public var description: String {
        switch self {
        case let .tensorTooShort(name, e, a): return "PoseLandmarkDecoder: \(name) tensor needs \(e) floats, has \(a)"
        case let .heatmapShapeMismatch(c, l):
            return "PoseLandmarkDecoder: heatmap has \(c) channels, expected one per landmark (\(l))"
        }
    }
}

/// Decodes `pose_landmark_{lite,full,heavy}.tflite` outputs the way the Tasks graph
/// (`mediapipe/tasks/cc/vision/pose_landmarker/pose_landmarks_detector_graph.cc`) and the legacy
/// `tensors_to_pose_landmarks_and_segmentation.pbtxt` do:
///
/// 1. `TensorsToLandmarksCalculator` (`mediapipe/calculators/tensor/tensors_to_landmarks_calculator.cc`):
///    39 × 5 values; `x/256`, `y/256`, `z/256` (then `/normalize_z = 1`), sigmoid visibility and presence;
/// 2. `RefineLandmarksFromHeatmapCalculator` (kernel 7, min confidence 0.5) — `refineWithHeatmap`;
/// 3. split 0–32 / 33–34 (35–38 discarded);
/// 4. `LandmarkLetterboxRemovalCalculator` then `LandmarkProjectionCalculator` with the ROI;
/// 5. world landmarks: 39 × 3 raw meters, keep 0–32, copy visibility/presence
///    (`VisibilityCopyCalculator`), rotate by the ROI (`WorldLandmarkProjectionCalculator`).
public struct PoseLandmarkDecoder: Sendable, Equatable {
    public var landmarkCount: Int = 39
    public var publicLandmarkCount: Int = 33
    public var auxiliaryLandmarkRange: Range<Int> = 33..<35
    public var valuesPerLandmark: Int = 5
    public var inputWidth: Int = 256
    public var inputHeight: Int = 256
    public var heatmapKernelSize: Int = 7
    public var minConfidenceToRefine: Float = 0.5

    public init() {}

    /// Step 1: the 39 crop-normalized landmarks from tensor 0 (`[1, 195]`).
    public func cropLandmarks(fromRaw raw: UnsafeBufferPointer<Float>) throws -> [NormalizedLandmark] {
        let needed = landmarkCount * valuesPerLandmark
        guard raw.count >= needed else {
            throw PoseLandmarkDecoderError.tensorTooShort(name: "landmarks", expected: needed, actual: raw.count)
        }
        let w = Float(inputWidth), h = Float(inputHeight)
        return (0..<landmarkCount).map { i in
            let o = i * valuesPerLandmark
            return NormalizedLandmark(x: raw[o] / w, y: raw[o + 1] / h, z: raw[o + 2] / w / 1.0,
                                      visibility: sigmoid(raw[o + 3]), presence: sigmoid(raw[o + 4]))
        }
    }

    /// Step 2: `RefineLandmarksFromHeatMap` (`mediapipe/calculators/util/refine_landmarks_from_heatmap_calculator.cc`)
    /// on an HWC heatmap with one channel per landmark. For each landmark, in `Float`:
    /// `col = Int32(x·W)`, `row = Int32(y·H)` (C++ truncation); the landmark is skipped when
    /// `col < 0 || col ≥ W || row < 0 || col ≥ H` — MediaPipe compares **`center_col`** with the height
    /// where it means `center_row`, so a row ≥ H is *not* skipped: its (clipped, possibly partial or
    /// empty) window is still used. The window is rows/cols within ±(kernel−1)/2 clipped to the map;
    /// `conf = 1/(1 + exp(−logit))`; if `max conf ≥ minConfidence` and `Σconf > 0`:
    /// `x = (Σ col·conf)/W/Σconf`, `y = (Σ row·conf)/H/Σconf` (integer cell indices, no +0.5).
    /// z, visibility and presence are untouched (`refine_presence`/`refine_visibility` are false).
    public func refineWithHeatmap(_ landmarks: [NormalizedLandmark], heatmap: UnsafeBufferPointer<Float>,
                                  heatmapHeight: Int, heatmapWidth: Int) throws -> [NormalizedLandmark] {
        let channels = landmarks.count
        let needed = heatmapHeight * heatmapWidth * channels
        guard heatmap.count >= needed else {
            throw PoseLandmarkDecoderError.tensorTooShort(name: "heatmap", expected: needed, actual: heatmap.count)
        }
        let rowSize = heatmapWidth * channels
        let offset = (heatmapKernelSize - 1) / 2
        var out = landmarks
        for index in landmarks.indices {
            let centerCol = cppFloatToInt32(landmarks[index].x * Float(heatmapWidth))
            let centerRow = cppFloatToInt32(landmarks[index].y * Float(heatmapHeight))
            if centerCol < 0 || centerCol >= heatmapWidth || centerRow < 0 || centerCol >= heatmapHeight { continue }
            let beginCol = max(0, centerCol - offset)
            let endCol = min(heatmapWidth, centerCol + offset + 1)
            let beginRow = max(0, centerRow - offset)
            let endRow = min(heatmapHeight, centerRow + offset + 1)
            var sum: Float = 0, weightedCol: Float = 0, weightedRow: Float = 0, maxConfidence: Float = 0
            if beginRow < endRow && beginCol < endCol {
                for row in beginRow..<endRow {
                    for col in beginCol..<endCol {
                        let confidence = sigmoid(heatmap[rowSize * row + channels * col + index])
                        sum += confidence
                        maxConfidence = max(maxConfidence, confidence)
                        weightedCol += Float(col) * confidence
                        weightedRow += Float(row) * confidence
                    }
                }
            }
            if maxConfidence >= minConfidenceToRefine && sum > 0 {
                out[index].x = weightedCol / Float(heatmapWidth) / sum
                out[index].y = weightedRow / Float(heatmapHeight) / sum
            }
        }
        return out
    }

    /// Steps 1–5 for one ROI.
    /// - Parameters:
    ///   - landmarks: tensor 0, `[1, 195]`.
    ///   - presence: tensor 1, `[1, 1]` (first value used).
    ///   - heatmap: tensor 3, `[1, 64, 64, 39]` HWC.
    ///   - worldLandmarks: tensor 4, `[1, 117]`.
    ///   - roi: the ROI the crop was taken from (after `RectTransformation`).
    ///   - letterboxPadding: the crop's padding — zero in the Tasks graph (stretch; ROIs are square).
    public func decode(landmarks: UnsafeBufferPointer<Float>, presence: UnsafeBufferPointer<Float>,
                       heatmap: UnsafeBufferPointer<Float>, heatmapHeight: Int = 64, heatmapWidth: Int = 64,
                       worldLandmarks: UnsafeBufferPointer<Float>, roi: NormalizedRect,
                       letterboxPadding: LetterboxPadding = .zero) throws -> PoseLandmarkDecoding {
        guard let presenceScore = presence.first else {
            throw PoseLandmarkDecoderError.tensorTooShort(name: "presence", expected: 1, actual: 0)
        }
        guard worldLandmarks.count >= landmarkCount * 3 else {
            throw PoseLandmarkDecoderError.tensorTooShort(name: "world landmarks", expected: landmarkCount * 3,
                                                          actual: worldLandmarks.count)
        }
        let crop = try refineWithHeatmap(try cropLandmarks(fromRaw: landmarks), heatmap: heatmap,
                                         heatmapHeight: heatmapHeight, heatmapWidth: heatmapWidth)
        let toImage = { (l: NormalizedLandmark) in
            LandmarkProjection.project(letterboxPadding.removing(from: l), onto: roi)
        }
        let world = (0..<publicLandmarkCount).map { i in
            WorldLandmarkProjection.rotate(
                Landmark(x: worldLandmarks[3 * i], y: worldLandmarks[3 * i + 1], z: worldLandmarks[3 * i + 2],
                         visibility: crop[i].visibility, presence: crop[i].presence),
                by: roi)
        }
        return PoseLandmarkDecoding(
            presenceScore: presenceScore,
            cropLandmarks: crop,
            landmarks: crop[0..<publicLandmarkCount].map(toImage),
            auxiliaryLandmarks: crop[auxiliaryLandmarkRange].map(toImage),
            worldLandmarks: world)
    }
}

/// `1.0f / (1.0f + std::exp(-x))` in `Float`, as the MediaPipe calculators write it.
@inlinable
func sigmoid(_ x: Float) -> Float { 1 / (1 + exp(-x)) }

/// C++ `int v = float_value;` on x86-64 (`cvttss2si`): truncation toward zero, and the
/// "integer indefinite" `INT32_MIN` for NaN or out-of-range values.
@inlinable
func cppFloatToInt32(_ value: Float) -> Int {
    guard value.isFinite, value > -2147483904.0, value < 2147483648.0 else { return Int(Int32.min) }
    return Int(value.rounded(.towardZero))
}
