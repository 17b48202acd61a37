import CJPEG

// JPEG decoding with libjpeg-turbo's TurboJPEG API (`tj*` functions), which reports errors by return
// value: libjpeg's own error handler longjmps, and TurboJPEG catches that inside C, so nothing unwinds
// through Swift frames.
//
// The pixels are libjpeg-turbo's defaults — accurate integer IDCT (JDCT_ISLOW) and fancy (triangular)
// chroma upsampling — which is what Pillow (`Image.open(f).convert("RGB")`) and OpenCV (`cv2.imread`)
// ask libjpeg-turbo for, so all three give the same bytes (checked against Pillow's decode in
// Tests/BlazeImageTests/JPEGTests.swift; Tools/fixtures/make_jpeg_fixtures.py also checks OpenCV against Pillow).
// MediaPipe's Python `mp.Image.create_from_file` uses stb_image instead, whose JPEG IDCT and upsampling
// differ (up to 3 levels on 1–10% of the samples of the test fixtures): for JPEG, MediaPipe's Python
// loader is not a pixel-exact reference.
//
// CMYK and YCCK files: libjpeg-turbo only converts them to CMYK samples (TJPF_CMYK); they are turned into
// RGB as Pillow and libjpeg-based readers do for Adobe (Photoshop) files, whose samples are stored
// inverted: R = C·K/255, G = M·K/255, B = Y·K/255 on the stored values, rounded to nearest. Like Pillow
// and OpenCV, the inverted polarity is assumed even without an Adobe APP14 marker (nearly every CMYK JPEG
// in the wild comes from Adobe software).

extension Image {
    /// The TurboJPEG flags every decode uses: accurate DCT (libjpeg-turbo's decoding default, stated
    /// explicitly), stop at the first warning (a truncated or corrupt stream must not yield a partly gray
    /// image), and refuse progressive files with an unreasonable number of scans (a CPU-exhaustion attack).
    static let jpegDecodeFlags: Int32 = TJFLAG_ACCURATEDCT | TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS

    /// Decodes JPEG bytes into 8-bit RGB with libjpeg-turbo's default (accurate) settings, giving the same
    /// pixels as Pillow's `Image.open(f).convert("RGB")` and OpenCV's `cv2.imread` (with
    /// `IMREAD_IGNORE_ORIENTATION`), and sets ``orientation`` from the EXIF Orientation tag
    /// (``exifOrientation(jpegData:)``; `.up` without one). The pixels are returned as stored; call
    /// ``oriented()`` for the upright image (what `cv2.imread` returns by default).
    ///
    /// Baseline, progressive and arithmetic-coded files; grayscale (replicated to RGB), YCbCr, RGB, CMYK and
    /// YCCK (converted as Pillow does for Adobe files: `R = C·K/255` on the stored, inverted samples).
    /// Chroma subsampling 4:4:4, 4:2:2, 4:2:0, 4:4:0 and 4:1:1. Not supported by libjpeg-turbo 2.1's
    /// TurboJPEG: other mixes of sampling factors (rare; Pillow reads them), 12-bit and lossless JPEG.
    ///
    /// - Parameter name: the name used in error messages (a file path, or `"<memory>"`).
    /// - Throws: ``ImageError/invalidSize(name:width:height:)`` (checked from the header, before any pixel
    ///   buffer is allocated); ``ImageError/jpegDecodingFailed(name:reason:)`` with libjpeg-turbo's message
    ///   for corrupt data, and also for anything libjpeg-turbo only warns about — a truncated file
    ///   ("Premature end of JPEG file"), corrupt entropy-coded data, extraneous bytes — so a damaged file
    ///   is never returned partly gray.
    public init(jpegData: [UInt8], name: String = "<memory>") throws {
        guard !jpegData.isEmpty else {
            throw ImageError.jpegDecodingFailed(name: name, reason: "no data (0 bytes)")
        }
        guard let handle = tjInitDecompress() else {
            throw ImageError.jpegDecodingFailed(name: name, reason: "tjInitDecompress failed: \(turboJPEGMessage(nil))")
        }
        defer { tjDestroy(handle) }

        let decoded = try jpegData.withUnsafeBufferPointer { compressed -> (pixels: [UInt8], width: Int, height: Int) in
            // The array is non-empty, so its buffer has a base address.
            guard let source = compressed.baseAddress else {
                throw ImageError.jpegDecodingFailed(name: name, reason: "no data (0 bytes)")
            }
            let size = UInt(compressed.count)
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            guard tjDecompressHeader3(handle, source, size, &width, &height, &subsampling, &colorspace) == 0 else {
                throw ImageError.jpegDecodingFailed(name: name, reason: turboJPEGFailure(handle))
            }
            // TurboJPEG 2.1 reports success with a 0×0 size when the data ends before any frame header
            // (a truncated file, or a "tables-only" stream); libjpeg itself refuses a zero size in a frame.
            guard width > 0, height > 0 else {
                throw ImageError.jpegDecodingFailed(
                    name: name, reason: "no image: the data ends before a frame header (SOF) and scan (SOS), "
                        + "after \(compressed.count) bytes; truncated file or tables-only JPEG stream")
            }
            let w = Int(width), h = Int(height)
            try Image.validateSize(width: w, height: h, name: name)

            /// Decompresses into a new buffer of `channels` bytes per pixel in TurboJPEG pixel format `format`.
            func decompress(channels: Int32, format: TJPF) throws -> [UInt8] {
                var out = [UInt8](repeating: 0, count: w * h * Int(channels))
                let status = out.withUnsafeMutableBufferPointer {
                    tjDecompress2(handle, source, size, $0.baseAddress, width, width * channels, height,
                                  Int32(format.rawValue), Image.jpegDecodeFlags)
                }
                guard status == 0 else { throw ImageError.jpegDecodingFailed(name: name, reason: turboJPEGFailure(handle)) }
                return out
            }
            switch colorspace {
            case Int32(TJCS_CMYK.rawValue), Int32(TJCS_YCCK.rawValue):
                return (invertedCMYKToRGB(try decompress(channels: 4, format: TJPF_CMYK), pixelCount: w * h), w, h)
            case Int32(TJCS_GRAY.rawValue), Int32(TJCS_YCbCr.rawValue), Int32(TJCS_RGB.rawValue):
                // libjpeg-turbo replicates gray to RGB itself (the same bytes as decoding gray and copying).
                return (try decompress(channels: 3, format: TJPF_RGB), w, h)
            default:
                throw ImageError.jpegDecodingFailed(
                    name: name, reason: "unsupported JPEG colour space \(colorspace); expected gray, YCbCr, RGB, CMYK or YCCK")
            }
        }
        self.init(validatedPixels: decoded.pixels, width: decoded.width, height: decoded.height,
                  orientation: Image.exifOrientation(jpegData: jpegData) ?? .up)
    }
}

