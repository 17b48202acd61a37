#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// A rotated rectangle in image **pixels** (MediaPipe's internal `RotatedRect` in
/// `mediapipe/calculators/tensor/image_to_tensor_utils.h`): center, size, rotation in radians
/// (clockwise, y down).
public struct PixelRotatedRect: Sendable, Codable, Equatable, Hashable {
    public var centerX: Float
    public var centerY: Float
    public var width: Float
    public var height: Float
    public var rotation: Float

    public init(centerX: Float, centerY: Float, width: Float, height: Float, rotation: Float) {
        self.centerX = centerX
        self.centerY = centerY
        self.width = width
        self.height = height
        self.rotation = rotation
    }
}

/// A 2×3 affine map `(x, y) ↦ (a·x + b·y + c, d·x + e·y + f)`, in `Double` because OpenCV's
/// `warpAffine`/`warpPerspective` convert their matrices to double before sampling.
public struct AffineTransform2D: Sendable, Codable, Equatable, Hashable {
    public var a: Double, b: Double, c: Double
    public var d: Double, e: Double, f: Double

    public init(a: Double, b: Double, c: Double, d: Double, e: Double, f: Double) {
        self.a = a; self.b = b; self.c = c
        self.d = d; self.e = e; self.f = f
    }

    public func apply(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        (a * x + b * y + c, d * x + e * y + f)
    }
}

/// Errors from `ImageToTensorGeometry.init`.
public enum ImageToTensorGeometryError: Error, Equatable, CustomStringConvertible {
    /// The input rect is MediaPipe's sentinel (`width == 0 && height == 0`): MediaPipe emits no
    /// tensor and no error for this frame — callers should skip the ROI silently.
    case sentinelRect
    case invalidImageSize(width: Int, height: Int)
    case invalidTensorSize(width: Int, height: Int)
    /// "ROI width and height must be > 0." (`PadRoi`/`ValidateRoi` in `image_to_tensor_utils.cc`);
    /// NaN and infinite sizes are rejected too.
    case invalidROI(width: Float, height: Float)

    public var description: String {
        switch self {
        case .sentinelRect: return "ImageToTensor: sentinel rect (width == 0 && height == 0), nothing to crop"
        case let .invalidImageSize(w, h): return "ImageToTensor: image size must be > 0, got \(w)×\(h)"
        case let .invalidTensorSize(w, h): return "ImageToTensor: tensor size must be > 0, got \(w)×\(h)"
        case let .invalidROI(w, h): return "ImageToTensor: ROI width and height must be > 0 and finite, got \(w)×\(h) px"
        }
    }
}

/// The geometry of `ImageToTensorCalculator` on the CPU (OpenCV) path — everything except the
/// pixel sampling itself: the padded ROI, the letterbox padding, the four source corners OpenCV
/// warps from, the `MATRIX` output, and the inverse affine the segmentation-mask warp uses.
///
/// Sources: `mediapipe/calculators/tensor/image_to_tensor_calculator.cc`,
/// `image_to_tensor_utils.cc` (`GetRoi`, `PadRoi`, `GetRotatedSubRectToRectTransformMatrix`),
/// `image_to_tensor_converter_opencv.cc`, and OpenCV's `RotatedRect::points`.
public struct ImageToTensorGeometry: Sendable, Equatable {
    public let imageWidth: Int
    public let imageHeight: Int
    public let tensorWidth: Int
    public let tensorHeight: Int
    /// The ROI in pixels **after** keep-aspect-ratio padding (same center and angle).
    public let roi: PixelRotatedRect
    /// `[left, top, right, bottom]` as fractions of the padded ROI; all zero without keep-aspect-ratio.
    public let letterboxPadding: LetterboxPadding

