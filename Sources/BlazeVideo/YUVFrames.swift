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

    /// The planes of the referenced frame as an upright image, converted to RGB by `conversion`.
    func image(conversion: YUVToRGB) throws -> Image {
        let f = frame!
        let planes = try withUnsafePointer(to: &f.pointee.data) { data in
            try data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { p in
                try withUnsafePointer(to: &f.pointee.linesize) { sizes in
                    try sizes.withMemoryRebound(to: Int32.self, capacity: 8) { s in
                        try YUV420Planes(width: Int(f.pointee.width), height: Int(f.pointee.height),
                                         y: UnsafePointer(p[0]!), yStride: Int(s[0]), u: UnsafePointer(p[1]!), uStride: Int(s[1]),
                                         v: UnsafePointer(p[2]!), vStride: Int(s[2]), owner: self,
                                         conversion: conversion)
                    }
                }
            }
        }
        return Image(yuv420: planes)
    }
}
