/// The `LETTERBOX_PADDING` that `ImageToTensorCalculator` emits with `keep_aspect_ratio`: fractions of
/// the padded ROI added on each side (`mediapipe/calculators/tensor/image_to_tensor_utils.cc`, `PadRoi`).
public struct LetterboxPadding: Sendable, Codable, Equatable, Hashable {
    public var left: Float
    public var top: Float
    public var right: Float
    public var bottom: Float

    public init(left: Float, top: Float, right: Float, bottom: Float) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }

    public static let zero = LetterboxPadding(left: 0, top: 0, right: 0, bottom: 0)

    /// `DetectionLetterboxRemovalCalculator` (`mediapipe/calculators/util/detection_letterbox_removal_calculator.cc`):
    /// `xmin' = (xmin − left)/(1 − (left + right))`, `width' = width/(1 − (left + right))`
    /// (likewise y with top/bottom), and the same affine map for every keypoint. `Float`.
    public func removing(from detection: Detection) -> Detection {
        let horizontal = 1 - (left + right)
        let vertical = 1 - (top + bottom)
        var d = detection
        d.xmin = (detection.xmin - left) / horizontal
        d.ymin = (detection.ymin - top) / vertical
        d.width = detection.width / horizontal
        d.height = detection.height / vertical
        d.keypoints = detection.keypoints.map { SIMD2(($0.x - left) / horizontal, ($0.y - top) / vertical) }
        return d
    }

    /// `LandmarkLetterboxRemovalCalculator` (`mediapipe/calculators/util/landmark_letterbox_removal_calculator.cc`):
    /// same x/y map, `z' = z/(1 − (left + right))`; visibility and presence unchanged.
    public func removing(from landmark: NormalizedLandmark) -> NormalizedLandmark {
        let horizontal = 1 - (left + right)
        let vertical = 1 - (top + bottom)
        var l = landmark
        l.x = (landmark.x - left) / horizontal
        l.y = (landmark.y - top) / vertical
        l.z = landmark.z / horizontal
        return l
    }

    /// The landmark list form of `removing(from:)`.
    public func removing(from landmarks: [NormalizedLandmark]) -> [NormalizedLandmark] {
        landmarks.map { removing(from: $0) }
    }
}