    /// - Parameters:
    ///   - rect: the input `NORM_RECT`; `nil` = the whole image, rotation 0 (`GetRoi`).
    ///   - keepAspectRatio: letterbox the ROI to the tensor aspect (`PadRoi`); `false` stretches.
    /// - Throws: `.sentinelRect` for a `{w: 0, h: 0}` rect, `.invalidROI` when the (padded) ROI is not
    ///   positive and finite, `.invalidImageSize` / `.invalidTensorSize` for non-positive sizes.
    public init(rect: NormalizedRect?, imageWidth: Int, imageHeight: Int,
                tensorWidth: Int, tensorHeight: Int, keepAspectRatio: Bool) throws {
        guard imageWidth > 0, imageHeight > 0 else {
            throw ImageToTensorGeometryError.invalidImageSize(width: imageWidth, height: imageHeight)
        }
        guard tensorWidth > 0, tensorHeight > 0 else {
            throw ImageToTensorGeometryError.invalidTensorSize(width: tensorWidth, height: tensorHeight)
        }
        var roi: PixelRotatedRect
        if let rect {
            if rect.isSentinel { throw ImageToTensorGeometryError.sentinelRect }
            roi = PixelRotatedRect(centerX: rect.xCenter * Float(imageWidth), centerY: rect.yCenter * Float(imageHeight),
                                   width: rect.width * Float(imageWidth), height: rect.height * Float(imageHeight),
                                   rotation: rect.rotation)
        } else {
            roi = PixelRotatedRect(centerX: 0.5 * Float(imageWidth), centerY: 0.5 * Float(imageHeight),
                                   width: Float(imageWidth), height: Float(imageHeight), rotation: 0)
        }
        func isValid(_ r: PixelRotatedRect) -> Bool { r.width > 0 && r.height > 0 && r.width.isFinite && r.height.isFinite }
        guard isValid(roi) else { throw ImageToTensorGeometryError.invalidROI(width: roi.width, height: roi.height) }
        var padding = LetterboxPadding.zero
        if keepAspectRatio {
            let tensorAspect = Float(tensorHeight) / Float(tensorWidth)
            let roiAspect = roi.height / roi.width
            if tensorAspect > roiAspect {
                let vertical = (1 - roiAspect / tensorAspect) / 2
                roi.height = roi.width * tensorAspect
                padding = LetterboxPadding(left: 0, top: vertical, right: 0, bottom: vertical)
            } else {
                let horizontal = (1 - tensorAspect / roiAspect) / 2
                roi.width = roi.height / tensorAspect
                padding = LetterboxPadding(left: horizontal, top: 0, right: horizontal, bottom: 0)
            }
            guard isValid(roi) else { throw ImageToTensorGeometryError.invalidROI(width: roi.width, height: roi.height) }
        }
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.tensorWidth = tensorWidth
        self.tensorHeight = tensorHeight
        self.roi = roi
        self.letterboxPadding = padding
    }

    /// The padded ROI's corners in source pixels, in `cv::RotatedRect::points` order —
    /// **bottom-left, top-left, top-right, bottom-right** (for rotation 0) — see `openCVBoxPoints(_:)`.
    public var sourceCorners: [SIMD2<Float>] { Self.openCVBoxPoints(roi) }

    /// The corners of `rect` exactly as `image_to_tensor_converter_opencv.cc` + OpenCV compute them:
    /// `cv::RotatedRect(center, size, rotation·180.f/M_PI)` — the product `rotation·180` is `float`, the
    /// division by `M_PI` double, the stored angle `float` — then `RotatedRect::points`
    /// (`modules/core/src/types.cpp`): `θ = angle·CV_PI/180.` (double), `b = (float)cos θ·0.5f`,
    /// `a = (float)sin θ·0.5f`, and in `float`
    /// `p0 = (cx − a·h − b·w, cy + b·h − a·w)`, `p1 = (cx + a·h − b·w, cy − b·h − a·w)`,
    /// `p2 = 2c − p0`, `p3 = 2c − p1`. (`cv::boxPoints` just calls `points`.)
    public static func openCVBoxPoints(_ rect: PixelRotatedRect) -> [SIMD2<Float>] {
        let angleDegrees = Float(Double(rect.rotation * 180) / Double.pi)
        let theta = Double(angleDegrees) * Double.pi / 180
        let b = Float(cos(theta)) * 0.5
        let a = Float(sin(theta)) * 0.5
        let cx = rect.centerX, cy = rect.centerY, w = rect.width, h = rect.height
        let p0 = SIMD2<Float>(cx - a * h - b * w, cy + b * h - a * w)
        let p1 = SIMD2<Float>(cx + a * h - b * w, cy - b * h - a * w)
        let p2 = SIMD2<Float>(2 * cx - p0.x, 2 * cy - p0.y)
        let p3 = SIMD2<Float>(2 * cx - p1.x, 2 * cy - p1.y)
        return [p0, p1, p2, p3]
    }

    /// The tensor-pixel positions the `sourceCorners` map to, same order:
    /// `(0, H_t), (0, 0), (W_t, 0), (W_t, H_t)`.
    public var tensorCorners: [SIMD2<Float>] {
        let w = Float(tensorWidth), h = Float(tensorHeight)
        return [SIMD2(0, h), SIMD2(0, 0), SIMD2(w, 0), SIMD2(w, h)]
    }

