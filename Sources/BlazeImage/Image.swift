#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// How the stored pixels of an ``Image`` must be transformed to display upright, with the case names
/// and meaning of iOS `UIImage.Orientation`.
///
/// - `up`: stored upright.
/// - `down`: stored upside down; rotate 180° to display.
/// - `left`: rotate the stored pixels 90° **counter-clockwise** to display upright.
/// - `right`: rotate the stored pixels 90° **clockwise** to display upright (a portrait photo taken with
///   the phone's home button on the right is stored this way).
/// - The `…Mirrored` cases additionally flip horizontally; MediaPipe rejects them
///   (`MPPVisionTaskRunner.mm`), and so does the pipeline; ``Image/oriented()`` applies them.
///
/// JPEG files get their orientation from the EXIF Orientation tag (``init(exifValue:)``: 1 up,
/// 2 upMirrored, 3 down, 4 downMirrored, 5 leftMirrored, 6 right, 7 rightMirrored, 8 left, as UIKit maps it).
public enum ImageOrientation: String, Sendable, Codable, CaseIterable {
    case up, down, left, right, upMirrored, downMirrored, leftMirrored, rightMirrored

    /// Whether this is one of the four mirrored orientations.
    public var isMirrored: Bool {
        switch self {
        case .up, .down, .left, .right: return false
        case .upMirrored, .downMirrored, .leftMirrored, .rightMirrored: return true
        }
    }
}

/// The layout of a raw pixel buffer handed to ``Image/init(pixels:width:height:bytesPerRow:format:orientation:)``.
public enum PixelFormat: Sendable, Equatable {
    /// 3 bytes per pixel: red, green, blue.
    case rgb8
    /// 4 bytes per pixel: red, green, blue, alpha (alpha is dropped, colours are kept as stored).
    case rgba8
    /// 4 bytes per pixel: blue, green, red, alpha (alpha is dropped).
    case bgra8
    /// 1 byte per pixel: luminance, replicated to red, green and blue.
    case gray8

    /// Bytes per pixel of this format.
    public var bytesPerPixel: Int {
        switch self {
        case .rgb8: return 3
        case .rgba8, .bgra8: return 4
        case .gray8: return 1
        }
    }
}

/// Errors thrown by BlazeImage. Every case names the file or option involved and, where it applies,
/// the expected and actual values.
public enum ImageError: Error, Equatable, CustomStringConvertible {
    /// The image size is zero or exceeds ``Image/maxDimension`` per side or ``Image/maxPixelCount``
    /// pixels. `name` is the file (or `"<memory>"`, or the initializer) the size came from.
    case invalidSize(name: String, width: Int, height: Int)
    /// libpng could not decode the data; `reason` is libpng's message.
    case decodingFailed(name: String, reason: String)
    /// libjpeg-turbo (TurboJPEG) could not decode the data, or reported a warning such as a truncated
    /// stream (warnings are errors here); `reason` is TurboJPEG's message.
    case jpegDecodingFailed(name: String, reason: String)
    /// The data is neither PNG nor JPEG (recognized by their first bytes, not by the file name);
    /// `looksLike` says what it appears to be (``SniffedFormat/description``), e.g. "an empty file",
    /// "text", "a GIF image", "an MP4/MOV video (ftyp)".
    case unrecognizedFormat(name: String, looksLike: String)
    /// libpng or libjpeg-turbo could not encode the image; `reason` starts with the format and carries the
    /// library's message.
    case encodingFailed(reason: String)
    /// The file could not be read or written.
    case fileAccessFailed(path: String, reason: String)
    /// A raw-buffer argument is inconsistent: `option` names the argument.
    case invalidBuffer(option: String, expected: String, actual: String)
    /// The operation does not support this orientation (the mirrored ones).
    case unsupportedOrientation(ImageOrientation)

    public var description: String {
        switch self {
        case let .invalidSize(name, w, h):
            return "\(name): image size \(w)×\(h) is not supported; expected 1…\(Image.maxDimension) "
                + "pixels per side and at most \(Image.maxPixelCount) pixels in total"
        case let .decodingFailed(name, reason):
            return "\(name): PNG decoding failed: \(reason)"
        case let .jpegDecodingFailed(name, reason):
            return "\(name): JPEG decoding failed: \(reason)"
        case let .unrecognizedFormat(name, looksLike):
            return "\(name): not a PNG or JPEG image (expected the bytes 89 50 4E 47 0D 0A 1A 0A or FF D8 FF "
                + "at the start); the data looks like \(looksLike)"
        case let .encodingFailed(reason):
            return "image encoding failed: \(reason)"
        case let .fileAccessFailed(path, reason):
            return "\(path): \(reason)"
        case let .invalidBuffer(option, expected, actual):
            return "invalid \(option): expected \(expected), got \(actual)"
        case let .unsupportedOrientation(o):
            return "image orientation \(o.rawValue) is not supported (mirrored orientations are rejected, "
                + "as MediaPipe's MPPVisionTaskRunner does); expected up, down, left or right"
        }
    }
}

