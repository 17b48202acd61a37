#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Decoding by content: the format is taken from the first bytes (PNG's 8-byte signature, JPEG's
// FF D8 FF), never from the file name, and anything else is described ("text", "a GIF image", "an
// MP4/MOV video (ftyp)", …) so that a caller can say what was passed instead of an image.

/// An encoded image format that BlazeImage decodes.
public enum EncodedImageFormat: String, Sendable, Equatable, CaseIterable {
    /// PNG, decoded like MediaPipe's `mp.Image.create_from_file` (``Image/init(pngData:name:)``).
    case png
    /// JPEG, decoded like Pillow and OpenCV, with the EXIF orientation (``Image/init(jpegData:name:)``).
    case jpeg
}

/// A video container recognized by its first bytes (BlazeVideo reads them; BlazeImage only names them,
/// so that an image decoder handed a video can say so).
public enum VideoContainer: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// An ISO base media file (MP4, MOV, M4V, 3GP): an `ftyp` box whose brand is not a still image's.
    case isoBaseMedia = "MP4/MOV"
    /// Matroska or WebM (EBML header).
    case matroska = "Matroska/WebM"
    /// AVI (a RIFF file of form `AVI `).
    case avi = "AVI"

    /// The container's usual name: "MP4/MOV", "Matroska/WebM" or "AVI".
    public var description: String { rawValue }
}

/// What the first bytes of some data are, as far as ``Image/sniffFormat(_:)`` can tell.
public enum SniffedFormat: Sendable, Equatable, CustomStringConvertible {
    /// A format BlazeImage decodes.
    case image(EncodedImageFormat)
    /// An image format BlazeImage does not decode: "GIF", "WebP", "BMP", "TIFF", "HEIC/HEIF" or "AVIF".
    case unsupportedImage(String)
    /// A video container.
    case video(VideoContainer)
    /// Printable UTF-8 (or ASCII) text.
    case text
    /// No bytes at all.
    case empty
    /// Binary data of no recognized kind; `firstBytes` holds up to its first 8 bytes (the description
    /// ends in "…" when there are 8, as there may be more).
    case unknown(firstBytes: [UInt8])

    /// The decodable format, or `nil` if the data is not a PNG or JPEG image.
    public var imageFormat: EncodedImageFormat? {
        if case let .image(format) = self { return format }
        return nil
    }

    /// What the data looks like, as a noun phrase for messages: "a PNG image", "a JPEG image",
    /// "a GIF image", "an MP4/MOV video (ftyp)", "a Matroska/WebM video", "an AVI video", "text",
    /// "an empty file", "unknown binary data (first bytes: 00 01 02 03 …)".
    public var description: String {
        switch self {
        case .image(.png): return "a PNG image"
        case .image(.jpeg): return "a JPEG image"
        case let .unsupportedImage(name): return "\(name == "AVIF" ? "an" : "a") \(name) image"
        case .video(.isoBaseMedia): return "an MP4/MOV video (ftyp)"
        case .video(.avi): return "an AVI video"
        case .video(.matroska): return "a Matroska/WebM video"
        case .text: return "text"
        case .empty: return "an empty file"
        case let .unknown(firstBytes):
            let hex = firstBytes.prefix(8).map { byte -> String in
                let digits = String(byte, radix: 16)
                return digits.count == 1 ? "0" + digits : digits
            }
            return "unknown binary data (first bytes: \(hex.joined(separator: " "))\(firstBytes.count >= 8 ? " …" : ""))"
        }
    }
}

extension Image {
    /// Largest encoded file ``init(contentsOfFile:)`` reads: 512 MiB (far beyond any image within
    /// ``maxPixelCount``, small enough to refuse a video or disk image passed by mistake without reading it).
    public static let maxEncodedFileSize = 512 << 20

    /// How many leading bytes ``sniffFormat(_:)`` looks at (for text detection; the magic numbers need 12).
    public static let sniffLength = 512

