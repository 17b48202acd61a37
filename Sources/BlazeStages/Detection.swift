#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// A detection with a relative (normalized) bounding box and relative keypoints — MediaPipe's
/// `Detection` with `LocationData::RELATIVE_BOUNDING_BOX` (`mediapipe/framework/formats/detection.proto`,
/// `location_data.proto`).
///
/// The box is stored exactly as MediaPipe stores it — `xmin, ymin, width, height` — because every
/// consumer (`DetectionLetterboxRemovalCalculator`, NMS through `Rectangle_f`, the weighted mean)
/// reads those four floats; `xmax`/`ymax` are derived as `xmin + width` / `ymin + height` in `Float`,
/// as `Rectangle_f(xmin, ymin, width, height)` does. Keeping MediaPipe's representation keeps the
/// float rounding identical.
public struct Detection: Sendable, Codable, Equatable {
    public var score: Float
    public var xmin: Float
    public var ymin: Float
    public var width: Float
    public var height: Float
    /// Relative keypoints `(x, y)`, in model order.
    public var keypoints: [SIMD2<Float>]

    public var xmax: Float { xmin + width }
    public var ymax: Float { ymin + height }

    public init(score: Float, xmin: Float, ymin: Float, width: Float, height: Float, keypoints: [SIMD2<Float>] = []) {
        self.score = score
        self.xmin = xmin
        self.ymin = ymin
        self.width = width
        self.height = height
        self.keypoints = keypoints
    }

    /// From corners, as `TensorsToDetectionsCalculator::ConvertToDetection` does:
    /// `width = xmax − xmin`, `height = ymax − ymin` (in `Float`).
    public init(score: Float, xmin: Float, ymin: Float, xmax: Float, ymax: Float, keypoints: [SIMD2<Float>] = []) {
        self.init(score: score, xmin: xmin, ymin: ymin, width: xmax - xmin, height: ymax - ymin, keypoints: keypoints)
    }
}

/// Errors from `DetectionDecoder.decode`.
public enum DetectionDecoderError: Error, Equatable, CustomStringConvertible {
    case anchorCountMismatch(expected: Int, actual: Int)
    case rawBoxesTooShort(expected: Int, actual: Int)
    case rawScoresTooShort(expected: Int, actual: Int)
    case invalidOptions(String)

    public var description: String {
        switch self {
        case let .anchorCountMismatch(e, a): return "DetectionDecoder: expected \(e) anchors (num_boxes), got \(a)"
        case let .rawBoxesTooShort(e, a): return "DetectionDecoder: raw box tensor needs \(e) floats, has \(a)"
        case let .rawScoresTooShort(e, a): return "DetectionDecoder: raw score tensor needs \(e) floats, has \(a)"
        case let .invalidOptions(m): return "DetectionDecoder: \(m)"
        }
    }
}

/// `TensorsToDetectionsCalculator` on the CPU (`mediapipe/calculators/tensor/tensors_to_detections_calculator.cc`
/// + `.proto`), for SSD-style box regressors with anchors (`DecodeBoxes`, `ConvertToDetections`).
///
/// Supported: YXHW (default) and XYWH (`reverse_output_order`) box layouts, linear box sizes
/// (`apply_exponential_on_box_size: false`), optional sigmoid with optional symmetric clipping,
/// `min_score_thresh`, all classes allowed. All arithmetic is `Float`, in MediaPipe's order.
public struct DetectionDecoder: Sendable, Codable, Equatable {
    public var numBoxes: Int
    public var numCoords: Int
    public var numClasses: Int
    public var boxCoordOffset: Int
    public var keypointCoordOffset: Int
    public var numKeypoints: Int
    public var numValuesPerKeypoint: Int
    public var xScale: Float
    public var yScale: Float
    public var wScale: Float
    public var hScale: Float
    /// `true` ⇒ XYWH boxes and x-then-y keypoints; `false` ⇒ YXHW and y-then-x.
    public var reverseOutputOrder: Bool
    public var sigmoidScore: Bool
    /// `score_clipping_thresh`; `nil` = not set (no clipping). Applied only with `sigmoidScore`.
    public var scoreClippingThreshold: Float?
    /// `min_score_thresh`; `nil` = not set. Detections with `score < threshold` are dropped.
    public var minScoreThreshold: Float?

    public init(numBoxes: Int, numCoords: Int, numClasses: Int = 1, boxCoordOffset: Int = 0,
                keypointCoordOffset: Int = 0, numKeypoints: Int = 0, numValuesPerKeypoint: Int = 2,
                xScale: Float = 0, yScale: Float = 0, wScale: Float = 0, hScale: Float = 0,
                reverseOutputOrder: Bool = false, sigmoidScore: Bool = false,
                scoreClippingThreshold: Float? = nil, minScoreThreshold: Float? = nil) {
        self.numBoxes = numBoxes
        self.numCoords = numCoords
        self.numClasses = numClasses
        self.boxCoordOffset = boxCoordOffset
        self.keypointCoordOffset = keypointCoordOffset
        self.numKeypoints = numKeypoints
        self.numValuesPerKeypoint = numValuesPerKeypoint
        self.xScale = xScale
        self.yScale = yScale
        self.wScale = wScale
        self.hScale = hScale
        self.reverseOutputOrder = reverseOutputOrder
        self.sigmoidScore = sigmoidScore
        self.scoreClippingThreshold = scoreClippingThreshold
        self.minScoreThreshold = minScoreThreshold
    }

