import CPNG
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// PNG decoding and encoding with libpng's *simplified* API (`png_image_*`), which reports errors by
// return value: the classic `png_read_*` API signals errors with longjmp, which Swift cannot survive.
//
// Decoding reproduces what MediaPipe's `mp.Image.create_from_file` (stb_image) hands the pipeline:
// * gAMA, sRGB, iCCP and cHRM chunks are removed before libpng sees the data, because stb_image ignores
//   them while the simplified API would gamma-correct;
// * 8-bit (and 1/2/4-bit) files are read as 8-bit sRGB, i.e. unchanged samples (palette expanded, low bit
//   depths scaled by replication, gray replicated to RGB);
// * 16-bit files are read as 16-bit *linear* samples — with the colour-space chunks gone, input and output
//   are both linear, so libpng leaves the samples alone — and reduced to 8 bits as stb_image does,
//   `v >> 8` (libpng's own 16→8 reduction rounds, `≈ v/257`, which differs);
// * alpha is dropped, colours are kept (MediaPipe warps RGBA and discards alpha).
// Limitation: for 16-bit files with an alpha channel (or a 16-bit tRNS key) libpng's simplified API
// returns *premultiplied* linear colours, so pixels that are not fully opaque differ from stb_image's
// (opaque pixels are exact).

extension Image {
    /// Decodes the PNG file at `path` (see ``init(pngData:name:)``).
    ///
    /// - Throws: ``ImageError/fileAccessFailed(path:reason:)`` if the file cannot be read, otherwise as
    ///   ``init(pngData:name:)`` with `name` = `path`.
    public init(contentsOfPNGFile path: String) throws {
        let data = try readFile(path)
        try self.init(pngData: data, name: path)
    }