    /// Decodes the PNG or JPEG file at `path`, recognized by its first bytes, never by its extension
    /// (see ``init(encodedData:name:)``).
    ///
    /// - Throws: ``ImageError/fileAccessFailed(path:reason:)`` if the file cannot be read or is larger than
    ///   ``maxEncodedFileSize``; ``ImageError/unrecognizedFormat(name:looksLike:)`` (read from the first
    ///   ``sniffLength`` bytes only) if it is neither PNG nor JPEG; otherwise the errors of
    ///   ``init(pngData:name:)`` or ``init(jpegData:name:)``, with `name` = `path`.
    public init(contentsOfFile path: String) throws {
        let data = try readEncodedImageFile(path)
        try self.init(encodedData: data, name: path)
    }

    /// Decodes PNG or JPEG bytes, choosing the decoder by the data's first bytes (PNG's signature
    /// `89 50 4E 47 0D 0A 1A 0A`, JPEG's `FF D8 FF`): PNG with ``init(pngData:name:)``, JPEG with
    /// ``init(jpegData:name:)`` (which sets ``orientation`` from EXIF).
    ///
    /// - Parameter name: the name used in error messages (a file path, or `"<memory>"`).
    /// - Throws: ``ImageError/unrecognizedFormat(name:looksLike:)`` saying what the data looks like
    ///   (``sniffFormat(_:)``) if it is neither; otherwise the decoder's errors.
    public init(encodedData: [UInt8], name: String = "<memory>") throws {
        let format = Image.sniffFormat(encodedData)
        switch format {
        case .image(.png): try self.init(pngData: encodedData, name: name)
        case .image(.jpeg): try self.init(jpegData: encodedData, name: name)
        default: throw ImageError.unrecognizedFormat(name: name, looksLike: format.description)
        }
    }

    /// What the data is, judged from its first bytes without decoding: PNG or JPEG (decodable), another
    /// image format, a video container, text, empty, or unknown binary data.
    ///
    /// Pass the whole data or at least its first ``sniffLength`` bytes (the magic numbers need 12 bytes;
    /// text detection looks at up to ``sniffLength``).
    public static func sniffFormat(_ bytes: some Collection<UInt8>) -> SniffedFormat {
        let head = Array(bytes.prefix(sniffLength))
        func starts(with magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && head[offset..<(offset + magic.count)].elementsEqual(magic)
        }
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

        if head.isEmpty { return .empty }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .image(.png) }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .image(.jpeg) }
        if starts(with: ascii("GIF87a")) || starts(with: ascii("GIF89a")) { return .unsupportedImage("GIF") }
        if starts(with: ascii("RIFF")) {
            if starts(with: ascii("WEBP"), at: 8) { return .unsupportedImage("WebP") }
            if starts(with: ascii("AVI "), at: 8) { return .video(.avi) }
        }
        // BMP: "BM", a 4-byte file size, then two reserved 16-bit fields that are zero.
        if starts(with: ascii("BM")), starts(with: [0, 0, 0, 0], at: 6) { return .unsupportedImage("BMP") }
        if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            return .unsupportedImage("TIFF")
        }
        if starts(with: ascii("ftyp"), at: 4), head.count >= 12 {
            // ISO base media file: the major brand says whether it is a still image (HEIF/AVIF) or a video.
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            switch brand {
            case "heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1": return .unsupportedImage("HEIC/HEIF")
            case "avif", "avis": return .unsupportedImage("AVIF")
            default: return .video(.isoBaseMedia)
            }
        }
        if starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return .video(.matroska) }
        if looksLikeText(head, isPrefix: !bytes.dropFirst(head.count).isEmpty) { return .text }
        return .unknown(firstBytes: Array(head.prefix(8)))
    }

    /// ``sniffFormat(_:)`` of the first ``sniffLength`` bytes of the file at `path`, reading nothing more.
    ///
    /// - Throws: ``ImageError/fileAccessFailed(path:reason:)`` if the file cannot be opened or read.
    public static func sniffFormat(contentsOfFile path: String) throws -> SniffedFormat {
        let file = try OpenFile(path: path)
        let head = try file.read(upTo: sniffLength)
        return sniffFormat(head.bytes)
    }
}

