import BlazeImage

/// Turns crop geometry into pixels: the ImageToTensor sampling of MediaPipe's OpenCV converter
/// (`image_to_tensor_converter_opencv.cc`: `getPerspectiveTransform` from the ROI's corners,
/// `warpPerspective` bilinear on the 8-bit image, then `convertTo(CV_32F, (max − min)/255, min)`),
/// and the inverse warp of a crop-space mask back to the image (`WarpAffineCalculator`, border 0).
public enum CropSampler {
    /// Samples the crop described by `geometry` into `crop` (RGB8, tensor size) and writes the model
    /// input `pixel·(max − min)/255 + min` into `tensor`.
    ///
    /// - Parameter parallelFor: runs `body(i)` for `i` in `0..<count`, possibly on several threads (a
    ///   session's `parallelFor`); the rows are split into that many bands. The bytes do not depend on it.
    public static func sample(_ image: Image, geometry: ImageToTensorGeometry, border: BorderMode, into crop: inout [UInt8],
                              tensor: UnsafeMutableBufferPointer<Float>, valueRange: (min: Float, max: Float),
                              bands: Int = 1, parallelFor: (Int, (Int) -> Void) -> Void = { n, body in for i in 0..<n { body(i) } }) {
        let width = geometry.tensorWidth, height = geometry.tensorHeight
        let count = width * height * 3
        precondition(crop.count == count && tensor.count == count, "crop buffers must hold \(count) values")
        let transform = PerspectiveTransform(sourceQuad: geometry.sourceCorners, destinationQuad: geometry.tensorCorners)
        let scale = (valueRange.max - valueRange.min) / 255, offset = valueRange.min
        let bands = max(1, min(bands, height))
        crop.withUnsafeMutableBufferPointer { out in
            let bytes = out.baseAddress!, floats = tensor.baseAddress!
            parallelFor(bands) { band in
                let rows = (height * band / bands)..<(height * (band + 1) / bands)
                warpPerspectiveRGB(image, transform: transform, width: width, height: height, border: border, into: bytes, rows: rows)
                for i in (rows.lowerBound * width * 3)..<(rows.upperBound * width * 3) { floats[i] = Float(bytes[i]) * scale + offset }
            }
        }
    }

    /// The crop-space mask (`maskWidth × maskHeight` floats) warped to the full image with the crop's
    /// inverse transform; pixels outside the crop are 0.
    public static func warpMaskToImage(_ mask: [Float], maskWidth: Int, maskHeight: Int, geometry: ImageToTensorGeometry) -> [Float] {
        let m = geometry.maskWarpInverseAffine(maskWidth: maskWidth, maskHeight: maskHeight)
        var out = [Float](repeating: 0, count: geometry.imageWidth * geometry.imageHeight)
        mask.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                warpAffineInverseFloat(source: src.baseAddress!, width: maskWidth, height: maskHeight,
                                       inverseMatrix: (m.a, m.b, m.c, m.d, m.e, m.f),
                                       outputWidth: geometry.imageWidth, outputHeight: geometry.imageHeight,
                                       into: dst.baseAddress!)
            }
        }
        return out
    }
}
