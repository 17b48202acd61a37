#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// `TensorsToSegmentationCalculator` with `activation: SIGMOID` and no output size
/// (`mediapipe/calculators/tensor/tensors_to_segmentation_calculator.cc`,
/// `tensors_to_segmentation_converter_opencv.cc`): the pose model's `[1, 256, 256, 1]` logits become a
/// 256×256 float mask in **crop** space, `1/(exp(−logit) + 1)` per pixel.
///
/// Warping the crop-space mask back to the image is BlazeImage's job: use
/// `ImageToTensorGeometry.maskWarpInverseAffine(maskWidth:maskHeight:)` (output pixel → mask pixel,
/// bilinear, constant-0 border, output size = input image size).
public enum SegmentationMaskDecoder {
    /// Writes `sigmoid(logit)` for each element of `logits` into `probabilities` (same count).
    public static func probabilities(fromLogits logits: UnsafeBufferPointer<Float>,
                                     into probabilities: UnsafeMutableBufferPointer<Float>) {
        precondition(probabilities.count >= logits.count, "output buffer too small")
        for i in logits.indices {
            probabilities[i] = 1 / (exp(-logits[i]) + 1)
        }
    }

    /// `sigmoid(logit)` for each element, as a new array (row-major, crop space).
    public static func probabilities(fromLogits logits: UnsafeBufferPointer<Float>) -> [Float] {
        [Float](unsafeUninitializedCapacity: logits.count) { buffer, count in
            probabilities(fromLogits: logits, into: buffer)
            count = logits.count
        }
    }
}
