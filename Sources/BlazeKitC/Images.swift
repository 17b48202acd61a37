// The caller's pixels as BlazeKit images, and the file decoder (blazekit.h, "Images").
import BlazeKit
import CBlazeKit
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - Images

private let orientations: [ImageOrientation] = [.up, .down, .left, .right, .upMirrored, .downMirrored, .leftMirrored, .rightMirrored]
private let orientationNames = ["UP", "DOWN", "LEFT", "RIGHT", "UP_MIRRORED", "DOWN_MIRRORED", "LEFT_MIRRORED", "RIGHT_MIRRORED"]

/// The caller's pixel buffer as an ``Image`` (a copy), every field checked before a byte is read.
func makeImage(_ pointer: UnsafePointer<blazekit_image>?) throws -> Image {
    var defaults = blazekit_image()
    defaults.struct_size = cSizeof(blazekit_image.self)
    let minimum = MemoryLayout<blazekit_image>.offset(of: \.format)! + MemoryLayout<Int32>.size
    let image = try readVersioned(pointer, defaults: defaults, name: "image")
    guard image.struct_size >= minimum else {
        throw argument("image->struct_size is \(image.struct_size); expected at least \(minimum) (through the format field)")
    }
    let (width, height) = (Int(image.width), Int(image.height))
    guard (1...Image.maxDimension).contains(width) else {
        throw argument("image->width is \(width); expected 1…\(Image.maxDimension)")
    }
    guard (1...Image.maxDimension).contains(height) else {
        throw argument("image->height is \(height); expected 1…\(Image.maxDimension)")
    }
    guard width * height <= Image.maxPixelCount else {
        throw argument("image size \(width)×\(height) has \(width * height) pixels; expected at most \(Image.maxPixelCount)")
    }
    let formats: [PixelFormat] = [.rgb8, .rgba8, .bgra8, .gray8]
    guard (0..<Int32(formats.count)).contains(image.format) else {
        throw argument("image->format is \(image.format); expected 0 (RGB), 1 (RGBA), 2 (BGRA) or 3 (GRAY)")
    }
    let format = formats[Int(image.format)]
    guard (0..<Int32(orientations.count)).contains(image.orientation) else {
        throw argument("image->orientation is \(image.orientation); expected 0…7 (blazekit_orientation)")
    }
    let orientation = orientations[Int(image.orientation)]
    guard !orientation.isMirrored else {
        throw argument("image->orientation \(orientationNames[Int(image.orientation)]) is not supported: mirrored orientations are refused, as MediaPipe does")
    }
    let packed = width * format.bytesPerPixel
    let stride = image.bytes_per_row == 0 ? packed : image.bytes_per_row
    guard stride >= packed, stride <= 1 << 31 else {
        throw argument("image->bytes_per_row is \(image.bytes_per_row); expected \(packed)…\(1 << 31) as a size_t (width \(width) × \(format.bytesPerPixel) bytes, or 0 for packed rows)")
    }
    let needed = stride * (height - 1) + packed   // ≤ 2^31 · 2^14 + 2^16: no overflow on 64 bits
    guard let pixels = image.pixels else { throw argument("image->pixels is NULL") }
    let count = image.byte_count
    guard count >= needed else {
        throw argument("image->byte_count is \(image.byte_count); expected at least \(needed) (bytes_per_row \(stride) × \(height - 1) rows + \(packed))")
    }
    return try Image(pixels: UnsafeRawBufferPointer(start: pixels, count: needed), width: width, height: height,
                     bytesPerRow: stride, format: format, orientation: orientation)
}

@_cdecl("blazekit_image_decode_file")
public func blazekit_image_decode_file_impl(_ path: UnsafePointer<CChar>?, _ pixels: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                                            _ width: UnsafeMutablePointer<Int32>?, _ height: UnsafeMutablePointer<Int32>?,
                                            _ orientation: UnsafeMutablePointer<Int32>?) -> blazekit_status {
    guarded("blazekit_image_decode_file") {
        guard let path else { throw argument("path is NULL") }
        guard let pixels else { throw argument("pixels is NULL") }
        pixels.pointee = nil
        guard let width, let height else { throw argument("\(width == nil ? "width" : "height") is NULL") }
        let image = try Image(contentsOfFile: String(cString: path))
        let bytes = image.pixels
        pixels.pointee = cArray(bytes) ?? UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        width.pointee = Int32(image.width)
        height.pointee = Int32(image.height)
        orientation?.pointee = Int32(orientations.firstIndex(of: image.orientation) ?? 0)
    }
}

@_cdecl("blazekit_pixels_free")
public func blazekit_pixels_free_impl(_ pixels: UnsafeMutablePointer<UInt8>?) { pixels?.deallocate() }