/// An 8-bit RGB image: `height` rows of `width` pixels, 3 interleaved bytes (R, G, B) per pixel,
/// rows packed without padding, plus the orientation its pixels must be displayed in.
///
/// Images come from PNG or JPEG files recognized by their content (``init(contentsOfFile:)``,
/// ``init(encodedData:name:)``; PNG decoded like MediaPipe's `mp.Image.create_from_file`, JPEG like
/// Pillow and OpenCV with the EXIF orientation in ``orientation``), from raw buffers
/// (``init(pixels:width:height:bytesPerRow:format:orientation:)``) or from an RGB array
/// (``init(rgb:width:height:)``). Sizes are limited to ``maxDimension`` per side and ``maxPixelCount`` pixels.
///
/// A video frame can also be an image of YUV 4:2:0 planes (``init(yuv420:)``, what BlazeVideo's reader
/// hands out with `convertsToRGB` off): crops sample the planes directly, and ``pixels`` converts the whole
/// frame each time it is read.
public struct Image: Sendable, Equatable {
    /// Largest accepted width or height.
    public static let maxDimension = 16384
    /// Largest accepted `width · height` (2^26).
    public static let maxPixelCount = 1 << 26

    private enum Storage: Sendable {
        case rgb([UInt8])
        case yuv420(YUV420Planes)
    }
    private let storage: Storage

    /// `width · height · 3` bytes, row-major RGB. For an image of YUV planes, converted anew on every read
    /// (``YUV420Planes/rgbPixels()``): read it once and keep the array.
    public var pixels: [UInt8] {
        switch storage {
        case .rgb(let pixels): return pixels
        case .yuv420(let planes): return planes.rgbPixels()
        }
    }
    /// The YUV planes of an image made with ``init(yuv420:)``, nil for an RGB image.
    public var yuv420: YUV420Planes? {
        if case .yuv420(let planes) = storage { return planes }
        return nil
    }
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// How the stored pixels must be rotated to display upright (metadata only; see ``oriented()``).
    public var orientation: ImageOrientation = .up

    /// Throws ``ImageError/invalidSize(name:width:height:)`` unless `1…maxDimension` per side and at most
    /// `maxPixelCount` pixels.
    static func validateSize(width: Int, height: Int, name: String) throws {
        guard width > 0, height > 0, width <= maxDimension, height <= maxDimension,
              width * height <= maxPixelCount else {
            throw ImageError.invalidSize(name: name, width: width, height: height)
        }
    }

    /// Wraps already-validated storage.
    init(validatedPixels: [UInt8], width: Int, height: Int, orientation: ImageOrientation = .up) {
        storage = .rgb(validatedPixels)
        self.width = width
        self.height = height
        self.orientation = orientation
    }

    /// An upright image of YUV 4:2:0 planes (a decoded video frame), not converted to RGB: see ``pixels``.
    public init(yuv420 planes: YUV420Planes) {
        storage = .yuv420(planes)
        width = planes.width
        height = planes.height
    }

    /// Same size, orientation and RGB pixels (an image of YUV planes compares by its converted pixels).
    public static func == (a: Image, b: Image) -> Bool {
        a.width == b.width && a.height == b.height && a.orientation == b.orientation && a.pixels == b.pixels
    }

    /// An image from packed RGB bytes (`width · height · 3` of them).
    ///
    /// - Throws: ``ImageError/invalidSize(name:width:height:)`` for an unsupported size,
    ///   ``ImageError/invalidBuffer(option:expected:actual:)`` if `rgb.count` is wrong.
    public init(rgb: [UInt8], width: Int, height: Int) throws {
        try Image.validateSize(width: width, height: height, name: "Image(rgb:)")
        guard rgb.count == width * height * 3 else {
            throw ImageError.invalidBuffer(option: "rgb.count", expected: "\(width * height * 3) (\(width)×\(height)×3)",
                                           actual: "\(rgb.count)")
        }
        self.init(validatedPixels: rgb, width: width, height: height)
    }

