import BlazeImage
import CFFmpeg
import Foundation

/// A decoded frame's buffers, referenced (not copied) for as long as an ``Image`` of its planes exists.
final class DecodedFrameBuffers {
    private var frame: UnsafeMutablePointer<AVFrame>?

    /// A new reference to `frame`'s buffers; nil when out of memory.
    init?(referencing frame: UnsafeMutablePointer<AVFrame>) {
        guard let clone = av_frame_clone(frame) else { return nil }
        self.frame = clone
    }

    deinit { av_frame_free(&frame) }

    /// The planes of the referenced frame as an upright image.
    func image() throws -> Image {
        let f = frame!
        let planes = try withUnsafePointer(to: &f.pointee.data) { data in
            try data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { p in
                try withUnsafePointer(to: &f.pointee.linesize) { sizes in
                    try sizes.withMemoryRebound(to: Int32.self, capacity: 8) { s in
                        try YUV420Planes(width: Int(f.pointee.width), height: Int(f.pointee.height),
                                         y: UnsafePointer(p[0]!), yStride: Int(s[0]), u: UnsafePointer(p[1]!), uStride: Int(s[1]),
                                         v: UnsafePointer(p[2]!), vStride: Int(s[2]), owner: self)
                    }
                }
            }
        }
        return Image(yuv420: planes)
    }
}

/// Whether libswscale converts YUV 4:2:0 frames of a given width exactly as ``YUVToRGB`` does: its
/// converter is chosen by CPU and frame geometry (SIMD or C, which round differently), so before frames are
/// handed out as planes a probe frame of that width goes through both. The probe's chroma holds all 65,536
/// (U, V) pairs and its luma noise, so every term of the conversion is compared.
enum SwscaleAgreement {
    /// Checked widths (a reader sees one, maybe two); guarded by `lock`.
    nonisolated(unsafe) private static var checked: [Int: Bool] = [:]
    private static let lock = NSLock()

    static func matchesYUVToRGB(width: Int) -> Bool {
        lock.withLock {
            if let known = checked[width] { return known }
            let result = probe(width: width)
            checked[width] = result
            return result
        }
    }

    private static func probe(width w: Int) -> Bool {
        guard w >= 2 else { return false }
        let cw = (w + 1) / 2
        let h = 2 * ((65536 + cw - 1) / cw)   // even, as the frames that use planes
        var y = [UInt8](repeating: 0, count: w * h), u = [UInt8](repeating: 0, count: cw * h / 2), v = u
        var state: UInt32 = 0x2545_F491
        for i in y.indices { state ^= state << 13; state ^= state >> 17; state ^= state << 5; y[i] = UInt8(truncatingIfNeeded: state >> 11) }
        for i in u.indices { u[i] = UInt8(truncatingIfNeeded: i >> 8); v[i] = UInt8(truncatingIfNeeded: i) }
        guard let planes = try? YUV420Planes(width: w, height: h, y: y, u: u, v: v),
              let context = sws_getContext(Int32(w), Int32(h), AV_PIX_FMT_YUV420P, Int32(w), Int32(h), AV_PIX_FMT_RGB24,
                                           SWS_BICUBIC, nil, nil, nil) else { return false }
        defer { sws_freeContext(context) }
        // Rows padded to 64 bytes with spare rows: libswscale's vector stores may run past a row's end.
        let stride = (w * 3 + 63) / 64 * 64
        var converted = [UInt8](repeating: 0, count: stride * (h + 2))
        y.withUnsafeBufferPointer { py in
            u.withUnsafeBufferPointer { pu in
                v.withUnsafeBufferPointer { pv in
                    converted.withUnsafeMutableBufferPointer { out in
                        var source: [UnsafePointer<UInt8>?] = [py.baseAddress, pu.baseAddress, pv.baseAddress, nil]
                        var sourceStrides: [Int32] = [Int32(w), Int32(cw), Int32(cw), 0]
                        var destination: [UnsafeMutablePointer<UInt8>?] = [out.baseAddress, nil, nil, nil]
                        var destinationStrides: [Int32] = [Int32(stride), 0, 0, 0]
                        _ = sws_scale(context, &source, &sourceStrides, 0, Int32(h), &destination, &destinationStrides)
                    }
                }
            }
        }
        let mine = planes.rgbPixels()
        for row in 0..<h where converted[(row * stride)..<(row * stride + w * 3)] != mine[(row * w * 3)..<((row + 1) * w * 3)] {
            return false
        }
        return true
    }
}