    /// Decodes PNG bytes into 8-bit RGB exactly as MediaPipe's `mp.Image.create_from_file` (stb_image)
    /// reads them: every colour type and bit depth (gray, gray+alpha, RGB, RGBA, palette with or without
    /// tRNS, 1–16 bits, interlaced or not). Gamma and colour-profile chunks are ignored, 16-bit samples are
    /// reduced with `v >> 8`, gray is replicated to RGB and alpha is dropped. (16-bit files with
    /// transparency: libpng premultiplies non-opaque pixels; see the module README.)
    ///
    /// - Parameter name: the name used in error messages.
    /// - Throws: ``ImageError/invalidSize(name:width:height:)`` (checked from the header, before any pixel
    ///   buffer is allocated), ``ImageError/decodingFailed(name:reason:)`` with libpng's message for
    ///   corrupt or truncated data.
    public init(pngData: [UInt8], name: String = "<memory>") throws {
        let data = stripColorSpaceChunks(pngData)
        // libpng keeps the pointer from begin_read until finish_read, so the compressed bytes must
        // live at a fixed address for the whole decode (an Array's withUnsafeBytes pointer must not
        // escape its closure: the optimizer may free the array after its last use).
        let compressed = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        defer { compressed.deallocate() }
        data.withUnsafeBytes { if $0.count > 0 { compressed.copyMemory(from: $0) } }
        // The png_image itself must not move either: begin_read stores its address as the read callback's
        // io_ptr and finish_read dereferences it (an inout `&local` is only valid during each call).
        let imagePointer = UnsafeMutablePointer<png_image>.allocate(capacity: 1)
        imagePointer.initialize(to: png_image())
        defer { imagePointer.deinitialize(count: 1); imagePointer.deallocate() }
        imagePointer.pointee.version = png_uint_32(PNG_IMAGE_VERSION)
        let begun = png_image_begin_read_from_memory(imagePointer, compressed.baseAddress, data.count)
        guard begun != 0 else {
            let reason = pngMessage(&imagePointer.pointee)
            png_image_free(imagePointer)
            throw ImageError.decodingFailed(name: name, reason: reason)
        }
        let width = Int(imagePointer.pointee.width), height = Int(imagePointer.pointee.height)
        do {
            try Image.validateSize(width: width, height: height, name: name)
        } catch {
            png_image_free(imagePointer)
            throw error
        }
        let base = imagePointer.pointee.format
        let linear = base & PNG_FORMAT_FLAG_LINEAR != 0
        let alpha = base & PNG_FORMAT_FLAG_ALPHA != 0
        let channels = alpha ? 4 : 3
        imagePointer.pointee.format = PNG_FORMAT_FLAG_COLOR | (alpha ? PNG_FORMAT_FLAG_ALPHA : 0) | (linear ? PNG_FORMAT_FLAG_LINEAR : 0)
        imagePointer.pointee.flags = 0  // 16-bit input is linear (the default), matching the linear output: no conversion
        let count = width * height * 3
        var failure: String?
        var pixels: [UInt8]
        if linear {
            var wide = [UInt16](repeating: 0, count: width * height * channels)
            let ok = wide.withUnsafeMutableBytes { png_image_finish_read(imagePointer, nil, $0.baseAddress, 0, nil) }
            if ok == 0 { failure = pngMessage(&imagePointer.pointee) }
            pixels = [UInt8](unsafeUninitializedCapacity: count) { buf, initialized in
                for i in 0..<(width * height) {
                    buf[3 * i] = UInt8(truncatingIfNeeded: wide[channels * i] >> 8)
                    buf[3 * i + 1] = UInt8(truncatingIfNeeded: wide[channels * i + 1] >> 8)
                    buf[3 * i + 2] = UInt8(truncatingIfNeeded: wide[channels * i + 2] >> 8)
                }
                initialized = count
            }
        } else if alpha {
            var rgba = [UInt8](repeating: 0, count: width * height * 4)
            let ok = rgba.withUnsafeMutableBytes { png_image_finish_read(imagePointer, nil, $0.baseAddress, 0, nil) }
            if ok == 0 { failure = pngMessage(&imagePointer.pointee) }
            pixels = [UInt8](unsafeUninitializedCapacity: count) { buf, initialized in
                for i in 0..<(width * height) {
                    buf[3 * i] = rgba[4 * i]; buf[3 * i + 1] = rgba[4 * i + 1]; buf[3 * i + 2] = rgba[4 * i + 2]
                }
                initialized = count
            }
        } else {
            pixels = [UInt8](repeating: 0, count: count)
            let ok = pixels.withUnsafeMutableBytes { png_image_finish_read(imagePointer, nil, $0.baseAddress, 0, nil) }
            if ok == 0 { failure = pngMessage(&imagePointer.pointee) }
        }
        png_image_free(imagePointer)
        if let failure { throw ImageError.decodingFailed(name: name, reason: failure) }
        self.init(validatedPixels: pixels, width: width, height: height)
    }

    /// Encodes the pixels as an 8-bit RGB PNG (libpng simplified API; orientation is not stored).
    ///
    /// - Throws: ``ImageError/encodingFailed(reason:)`` with libpng's message.
    public func pngData() throws -> [UInt8] {
        try encodePNG(pixels, width: width, height: height, format: UInt32(PNG_FORMAT_RGB))
    }

    /// Encodes `gray` (`width · height` bytes, row-major) as an 8-bit grayscale PNG, e.g. for masks.
    ///
    /// - Throws: ``ImageError/invalidSize(name:width:height:)``, ``ImageError/invalidBuffer(option:expected:actual:)``
    ///   if `gray.count != width · height`, ``ImageError/encodingFailed(reason:)``.
    public static func pngData(gray: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        try validateSize(width: width, height: height, name: "pngData(gray:)")
        guard gray.count == width * height else {
            throw ImageError.invalidBuffer(option: "gray.count", expected: "\(width * height) (\(width)×\(height))",
                                           actual: "\(gray.count)")
        }
        return try encodePNG(gray, width: width, height: height, format: UInt32(PNG_FORMAT_GRAY))
    }

