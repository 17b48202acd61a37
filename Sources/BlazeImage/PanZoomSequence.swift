#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A virtual camera moving over a still photo: frame `i` of `frameCount` is a `width × height` view whose
/// centre travels linearly from `startCenter` to `endCenter` (fractions of the photo) while its zoom goes
/// from `startZoom` to `endZoom` (1 = the view covers the photo's shorter fit; 2 = half as much of the
/// photo). Frames are resampled with the same bilinear warp as the crops, border replicated.
///
/// Used to build short real-image video sequences for tests and benchmarks without shipping video files.
public struct PanZoomSequence: Sendable, Equatable {
    public var source: Image
    public var width: Int
    public var height: Int
    public var frameCount: Int
    public var startCenter: SIMD2<Float>
    public var endCenter: SIMD2<Float>
    public var startZoom: Float
    public var endZoom: Float

    public init(source: Image, width: Int, height: Int, frameCount: Int,
                startCenter: SIMD2<Float> = SIMD2(0.5, 0.5), endCenter: SIMD2<Float> = SIMD2(0.5, 0.5),
                startZoom: Float = 1, endZoom: Float = 1) {
        self.source = source
        self.width = width
        self.height = height
        self.frameCount = frameCount
        self.startCenter = startCenter
        self.endCenter = endCenter
        self.startZoom = startZoom
        self.endZoom = endZoom
    }

    /// The source-pixel rectangle `(x0, y0, x1, y1)` that frame `index` shows.
    public func viewport(ofFrame index: Int) -> (x0: Float, y0: Float, x1: Float, y1: Float) {
        let t = frameCount > 1 ? Float(index) / Float(frameCount - 1) : 0
        let center = startCenter + (endCenter - startCenter) * t
        let zoom = startZoom + (endZoom - startZoom) * t
        let sw = Float(source.width), sh = Float(source.height)
        // The largest view of the frame's aspect ratio that fits the photo, divided by the zoom.
        let fit = min(sw / Float(width), sh / Float(height))
        let vw = Float(width) * fit / zoom, vh = Float(height) * fit / zoom
        let cx = center.x * sw, cy = center.y * sh
        return (cx - vw / 2, cy - vh / 2, cx + vw / 2, cy + vh / 2)
    }

    /// Frame `index` (0 ..< frameCount).
    public func frame(_ index: Int) throws -> Image {
        precondition((0..<frameCount).contains(index), "frame \(index) is outside 0..<\(frameCount)")
        let v = viewport(ofFrame: index)
        let w = Float(width), h = Float(height)
        let transform = PerspectiveTransform(
            sourceQuad: [SIMD2(v.x0, v.y0), SIMD2(v.x1, v.y0), SIMD2(v.x1, v.y1), SIMD2(v.x0, v.y1)],
            destinationQuad: [SIMD2(0, 0), SIMD2(w, 0), SIMD2(w, h), SIMD2(0, h)])
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        rgb.withUnsafeMutableBufferPointer {
            warpPerspectiveRGB(source, transform: transform, width: width, height: height, border: .replicate, into: $0.baseAddress!)
        }
        return try Image(rgb: rgb, width: width, height: height)
    }
}