    /// The pose detector's decoding (`pose_detection_cpu.pbtxt`; `pose_detector_graph.cc`
    /// `ConfigureTensorsToDetectionsCalculator`): 2254 boxes × 12 coords, XYWH, 4 keypoints,
    /// scales 224, sigmoid with clipping ±100. `minScore` is `min_pose_detection_confidence`
    /// (Tasks default 0.5).
    public static func poseDetection(minScore: Float = 0.5) -> DetectionDecoder {
        DetectionDecoder(numBoxes: 2254, numCoords: 12, numClasses: 1, boxCoordOffset: 0,
                         keypointCoordOffset: 4, numKeypoints: 4, numValuesPerKeypoint: 2,
                         xScale: 224, yScale: 224, wScale: 224, hScale: 224,
                         reverseOutputOrder: true, sigmoidScore: true,
                         scoreClippingThreshold: 100, minScoreThreshold: minScore)
    }

    /// The score of box `i`: the maximum over classes of the (clipped, sigmoided) raw score, starting
    /// from `−FLT_MAX` with a strict `<` update — so a NaN score leaves `−FLT_MAX`, which any
    /// threshold drops.
    @inlinable
    func score(ofBox i: Int, rawScores: UnsafeBufferPointer<Float>) -> Float {
        var maxScore = -Float.greatestFiniteMagnitude
        for c in 0..<numClasses {
            var s = rawScores[i * numClasses + c]
            if sigmoidScore {
                if let clip = scoreClippingThreshold {
                    s = s < -clip ? -clip : s
                    s = s > clip ? clip : s
                }
                s = 1 / (1 + exp(-s))
            }
            if maxScore < s { maxScore = s }
        }
        return maxScore
    }

    /// Decodes every anchor's box, keypoints and score, then keeps, **in anchor order**, the boxes
    /// with `score ≥ minScoreThreshold` whose width and height are neither negative nor NaN.
    ///
    /// `xc = raw_x/x_scale·anchor.w + anchor.x`, `w = raw_w/w_scale·anchor.w` (likewise y/h);
    /// box = `[xc − w/2, yc − h/2, xc + w/2, yc + h/2]` → `width = xmax − xmin`; keypoint k =
    /// `(raw_kx/x_scale·anchor.w + anchor.x, raw_ky/y_scale·anchor.h + anchor.y)`.
    /// Coordinates are normalized to the (letterboxed) input tensor.
    public func decode(rawBoxes: UnsafeBufferPointer<Float>, rawScores: UnsafeBufferPointer<Float>,
                       anchors: [Anchor]) throws -> [Detection] {
        guard numBoxes >= 0, numCoords > 0, numClasses > 0,
              boxCoordOffset >= 0, boxCoordOffset + 4 <= numCoords,
              numKeypoints == 0 || (numValuesPerKeypoint >= 2 && keypointCoordOffset >= 0
                  && keypointCoordOffset + numKeypoints * numValuesPerKeypoint <= numCoords)
        else { throw DetectionDecoderError.invalidOptions("box/keypoint offsets do not fit in num_coords \(numCoords)") }
        guard anchors.count == numBoxes else {
            throw DetectionDecoderError.anchorCountMismatch(expected: numBoxes, actual: anchors.count)
        }
        guard rawBoxes.count >= numBoxes * numCoords else {
            throw DetectionDecoderError.rawBoxesTooShort(expected: numBoxes * numCoords, actual: rawBoxes.count)
        }
        guard rawScores.count >= numBoxes * numClasses else {
            throw DetectionDecoderError.rawScoresTooShort(expected: numBoxes * numClasses, actual: rawScores.count)
        }
        var detections: [Detection] = []
        for i in 0..<numBoxes {
            let score = score(ofBox: i, rawScores: rawScores)
            if let threshold = minScoreThreshold, score < threshold { continue }
            let anchor = anchors[i]
            let o = i * numCoords + boxCoordOffset
            var xc: Float, yc: Float, w: Float, h: Float
            if reverseOutputOrder {
                xc = rawBoxes[o]; yc = rawBoxes[o + 1]; w = rawBoxes[o + 2]; h = rawBoxes[o + 3]
            } else {
                yc = rawBoxes[o]; xc = rawBoxes[o + 1]; h = rawBoxes[o + 2]; w = rawBoxes[o + 3]
            }
            xc = xc / xScale * anchor.width + anchor.xCenter
            yc = yc / yScale * anchor.height + anchor.yCenter
            h = h / hScale * anchor.height
            w = w / wScale * anchor.width
            let ymin = yc - h / 2, xmin = xc - w / 2, ymax = yc + h / 2, xmax = xc + w / 2
            let boxWidth = xmax - xmin, boxHeight = ymax - ymin
            if boxWidth < 0 || boxHeight < 0 || boxWidth.isNaN || boxHeight.isNaN { continue }
            var keypoints: [SIMD2<Float>] = []
            keypoints.reserveCapacity(numKeypoints)
            for k in 0..<numKeypoints {
                let ko = i * numCoords + keypointCoordOffset + k * numValuesPerKeypoint
                let kx = reverseOutputOrder ? rawBoxes[ko] : rawBoxes[ko + 1]
                let ky = reverseOutputOrder ? rawBoxes[ko + 1] : rawBoxes[ko]
                keypoints.append(SIMD2(kx / xScale * anchor.width + anchor.xCenter,
                                       ky / yScale * anchor.height + anchor.yCenter))
            }
            detections.append(Detection(score: score, xmin: xmin, ymin: ymin, width: boxWidth,
                                        height: boxHeight, keypoints: keypoints))
        }
        return detections
    }
}