    /// Writes ``pngData()`` to `path`.
    ///
    /// - Throws: ``ImageError/encodingFailed(reason:)``, ``ImageError/fileAccessFailed(path:reason:)``.
    public func writePNG(to path: String) throws {
        try writeFile(path, try pngData())
    }
}

private func encodePNG(_ samples: [UInt8], width: Int, height: Int, format: UInt32) throws -> [UInt8] {
    var image = png_image()
    image.version = png_uint_32(PNG_IMAGE_VERSION)
    image.width = png_uint_32(width)
    image.height = png_uint_32(height)
    image.format = format
    var size = 0
    let sized = samples.withUnsafeBytes { png_image_write_to_memory(&image, nil, &size, 0, $0.baseAddress, 0, nil) }
    guard sized != 0, size > 0 else {
        let reason = pngMessage(&image)
        png_image_free(&image)
        throw ImageError.encodingFailed(reason: "PNG: \(reason)")
    }
    var out = [UInt8](repeating: 0, count: size)
    let ok = out.withUnsafeMutableBytes { dst in
        samples.withUnsafeBytes { png_image_write_to_memory(&image, dst.baseAddress, &size, 0, $0.baseAddress, 0, nil) }
    }
    guard ok != 0 else {
        let reason = pngMessage(&image)
        png_image_free(&image)
        throw ImageError.encodingFailed(reason: "PNG: \(reason)")
    }
    png_image_free(&image)
    return Array(out.prefix(size))
}

/// libpng's message buffer (`char message[64]`) as a Swift string.
private func pngMessage(_ image: inout png_image) -> String {
    let text = withUnsafeBytes(of: &image.message) { raw -> String in
        let bytes = raw.prefix { $0 != 0 }
        return String(decoding: bytes, as: UTF8.self)
    }
    return text.isEmpty ? "unknown libpng error" : text
}

private let pngSignature: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]

/// Removes gAMA, sRGB, iCCP and cHRM chunks (stb_image ignores them; libpng's simplified API would apply
/// gamma). Anything that does not parse as a clean chunk sequence is returned unchanged, so libpng reports
/// the problem.
func stripColorSpaceChunks(_ data: [UInt8]) -> [UInt8] {
    guard data.count >= 8, Array(data[0..<8]) == pngSignature else { return data }
    var ranges: [Range<Int>] = []   // chunks to drop
    var offset = 8
    while offset + 12 <= data.count {
        let length = Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
        guard length <= 0x7fff_ffff, offset + 12 + length <= data.count else { return data }
        let type = String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self)
        let end = offset + 12 + length
        if type == "gAMA" || type == "sRGB" || type == "iCCP" || type == "cHRM" { ranges.append(offset..<end) }
        offset = end
        if type == "IEND" { break }
    }
    if ranges.isEmpty { return data }
    var out: [UInt8] = []
    out.reserveCapacity(data.count)
    var last = 0
    for r in ranges {
        out.append(contentsOf: data[last..<r.lowerBound])
        last = r.upperBound
    }
    out.append(contentsOf: data[last...])
    return out
}

func readFile(_ path: String) throws -> [UInt8] {
    guard let f = fopen(path, "rb") else {
        throw ImageError.fileAccessFailed(path: path, reason: "cannot open for reading: \(String(cString: strerror(errno)))")
    }
    defer { fclose(f) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
        if n > 0 { out.append(contentsOf: chunk[0..<n]) }
        if n < chunk.count {
            if ferror(f) != 0 { throw ImageError.fileAccessFailed(path: path, reason: "read error") }
            break
        }
    }
    return out
}

func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    guard let f = fopen(path, "wb") else {
        throw ImageError.fileAccessFailed(path: path, reason: "cannot open for writing: \(String(cString: strerror(errno)))")
    }
    let n = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
    let closed = fclose(f)
    guard n == bytes.count, closed == 0 else {
        throw ImageError.fileAccessFailed(path: path, reason: "short write (\(n) of \(bytes.count) bytes)")
    }
}