    /// Tensor pixel `(i, j)` → source pixel, as the crop samples it (OpenCV convention: pixel `k`
    /// sits at coordinate `k`, no half-pixel offsets). Built in `Double` from the `Float` corners:
    /// origin = top-left corner, `∂/∂i = (TR − TL)/W_t`, `∂/∂j = (BL − TL)/H_t`.
    /// OpenCV instead solves `getPerspectiveTransform` (LU, double) and inverts it inside
    /// `warpPerspective`; since the corners form a parallelogram up to `Float` rounding, the two agree
    /// to ~1e-9 px.
    public var tensorToSourcePixel: AffineTransform2D {
        let c = sourceCorners
        let bl = SIMD2<Double>(Double(c[0].x), Double(c[0].y))
        let tl = SIMD2<Double>(Double(c[1].x), Double(c[1].y))
        let tr = SIMD2<Double>(Double(c[2].x), Double(c[2].y))
        let di = (tr - tl) / Double(tensorWidth)
        let dj = (bl - tl) / Double(tensorHeight)
        return AffineTransform2D(a: di.x, b: dj.x, c: tl.x, d: di.y, e: dj.y, f: tl.y)
    }

    /// The 4×4 row-major `MATRIX` output: maps tensor-normalized `(u, v, z, 1)` of the **padded** ROI
    /// to image-normalized coordinates (`GetRotatedSubRectToRectTransformMatrix(roi, W, H,
    /// flip_horizontally = false)`), evaluated in `Float` in MediaPipe's operation order:
    ///
    ///     [ a·c/W   −b·s/W   0     (−½·a·c + ½·b·s + cx)/W ]
    ///     [ a·s/H    b·c/H   0     (−½·b·c − ½·a·s + cy)/H ]
    ///     [ 0        0       a/W   0                       ]
    ///     [ 0        0       0     1                       ]
    ///
    /// with `a, b` the padded ROI width/height in pixels, `c = cos θ`, `s = sin θ` (`Float`), and
    /// `1/W`, `1/H` computed as `1.0f / W`.
    public var tensorToImageMatrix: [Float] {
        let a = roi.width, b = roi.height
        let flip: Float = 1
        let c = cos(roi.rotation), d = sin(roi.rotation)
        let e = roi.centerX, f = roi.centerY
        let g = 1 / Float(imageWidth), h = 1 / Float(imageHeight)
        return [
            a * c * flip * g, -b * d * g, 0, (-0.5 * a * c * flip + 0.5 * b * d + e) * g,
            a * d * flip * h, b * c * h, 0, (-0.5 * b * c - 0.5 * a * d * flip + f) * h,
            0, 0, a * g, 0,
            0, 0, 0, 1,
        ]
    }

    /// Applies `tensorToImageMatrix` to a tensor-normalized point (x/y rows only), as
    /// `DetectionProjectionCalculator`'s `project_fn` does: `x·m0 + y·m1 + m3`, `x·m4 + y·m5 + m7`.
    public func projectToImage(_ p: SIMD2<Float>) -> SIMD2<Float> {
        let m = tensorToImageMatrix
        return SIMD2(p.x * m[0] + p.y * m[1] + m[3], p.x * m[4] + p.y * m[5] + m[7])
    }

    /// `DetectionProjectionCalculator` (`mediapipe/calculators/util/detection_projection_calculator.cc`)
    /// with this crop's `MATRIX`: keypoints are projected; the box's four corners are projected and
    /// replaced by their axis-aligned bounding box. This is how the **hand** detector maps its
    /// detections back (`hand_detector_graph.cc`) and is correct for any ROI rotation; with rotation 0
    /// it equals letterbox removal up to `Float` rounding, but the result is in image-normalized
    /// coordinates of the whole image (letterbox removal only yields coordinates normalized to the ROI).
    /// See `DetectorInputRect` for why the pose detector needs this when the input is rotated.
    public func projectToImage(_ detection: Detection) -> Detection {
        var d = detection
        d.keypoints = detection.keypoints.map { projectToImage($0) }
        let corners = [SIMD2(detection.xmin, detection.ymin), SIMD2(detection.xmin + detection.width, detection.ymin),
                       SIMD2(detection.xmin + detection.width, detection.ymin + detection.height),
                       SIMD2(detection.xmin, detection.ymin + detection.height)].map { projectToImage($0) }
        var leftTop = SIMD2<Float>(.greatestFiniteMagnitude, .greatestFiniteMagnitude)
        var rightBottom = SIMD2<Float>(-.greatestFiniteMagnitude, -.greatestFiniteMagnitude)
        for p in corners {
            leftTop = SIMD2(min(leftTop.x, p.x), min(leftTop.y, p.y))
            rightBottom = SIMD2(max(rightBottom.x, p.x), max(rightBottom.y, p.y))
        }
        d.xmin = leftTop.x
        d.ymin = leftTop.y
        d.width = rightBottom.x - leftTop.x
        d.height = rightBottom.y - leftTop.y
        return d
    }

    /// The inverse of `tensorToImageMatrix` (image-normalized → tensor-normalized), as
    /// `InverseMatrixCalculator` computes it (Eigen, `float`). Computed here in `Double` by cofactors
    /// and rounded to `Float`; Eigen's float inverse may differ in the last bit or two.
    public var imageToTensorMatrix: [Float] {
        invert4x4(tensorToImageMatrix.map(Double.init)).map { Float($0) }
    }

