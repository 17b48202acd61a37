import CZlib

/// A zip archive read from memory with every size checked before anything is allocated or inflated:
/// enough of the format for MediaPipe `.task` bundles (stored and deflated entries, ZIP64 sizes and
/// offsets), and nothing that trusts the archive. Each entry is inflated from its own compressed bytes
/// only, into at most its declared size, and its CRC-32 is checked, so a truncated stream, a stream that
/// runs past its entry, a "zip bomb" that inflates beyond what it declares, or declared sizes beyond
/// ``limits`` are errors, not hangs or exhausted memory.
struct ZipArchive {
    /// The most deflate can expand: 258 bytes out per 2 bits in (RFC 1951), about 1032:1.
    static let maximumDeflateRatio = 1032

    /// Caps that apply before any entry is inflated.
    struct Limits {
        /// Most entries in the central directory.
        var entries = 4096
        /// Largest declared uncompressed size of one entry that is extracted.
        var entryBytes = 512 << 20
        /// Largest sum of the declared uncompressed sizes of the entries extracted.
        var totalBytes = 1 << 30
    }

    struct Entry {
        var path: String
        var method: Int
        var flags: Int
        var crc32: UInt32
        var compressedSize: Int
        var uncompressedSize: Int
        var localHeaderOffset: Int
        var isDirectory: Bool { path.hasSuffix("/") }
    }

    let bytes: [UInt8]
    let name: String
    let entries: [Entry]
    let limits: Limits