    /// An image copied from a raw pixel buffer.
    ///
    /// - Parameters:
    ///   - pixels: the buffer; it must hold at least `bytesPerRow · (height − 1) + width · bpp` bytes.
    ///   - bytesPerRow: the row stride in bytes, at least `width · bpp` (`bpp` = `format.bytesPerPixel`).
    ///   - format: the layout; alpha is dropped without touching the colours, gray is replicated.
    /// - Throws: ``ImageError/invalidSize(name:width:height:)``, ``ImageError/invalidBuffer(option:expected:actual:)``.
    public init(pixels: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int, format: PixelFormat,
                orientation: ImageOrientation = .up) throws {
        try Image.validateSize(width: width, height: height, name: "Image(pixels:)")
        let bpp = format.bytesPerPixel
        guard bytesPerRow >= width * bpp else {
            throw ImageError.invalidBuffer(option: "bytesPerRow", expected: "≥ \(width * bpp) (width \(width) × \(bpp))",
                                           actual: "\(bytesPerRow)")
        }
        let needed = bytesPerRow * (height - 1) + width * bpp
        guard pixels.count >= needed else {
            throw ImageError.invalidBuffer(option: "pixels.count",
                                           expected: "≥ \(needed) (bytesPerRow \(bytesPerRow) × \(height - 1) + \(width * bpp))",
                                           actual: "\(pixels.count)")
        }
        let count = width * height * 3
        let out = [UInt8](unsafeUninitializedCapacity: count) { buf, initialized in
            let src = pixels.bindMemory(to: UInt8.self).baseAddress!
            let dst = buf.baseAddress!
            for y in 0..<height {
                let s = src + y * bytesPerRow
                let d = dst + y * width * 3
                switch format {
                case .rgb8:
                    d.update(from: s, count: width * 3)
                case .rgba8:
                    for x in 0..<width { d[3 * x] = s[4 * x]; d[3 * x + 1] = s[4 * x + 1]; d[3 * x + 2] = s[4 * x + 2] }
                case .bgra8:
                    for x in 0..<width { d[3 * x] = s[4 * x + 2]; d[3 * x + 1] = s[4 * x + 1]; d[3 * x + 2] = s[4 * x] }
                case .gray8:
                    for x in 0..<width { let v = s[x]; d[3 * x] = v; d[3 * x + 1] = v; d[3 * x + 2] = v }
                }
            }
            initialized = count
        }
        self.init(validatedPixels: out, width: width, height: height, orientation: orientation)
    }

    /// The rotation, in radians, that MediaPipe's iOS Tasks API puts into the full-image region of interest
    /// for this orientation (`mediapipe/tasks/ios/vision/core/sources/MPPVisionTaskRunner.mm`): up → 0,
    /// right → 3π/2, down → π, left → π/2, computed as `Float(Double(degrees) · π / −180)` with degrees 0, −270, −180, −90.
    /// Mirrored orientations give the value of their unmirrored counterpart; the pipeline must reject
    /// them (check ``ImageOrientation/isMirrored``).
    public var rotationRadians: Float {
        let degrees: Int
        switch orientation {
        case .up, .upMirrored: degrees = 0
        case .right, .rightMirrored: degrees = -270
        case .down, .downMirrored: degrees = -180
        case .left, .leftMirrored: degrees = -90
        }
        return Float(Double(degrees) * Double.pi / -180.0)
    }

    /// The image with its pixels physically rotated (and, for the mirrored orientations, flipped) so that
    /// it displays upright, and orientation `.up`, as UIKit draws a `UIImage` (EXIF orientations 1–8):
    /// `.down` is rotated 180°, `.right` 90° clockwise, `.left` 90° counter-clockwise; `.upMirrored` is
    /// flipped left–right, `.downMirrored` top–bottom, `.leftMirrored` transposed (displayed `(x, y)` is
    /// stored `(y, x)`), `.rightMirrored` transposed across the other diagonal. `.left`, `.right` and
    /// their mirrors swap width and height.
    ///
    /// MediaPipe's tasks reject mirrored images; ML Kit accepts them, and its adapter uses this.
    public func oriented() throws -> Image {
        let w = width, h = height
        let o = orientation
        if o == .up { return self }
        let swapsSides = [.left, .right, .leftMirrored, .rightMirrored].contains(o)
        let (ow, oh) = swapsSides ? (h, w) : (w, h)
        let out = [UInt8](unsafeUninitializedCapacity: w * h * 3) { buf, initialized in
            pixels.withUnsafeBufferPointer { src in
                let s = src.baseAddress!, d = buf.baseAddress!
                for y in 0..<oh {
                    for x in 0..<ow {
                        // Source pixel (sx, sy) shown at output (x, y).
                        let sx: Int, sy: Int
                        switch o {
                        case .up: sx = x; sy = y
                        case .down: sx = w - 1 - x; sy = h - 1 - y
                        case .right: sx = y; sy = h - 1 - x          // rotate clockwise
                        case .left: sx = w - 1 - y; sy = x           // rotate counter-clockwise
                        case .upMirrored: sx = w - 1 - x; sy = y
                        case .downMirrored: sx = x; sy = h - 1 - y
                        case .leftMirrored: sx = y; sy = x           // transpose
                        case .rightMirrored: sx = w - 1 - y; sy = h - 1 - x
                        }
                        let si = (sy * w + sx) * 3, di = (y * ow + x) * 3
                        d[di] = s[si]; d[di + 1] = s[si + 1]; d[di + 2] = s[si + 2]
                    }
                }
            }
            initialized = w * h * 3
        }
        return Image(validatedPixels: out, width: ow, height: oh, orientation: .up)
    }
}

/// `localizedDescription` is the message that names the file, option or value at fault.
extension ImageError: LocalizedError {
    /// The same message as `description`.
    public var errorDescription: String? { description }
}