/// Whether `bytes` is printable UTF-8 text: valid UTF-8 (a sequence cut off by the end of a prefix is
/// allowed) with no control characters other than tab, line feed, vertical tab, form feed, carriage return
/// and escape.
private func looksLikeText(_ bytes: [UInt8], isPrefix: Bool) -> Bool {
    var body = bytes[...]
    if isPrefix {
        // Drop a multi-byte sequence cut off by the end of the prefix (at most 3 trailing bytes).
        var start = body.endIndex
        while start > body.startIndex, body.endIndex - start < 4, body[start - 1] & 0xC0 == 0x80 { start -= 1 }
        if start > body.startIndex {
            let lead = body[start - 1]
            let needed = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            if needed > body.endIndex - (start - 1) { body = body[..<(start - 1)] }
        }
    }
    guard !body.isEmpty, let text = String(validating: body, as: UTF8.self) else { return false }
    return text.unicodeScalars.allSatisfy { scalar in
        switch scalar.value {
        case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1B: return true
        case 0x00..<0x20, 0x7F, 0x80..<0xA0: return false
        default: return true
        }
    }
}

/// Reads the file at `path` for ``Image/init(contentsOfFile:)``: first ``Image/sniffLength`` bytes, to refuse
/// anything but PNG and JPEG without reading it all, then the rest, up to ``Image/maxEncodedFileSize``.
private func readEncodedImageFile(_ path: String) throws -> [UInt8] {
    let file = try OpenFile(path: path)
    var head = try file.read(upTo: Image.sniffLength)
    let format = Image.sniffFormat(head.bytes)
    guard format.imageFormat != nil else {
        throw ImageError.unrecognizedFormat(name: path, looksLike: format.description)
    }
    if head.atEnd { return head.bytes }
    let limit = Image.maxEncodedFileSize
    if let size = file.regularFileSize, size > limit {
        throw ImageError.fileAccessFailed(path: path, reason: tooLarge(size: "\(size) bytes", limit: limit))
    }
    // The size may change while reading, and pipes report none: bound the read itself.
    let rest = try file.read(upTo: limit + 1 - head.bytes.count)
    head.bytes.append(contentsOf: rest.bytes)
    guard head.bytes.count <= limit else {
        throw ImageError.fileAccessFailed(path: path, reason: tooLarge(size: "more than \(limit) bytes", limit: limit))
    }
    return head.bytes
}

private func tooLarge(size: String, limit: Int) -> String {
    "file is too large for an encoded image: \(size); expected at most \(limit) bytes (\(limit >> 20) MiB)"
}

/// A `FILE*` opened for reading, closed when released.
private final class OpenFile {
    let path: String
    private let handle: UnsafeMutablePointer<FILE>

    init(path: String) throws {
        guard let handle = fopen(path, "rb") else {
            throw ImageError.fileAccessFailed(path: path, reason: "cannot open for reading: \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.handle = handle
    }

    deinit { fclose(handle) }

    /// The size of a regular file, or `nil` (pipes, devices).
    var regularFileSize: Int? {
        var info = stat()
        guard fstat(fileno(handle), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    /// Reads up to `limit` bytes; `atEnd` is true when the file ended before `limit`.
    func read(upTo limit: Int) throws -> (bytes: [UInt8], atEnd: Bool) {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(max(limit, 1), 1 << 16))
        while out.count < limit {
            let wanted = min(chunk.count, limit - out.count)
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, wanted, handle) }
            if n > 0 { out.append(contentsOf: chunk[0..<n]) }
            if n < wanted {
                if ferror(handle) != 0 {
                    throw ImageError.fileAccessFailed(path: path, reason: "read error: \(String(cString: strerror(errno)))")
                }
                return (out, true)
            }
        }
        return (out, false)
    }
}