    /// Reads the central directory of the archive in `bytes`; `name` is the file in error messages.
    init(bytes: [UInt8], name: String, limits: Limits = Limits()) throws {
        self.bytes = bytes
        self.name = name
        self.limits = limits
        func fail(_ why: String) -> ConverterError { .bundle("\(name) is not a readable zip archive: \(why)") }
        // End of central directory: 22 bytes plus a comment of up to 65535, at the end of the file.
        guard bytes.count >= 22 else { throw fail("\(bytes.count) bytes, shorter than a zip's end record (22)") }
        var eocd = -1
        var p = bytes.count - 22
        while p >= max(0, bytes.count - 22 - 0xFFFF) {
            if bytes.le32(p) == 0x0605_4B50 { eocd = p; break }
            p -= 1
        }
        guard eocd >= 0 else { throw fail("no end-of-central-directory record") }
        var count = bytes.le16(eocd + 10), size = Int(bytes.le32(eocd + 12)), offset = Int(bytes.le32(eocd + 16))
        if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
            // ZIP64: a locator just before the end record points at the ZIP64 end record.
            let locator = eocd - 20
            guard locator >= 0, bytes.le32(locator) == 0x0706_4B50, let at = bytes.le64(locator + 8).asIndex,
                  at + 56 <= bytes.count, bytes.le32(at) == 0x0606_4B50,
                  let c = bytes.le64(at + 32).asIndex, let s = bytes.le64(at + 40).asIndex, let o = bytes.le64(at + 48).asIndex else {
                throw fail("a ZIP64 end record that is missing or out of bounds")
            }
            count = c; size = s; offset = o
        }
        guard count <= limits.entries else { throw fail("\(count) entries, more than the \(limits.entries) allowed") }
        guard offset <= bytes.count, size <= bytes.count - offset else {
            throw fail("central directory at \(offset) (+\(size) bytes) lies outside the \(bytes.count)-byte file")
        }
        var entries: [Entry] = []
        var q = offset
        for index in 0..<count {
            guard q + 46 <= offset + size, bytes.le32(q) == 0x0201_4B50 else { throw fail("central directory entry \(index) is malformed") }
            let nameLength = bytes.le16(q + 28), extraLength = bytes.le16(q + 30), commentLength = bytes.le16(q + 32)
            let end = q + 46 + nameLength + extraLength + commentLength
            guard end <= offset + size else { throw fail("central directory entry \(index) runs past the directory") }
            var entry = Entry(path: String(decoding: bytes[(q + 46)..<(q + 46 + nameLength)], as: UTF8.self),
                              method: bytes.le16(q + 10), flags: bytes.le16(q + 8), crc32: bytes.le32(q + 16),
                              compressedSize: Int(bytes.le32(q + 20)), uncompressedSize: Int(bytes.le32(q + 24)),
                              localHeaderOffset: Int(bytes.le32(q + 42)))
            // ZIP64 extra field: the 64-bit values for the 32-bit fields that hold 0xFFFFFFFF, in order.
            var e = q + 46 + nameLength
            while e + 4 <= q + 46 + nameLength + extraLength {
                let id = bytes.le16(e), length = bytes.le16(e + 2)
                guard e + 4 + length <= q + 46 + nameLength + extraLength else { break }
                if id == 0x0001 {
                    var f = e + 4
                    func next() -> Int? {
                        guard f + 8 <= e + 4 + length, let v = bytes.le64(f).asIndex else { return nil }
                        f += 8
                        return v
                    }
                    if entry.uncompressedSize == 0xFFFF_FFFF { entry.uncompressedSize = next() ?? Int.max }
                    if entry.compressedSize == 0xFFFF_FFFF { entry.compressedSize = next() ?? Int.max }
                    if entry.localHeaderOffset == 0xFFFF_FFFF { entry.localHeaderOffset = next() ?? Int.max }
                }
                e += 4 + length
            }
            entries.append(entry)
            q = end
        }
        self.entries = entries
    }

    /// The uncompressed bytes of `entry`.
    ///
    /// - Throws: ``ConverterError/bundle(_:)`` naming the archive and entry, with the expected and actual
    ///   values: sizes beyond ``limits``, an encrypted entry, a method other than stored or deflate, data
    ///   outside the file, a deflate stream that is corrupt, ends early or inflates beyond its declared
    ///   size, or a CRC-32 mismatch.
    func extract(_ entry: Entry) throws -> [UInt8] {
        func fail(_ why: String) -> ConverterError { .bundle("cannot extract '\(entry.path)' from \(name): \(why)") }
        guard entry.uncompressedSize <= limits.entryBytes else {
            throw fail("it declares \(entry.uncompressedSize) bytes, more than the \(limits.entryBytes) allowed per entry")
        }
        guard entry.flags & 1 == 0 else { throw fail("it is encrypted") }
        let h = entry.localHeaderOffset
        guard h <= bytes.count - 30, bytes.le32(h) == 0x0403_4B50 else { throw fail("no local header at offset \(h)") }
        let start = h + 30 + bytes.le16(h + 26) + bytes.le16(h + 28)
        guard start <= bytes.count, entry.compressedSize <= bytes.count - start else {
            throw fail("its \(entry.compressedSize) compressed bytes at offset \(start) run past the end of the \(bytes.count)-byte file")
        }
        let data: [UInt8]
        switch entry.method {
        case 0:
            guard entry.compressedSize == entry.uncompressedSize else {
                throw fail("stored with \(entry.compressedSize) bytes but declares \(entry.uncompressedSize)")
            }
            data = Array(bytes[start..<(start + entry.compressedSize)])
        case 8:
            data = try inflate(start: start, entry: entry, fail: fail)
        default:
            throw fail("compression method \(entry.method); expected 0 (stored) or 8 (deflate)")
        }
        let crc = data.withUnsafeBufferPointer { UInt32(truncatingIfNeeded: crc32(0, $0.baseAddress, UInt32($0.count))) }
        guard crc == entry.crc32 else {
            throw fail("CRC-32 \(String(crc, radix: 16)) does not match the recorded \(String(entry.crc32, radix: 16))")
        }
        return data
    }

    /// Raw deflate over exactly the entry's compressed bytes into exactly its declared size.
    private func inflate(start: Int, entry: Entry, fail: (String) -> ConverterError) throws -> [UInt8] {
        // Deflate expands at most 1032:1 (a 258-byte match per 2 bits of Huffman code, RFC 1951), so a larger
        // declared size is a lie told to make the reader allocate; refuse it before allocating anything.
        let mostInflatable = entry.compressedSize.multipliedReportingOverflow(by: ZipArchive.maximumDeflateRatio)
        guard !mostInflatable.overflow, entry.uncompressedSize <= mostInflatable.partialValue + 64 else {
            throw fail("declares \(entry.uncompressedSize) bytes from \(entry.compressedSize) compressed bytes; deflate "
                       + "expands at most \(ZipArchive.maximumDeflateRatio):1")
        }
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw fail("zlib could not start")
        }
        defer { inflateEnd(&stream) }
        // One spare byte: a stream that fills it inflates beyond its declared size.
        var output = [UInt8](repeating: 0, count: entry.uncompressedSize + 1)
        var inflated = 0
        var result = Z_OK
        bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                var inputLeft = entry.compressedSize, position = start
                stream.next_out = out.baseAddress
                stream.avail_out = 0
                var outputLeft = out.count
                repeat {
                    if stream.avail_in == 0 {
                        let chunk = min(inputLeft, Int(UInt32.max))
                        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress! + position)
                        stream.avail_in = UInt32(chunk)
                        inputLeft -= chunk; position += chunk
                    }
                    if stream.avail_out == 0 {
                        let chunk = min(outputLeft, Int(UInt32.max))
                        stream.avail_out = UInt32(chunk)
                        outputLeft -= chunk
                    }
                    let before = (stream.avail_in, stream.avail_out)
                    result = CZlib.inflate(&stream, Z_NO_FLUSH)
                    // No progress possible: out of input or output (zlib then reports Z_BUF_ERROR).
                    if result == Z_BUF_ERROR || (before == (stream.avail_in, stream.avail_out) && result == Z_OK) { break }
                } while result == Z_OK
                inflated = out.count - outputLeft - Int(stream.avail_out)
            }
        }
        guard result == Z_STREAM_END else {
            if inflated > entry.uncompressedSize {
                throw fail("it inflates beyond its declared \(entry.uncompressedSize) bytes")
            }
            let reason = result == Z_BUF_ERROR ? "the deflate stream ends early, after \(inflated) of \(entry.uncompressedSize) bytes"
                : "corrupt deflate data (zlib \(result)\(stream.msg.map { ": " + String(cString: $0) } ?? ""))"
            throw fail(reason)
        }
        guard inflated == entry.uncompressedSize else {
            throw fail(inflated > entry.uncompressedSize ? "it inflates beyond its declared \(entry.uncompressedSize) bytes"
                : "it inflates to \(inflated) bytes, not the declared \(entry.uncompressedSize)")
        }
        output.removeLast()
        return output
    }
}

private extension [UInt8] {
    func le16(_ i: Int) -> Int { Int(self[i]) | Int(self[i + 1]) << 8 }
    func le32(_ i: Int) -> UInt32 { UInt32(self[i]) | UInt32(self[i + 1]) << 8 | UInt32(self[i + 2]) << 16 | UInt32(self[i + 3]) << 24 }
    func le64(_ i: Int) -> UInt64 { UInt64(le32(i)) | UInt64(le32(i + 4)) << 32 }
}

private extension UInt64 {
    /// The value as an index, when it fits one comfortably (below 2^62).
    var asIndex: Int? { self < 1 << 62 ? Int(self) : nil }
}