    /// The 2×3 matrix the segmentation-mask warp hands to `cv::warpAffine(..., INTER_LINEAR |
    /// WARP_INVERSE_MAP, BORDER_CONSTANT 0)` to produce the full-image mask.
    ///
    /// Pipeline (`pose_landmarks_detector_graph.cc`: `InverseMatrixCalculator` → `WarpAffineCalculator`;
    /// `mediapipe/calculators/image/affine_transformation_runner_opencv.cc`, `kOpenCvCompatibility = true`):
    /// the calculator receives `M⁻¹` (= `imageToTensorMatrix`, image-normalized → mask-normalized), and
    /// builds `T = diag(maskW, maskH, 1, 1) · M⁻¹ · diag(1/W, 1/H, 1, 1)` in `float` (`cv::Matx44f`), with
    /// `W × H` the **output image** size. The 2×3 it passes is rows 0–1, columns 0, 1, 3 of `T`:
    ///
    ///     x_mask = (maskW·M⁻¹₀₀)·(1/W)·X + (maskW·M⁻¹₀₁)·(1/H)·Y + maskW·M⁻¹₀₃
    ///     y_mask = (maskH·M⁻¹₁₀)·(1/W)·X + (maskH·M⁻¹₁₁)·(1/H)·Y + maskH·M⁻¹₁₃
    ///
    /// i.e. it maps **output image pixel `(X, Y)`** (integer, no half-pixel offset) to **mask pixel
    /// coordinates** — exactly the map `WARP_INVERSE_MAP` expects (dst → src). Values are the `Float`
    /// results widened to `Double`, as OpenCV widens a `CV_32F` matrix.
    public func maskWarpInverseAffine(maskWidth: Int = 256, maskHeight: Int = 256) -> AffineTransform2D {
        let inv = imageToTensorMatrix
        let sx = Float(maskWidth), sy = Float(maskHeight)
        let nx = 1 / Float(imageWidth), ny = 1 / Float(imageHeight)
        return AffineTransform2D(
            a: Double((sx * inv[0]) * nx), b: Double((sx * inv[1]) * ny), c: Double(sx * inv[3]),
            d: Double((sy * inv[4]) * nx), e: Double((sy * inv[5]) * ny), f: Double(sy * inv[7]))
    }
}

/// Inverse of a row-major 4×4 matrix by cofactors (returns all-zero when singular, like Eigen's
/// unchecked result is unusable anyway).
func invert4x4(_ m: [Double]) -> [Double] {
    precondition(m.count == 16)
    var inv = [Double](repeating: 0, count: 16)
    inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] + m[9] * m[7] * m[14] + m[13] * m[6] * m[11] - m[13] * m[7] * m[10]
    inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] - m[8] * m[7] * m[14] - m[12] * m[6] * m[11] + m[12] * m[7] * m[10]
    inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] + m[8] * m[7] * m[13] + m[12] * m[5] * m[11] - m[12] * m[7] * m[9]
    inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] - m[8] * m[6] * m[13] - m[12] * m[5] * m[10] + m[12] * m[6] * m[9]
    inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] - m[9] * m[3] * m[14] - m[13] * m[2] * m[11] + m[13] * m[3] * m[10]
    inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] + m[8] * m[3] * m[14] + m[12] * m[2] * m[11] - m[12] * m[3] * m[10]
    inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] - m[8] * m[3] * m[13] - m[12] * m[1] * m[11] + m[12] * m[3] * m[9]
    inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] + m[8] * m[2] * m[13] + m[12] * m[1] * m[10] - m[12] * m[2] * m[9]
    inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] + m[5] * m[3] * m[14] + m[13] * m[2] * m[7] - m[13] * m[3] * m[6]
    inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] - m[4] * m[3] * m[14] - m[12] * m[2] * m[7] + m[12] * m[3] * m[6]
    inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] + m[4] * m[3] * m[13] + m[12] * m[1] * m[7] - m[12] * m[3] * m[5]
    inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] - m[4] * m[2] * m[13] - m[12] * m[1] * m[6] + m[12] * m[2] * m[5]
    inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] - m[5] * m[3] * m[10] - m[9] * m[2] * m[7] + m[9] * m[3] * m[6]
    inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] + m[4] * m[3] * m[10] + m[8] * m[2] * m[7] - m[8] * m[3] * m[6]
    inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] - m[4] * m[3] * m[9] - m[8] * m[1] * m[7] + m[8] * m[3] * m[5]
    inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] + m[4] * m[2] * m[9] + m[8] * m[1] * m[6] - m[8] * m[2] * m[5]
    let det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12]
    if det == 0 || !det.isFinite { return [Double](repeating: 0, count: 16) }
    return inv.map { $0 / det }
}