/// Converts Adobe-polarity (inverted) CMYK samples to RGB as Pillow's `cmyk2rgb` does for `CMYK;I` data:
/// with stored values `c, m, y, k`, `R = round(c·k/255)` and likewise for G (m) and B (y). (Pillow computes
/// `nk − round((255 − c)·nk/255)` with `nk = k`; as `c·k/255` is never exactly halfway, that is the same.)
func invertedCMYKToRGB(_ cmyk: [UInt8], pixelCount: Int) -> [UInt8] {
    precondition(cmyk.count >= 4 * pixelCount, "CMYK buffer of \(cmyk.count) bytes for \(pixelCount) pixels")
    return [UInt8](unsafeUninitializedCapacity: pixelCount * 3) { rgb, initialized in
        cmyk.withUnsafeBufferPointer { src in
            for i in 0..<pixelCount {
                let k = UInt32(src[4 * i + 3])
                rgb[3 * i] = UInt8((UInt32(src[4 * i]) * k + 127) / 255)
                rgb[3 * i + 1] = UInt8((UInt32(src[4 * i + 1]) * k + 127) / 255)
                rgb[3 * i + 2] = UInt8((UInt32(src[4 * i + 2]) * k + 127) / 255)
            }
        }
        initialized = pixelCount * 3
    }
}

/// TurboJPEG's message for the last failure on `handle`, marking warnings (which TJFLAG_STOPONWARNING
/// turns into failures) as such.
private func turboJPEGFailure(_ handle: tjhandle) -> String {
    let message = turboJPEGMessage(handle)
    return tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue)
        ? "\(message) (a libjpeg-turbo warning, treated as an error)" : message
}

/// TurboJPEG's last message for `handle` (`nil`: the global one, for a failed `tjInitDecompress`).
private func turboJPEGMessage(_ handle: tjhandle?) -> String {
    guard let text = tjGetErrorStr2(handle) else { return "unknown libjpeg-turbo error" }
    let message = String(cString: text)
    return message.isEmpty ? "unknown libjpeg-turbo error" : message
}

extension Image {
    /// Encodes the pixels as a baseline JPEG (libjpeg-turbo, 4:2:0 chroma subsampling) at `quality`
    /// (1…100), recording a non-`up` ``orientation`` as the EXIF Orientation tag, so
    /// ``init(jpegData:name:)`` reads back the same orientation.
    ///
    /// - Throws: ``ImageError/invalidBuffer(option:expected:actual:)`` for a quality outside 1…100,
    ///   ``ImageError/encodingFailed(reason:)`` with libjpeg-turbo's message.
    public func jpegData(quality: Int = 92) throws -> [UInt8] {
        guard (1...100).contains(quality) else {
            throw ImageError.invalidBuffer(option: "quality", expected: "1...100", actual: "\(quality)")
        }
        guard let handle = tjInitCompress() else {
            throw ImageError.encodingFailed(reason: "JPEG: tjInitCompress failed: \(turboJPEGMessage(nil))")
        }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        defer { tjFree(buffer) }
        var size: UInt = 0
        let status = pixels.withUnsafeBufferPointer {
            tjCompress2(handle, $0.baseAddress, Int32(width), Int32(width * 3), Int32(height), Int32(TJPF_RGB.rawValue),
                        &buffer, &size, Int32(TJSAMP_420.rawValue), Int32(quality), TJFLAG_ACCURATEDCT)
        }
        guard status == 0, let buffer, size >= 2 else {
            throw ImageError.encodingFailed(reason: "JPEG: \(turboJPEGMessage(handle))")
        }
        let jpeg = Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
        guard orientation != .up else { return jpeg }
        // An APP1 EXIF segment right after SOI holding IFD0 with the Orientation tag only (big-endian TIFF).
        let tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8,      // "MM", 42, IFD0 at offset 8
                             0, 1,                                     // one entry
                             0x01, 0x12, 0, 3, 0, 0, 0, 1,             // Orientation, SHORT, count 1
                             0, UInt8(orientation.exifValue), 0, 0,
                             0, 0, 0, 0]                               // no next IFD
        let payload = exifSegmentIdentifier + tiff
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg[2...]
    }
}
