import Foundation
import Testing
@testable import BlazeImage
import BlazeTestSupport

/// JPEG decoding, EXIF orientation and decoding by content. Fixtures: `Fixtures/jpeg`, written by
/// `Tools/fixtures/make_jpeg_fixtures.py`; each `<name>.png` holds the pixels Pillow decodes from `<name>.jpg`.
@Suite struct JPEGTests {
    /// Every encoding variant of the 77×53 photo crop (see the fixture script for how each was made).
    static let photoCases = ["photo_420", "photo_422", "photo_444", "photo_440", "photo_progressive", "photo_restart",
                             "photo_arithmetic", "photo_gray", "photo_cmyk_adobe", "photo_cmyk_noadobe", "photo_ycck"]

    /// EXIF Orientation value → UIKit's `UIImage.Orientation`.
    static let uiKitOrientation: [Int: ImageOrientation] = [
        1: .up, 2: .upMirrored, 3: .down, 4: .downMirrored, 5: .leftMirrored, 6: .right, 7: .rightMirrored, 8: .left,
    ]

    static func jpeg(_ name: String) throws -> [UInt8] { try Fixtures.bytes("jpeg/\(name).jpg") }
    static func expected(_ name: String) throws -> Image { try Image(pngData: try Fixtures.bytes("jpeg/\(name).png")) }

    // MARK: - Pixels

    @Test(arguments: photoCases + (1...8).map { "exif_photo_\($0)" } + ["exif_blocks_1"])
    func decodesLikePillow(_ name: String) throws {
        let image = try Image(jpegData: try Self.jpeg(name), name: name)
        // The exif_photo PNGs are Pillow's *displayed* image; compare those after orienting.
        let decoded = name.hasPrefix("exif_photo") ? try image.oriented() : image
        let expected = try Self.expected(name)
        #expect(decoded.width == expected.width && decoded.height == expected.height)
        let mismatches = zip(decoded.pixels, expected.pixels).filter { $0 != $1 }.count
        // Byte-identical, CMYK/YCCK included (the conversion reproduces Pillow's rounding exactly).
        #expect(decoded.pixels.count == expected.pixels.count && mismatches == 0,
                "\(name): \(mismatches) of \(expected.pixels.count) bytes differ from Pillow's decode")
    }

    @Test func grayIsReplicated() throws {
        let image = try Image(jpegData: try Self.jpeg("photo_gray"))
        for i in 0..<(image.width * image.height) {
            guard image.pixels[3 * i] == image.pixels[3 * i + 1], image.pixels[3 * i] == image.pixels[3 * i + 2] else {
                Issue.record("pixel \(i) is not gray"); return
            }
        }
    }

    /// The CMYK → RGB conversion equals Pillow's `cmyk2rgb` on `CMYK;I` data for every (sample, K) pair:
    /// `nk − MULDIV255(255 − c, nk)` with `nk = k`, `MULDIV255(a, b) = ((a·b + 128) >> 8 + a·b + 128) >> 8`.
    @Test func cmykConversionMatchesPillowExhaustively() {
        var cmyk: [UInt8] = []
        var pillow: [UInt8] = []
        for c in 0...255 {
            for k in 0...255 {
                cmyk += [UInt8(c), UInt8(255 - c), UInt8(c / 2), UInt8(k)]
                for s in [c, 255 - c, c / 2] {
                    let t = (255 - s) * k + 128
                    pillow.append(UInt8(k - (((t >> 8) + t) >> 8)))
                }
            }
        }
        #expect(invertedCMYKToRGB(cmyk, pixelCount: 256 * 256) == pillow)
    }

    @Test func fileMemoryAndContentDecodeAgree() throws {
        for name in ["photo_420", "photo_cmyk_adobe", "exif_photo_6"] {
            let bytes = try Self.jpeg(name)
            let fromMemory = try Image(jpegData: bytes, name: name)
            #expect(try Image(encodedData: bytes, name: name) == fromMemory)
            #expect(try Image(contentsOfFile: Fixtures.path("jpeg/\(name).jpg")) == fromMemory)
        }
        // A PNG through the content-sniffing paths decodes exactly as Image(pngData:).
        for name in ["rgb8", "palette4_trns_interlaced", "gray16"] {
            let bytes = try Fixtures.bytes("png/\(name).png")
            let reference = try Image(pngData: bytes)
            #expect(try Image(encodedData: bytes, name: name) == reference)
            #expect(try Image(contentsOfFile: Fixtures.path("png/\(name).png")) == reference)
            #expect(try Image(contentsOfPNGFile: Fixtures.path("png/\(name).png")) == reference)
        }
    }

    @Test func formatComesFromContentNotExtension() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blazeimage-jpeg-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let jpegBytes = try Self.jpeg("exif_photo_6"), pngBytes = try Fixtures.bytes("png/rgb8.png")
        let jpegAsPNG = directory.appendingPathComponent("really-a-jpeg.png").path
        let pngAsJPEG = directory.appendingPathComponent("really-a-png.jpg").path
        try Data(jpegBytes).write(to: URL(fileURLWithPath: jpegAsPNG))
        try Data(pngBytes).write(to: URL(fileURLWithPath: pngAsJPEG))
        let jpeg = try Image(contentsOfFile: jpegAsPNG), jpegReference = try Image(jpegData: jpegBytes)
        #expect(jpeg == jpegReference && jpeg.orientation == .right)
        let png = try Image(contentsOfFile: pngAsJPEG), pngReference = try Image(pngData: pngBytes)
        #expect(png == pngReference)
        #expect(try Image.sniffFormat(contentsOfFile: jpegAsPNG) == .image(.jpeg))
        #expect(try Image.sniffFormat(contentsOfFile: pngAsJPEG) == .image(.png))
    }

    // MARK: - EXIF orientation

    @Test func exifValuesMapLikeUIKit() {
        for (value, orientation) in Self.uiKitOrientation {
            #expect(ImageOrientation(exifValue: value) == orientation)
            #expect(orientation.exifValue == value)
        }
        for value in [-1, 0, 9, 255, 65535, Int.max] { #expect(ImageOrientation(exifValue: value) == nil) }
        #expect(Set(Self.uiKitOrientation.values) == Set(ImageOrientation.allCases))
    }

    /// The same compressed image with Orientation 1…8: identical stored pixels, and oriented() gives what
    /// Pillow's `ImageOps.exif_transpose` displays (checked in `decodesLikePillow`).
    @Test func exifOrientationOfIdenticalCompressedData() throws {
        let stored = try Image(jpegData: try Self.jpeg("exif_photo_1"))
        for k in 1...8 {
            let bytes = try Self.jpeg("exif_photo_\(k)")
            #expect(Image.exifOrientation(jpegData: bytes) == Self.uiKitOrientation[k], "EXIF \(k)")
            let image = try Image(jpegData: bytes)
            #expect(image.orientation == Self.uiKitOrientation[k])
            #expect(image.pixels == stored.pixels && image.width == stored.width, "EXIF \(k): stored pixels differ")
        }
        // The photo without EXIF reads as up.
        #expect(Image.exifOrientation(jpegData: try Self.jpeg("photo_420")) == nil)
        #expect(try Image(jpegData: try Self.jpeg("photo_420")).orientation == .up)
    }

    /// Eight files storing one upright picture physically transformed (Pillow's `Image.transpose`) with the
    /// matching Orientation tag: each displays exactly as the upright one. The picture is flat 8×8 blocks,
    /// 4:4:4, so every block decodes identically wherever the transform puts it and the check is exact.
    @Test func physicallyTransformedFilesDisplayUpright() throws {
        let upright = try Image(jpegData: try Self.jpeg("exif_blocks_1"))
        let pillow = try Self.expected("exif_blocks_1")
        #expect(upright == pillow)
        #expect(upright.width == 48 && upright.height == 32)
        for k in 1...8 {
            let image = try Image(jpegData: try Self.jpeg("exif_blocks_\(k)"), name: "exif_blocks_\(k)")
            #expect(image.orientation == Self.uiKitOrientation[k], "EXIF \(k)")
            let swapsSides = [5, 6, 7, 8].contains(k)
            #expect(image.width == (swapsSides ? 32 : 48), "EXIF \(k): stored width")
            let shown = try image.oriented()
            #expect(shown.orientation == .up)
            #expect(shown == upright, "EXIF \(k): displayed image differs from the upright one")
        }
    }

    @Test func hostileEXIFReadsAsUp() throws {
        let base = try Self.jpeg("photo_420")
        let reference = try Image(jpegData: base)
        let orientation: UInt16 = 0x0112
        func check(_ payload: [UInt8], _ label: String, expect expected: ImageOrientation? = nil) {
            let data = withAPP1(payload, base: base)
            #expect(Image.exifOrientation(jpegData: data) == expected, "\(label)")
            do {
                let image = try Image(jpegData: data, name: label)
                #expect(image.orientation == (expected ?? .up) && image.pixels == reference.pixels, "\(label)")
            } catch { Issue.record("\(label): \(error)") }
        }
        for bigEndian in [false, true] {
            let good = exifEntry(orientation, type: 3, count: 1, short: 6, bigEndian: bigEndian)
            check(exifPayload(tiff(bigEndian: bigEndian, entries: [good])), "well-formed", expect: .right)
            check(exifPayload(tiff(bigEndian: bigEndian, entries: [exifEntry(orientation, type: 4, count: 1, long: 8, bigEndian: bigEndian)])),
                  "LONG", expect: .left)
            // IFD0 offset outside the segment, into the header, at the very end.
            for offset: UInt32 in [0xFFFF_FFF0, 0xFFFF_FFFF, 0x7FFF_FFFF, 1000, 0, 4, 7, 25] {
                check(exifPayload(tiff(bigEndian: bigEndian, ifdOffset: offset, entries: [good])), "IFD0 at \(offset)")
            }
            // Entry count larger than the segment holds.
            for count: UInt16 in [0xFFFF, 2, 100] {
                check(exifPayload(tiff(bigEndian: bigEndian, entries: [good], countOverride: count)), "count \(count)")
            }
            // Next-IFD pointer to IFD0 itself: not followed, the tag is still read once.
            check(exifPayload(tiff(bigEndian: bigEndian, entries: [good], nextIFD: 8)), "self-referencing", expect: .right)
            check(exifPayload(tiff(bigEndian: bigEndian, entries: [], nextIFD: 8)), "self-referencing, no tag")
            // Out-of-range values, wrong types and counts.
            for value: UInt16 in [0, 9, 0xFF, 0xFFFF] {
                check(exifPayload(tiff(bigEndian: bigEndian, entries: [exifEntry(orientation, type: 3, count: 1, short: value, bigEndian: bigEndian)])),
                      "value \(value)")
            }
            for (type, count): (UInt16, UInt32) in [(2, 1), (5, 1), (3, 0), (3, 2), (3, 0xFFFF_FFFF), (0xFFFF, 1)] {
                check(exifPayload(tiff(bigEndian: bigEndian, entries: [exifEntry(orientation, type: type, count: count, short: 6, bigEndian: bigEndian)])),
                      "type \(type) count \(count)")
            }
            // The IFD ends exactly at the segment end (allowed) and one byte past it (refused).
            let exact = tiff(bigEndian: bigEndian, entries: [good], nextIFD: nil)
            check(exifPayload(exact), "IFD ending at the segment end", expect: .right)
            check(exifPayload(Array(exact.dropLast())), "IFD cut by one byte")
        }
        // Not TIFF: wrong byte-order mark, wrong magic, too short; not "Exif\0\0".
        check(exifPayload([0x49, 0x4D, 0x2A, 0x00, 8, 0, 0, 0] + [UInt8](repeating: 0, count: 20)), "byte order IM")
        check(exifPayload([0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0] + [UInt8](repeating: 0, count: 20)), "BigTIFF magic")
        check(exifPayload([0x49, 0x49, 0x2A]), "3-byte TIFF")
        check(exifPayload([]), "empty EXIF")
        check(Array("Exif".utf8), "short identifier")
        check(Array("XMP\0\0\0".utf8) + tiff(bigEndian: false, entries: [exifEntry(orientation, type: 3, count: 1, short: 6, bigEndian: false)]),
              "other APP1")
    }

    @Test func exifMarkerWalkIsBounded() throws {
        let base = try Self.jpeg("photo_420")
        let segment = exifPayload(tiff(bigEndian: true, entries: [exifEntry(0x0112, type: 3, count: 1, short: 3, bigEndian: true)]))
        let app1 = [0xFF, 0xE1] + be16(segment.count + 2) + segment
        // Fill bytes and RST markers before the segment are skipped.
        #expect(Image.exifOrientation(jpegData: [0xFF, 0xD8, 0xFF, 0xFF, 0xFF] + app1.dropFirst() + base.dropFirst(2)) == .down)
        #expect(Image.exifOrientation(jpegData: [0xFF, 0xD8, 0xFF, 0xD3] + app1 + base.dropFirst(2)) == .down)
        // After the first scan it is image data, not metadata.
        let sos = try #require(findMarker(0xDA, in: base))
        let scanData = sos + 2 + (Int(base[sos + 2]) << 8 | Int(base[sos + 3]))
        #expect(Image.exifOrientation(jpegData: Array(base[..<sos]) + app1 + Array(base[sos...])) == .down)
        #expect(Image.exifOrientation(jpegData: Array(base[..<scanData]) + app1 + Array(base[scanData...])) == nil)
        // Segment lengths 0 and 1 are invalid; a length past the end stops the walk.
        for length in [0, 1, 0xFFFF] {
            #expect(Image.exifOrientation(jpegData: [0xFF, 0xD8, 0xFF, 0xE1] + be16(length) + segment) == nil)
        }
        #expect(Image.exifOrientation(jpegData: []) == nil)
        #expect(Image.exifOrientation(jpegData: [0xFF, 0xD8]) == nil)
        #expect(Image.exifOrientation(jpegData: [0x89, 0x50, 0x4E, 0x47] + app1) == nil)
        // Every truncation of an EXIF-carrying file: the tag is found only when the segment is complete.
        let full = [0xFF, 0xD8] + app1 + base.dropFirst(2)
        for length in 0...(2 + app1.count + 8) {
            let found = Image.exifOrientation(jpegData: Array(full.prefix(length)))
            #expect(found == (length >= 2 + app1.count ? .down : nil), "cut at \(length)")
        }
    }

    @Test func randomEXIFNeverCrashes() throws {
        let base = try Self.jpeg("exif_photo_6")
        let range = try #require(exifTIFFRange(inJPEG: base))
        var rng = SplitMix64(seed: 2024)
        for trial in 0..<3000 {
            var bytes = base
            // Flip bytes inside the TIFF structure (header, IFD0, values) and in the APP1 length.
            let app1Length = (range.lowerBound - 8)..<(range.lowerBound - 6)
            for _ in 0..<(1 + trial % 4) {
                let i = trial % 5 == 0 ? Int.random(in: app1Length, using: &rng)
                                       : Int.random(in: range.lowerBound..<range.upperBound, using: &rng)
                bytes[i] ^= UInt8.random(in: 1...255, using: &rng)
            }
            if let found = Image.exifOrientation(jpegData: bytes) {
                #expect(ImageOrientation.allCases.contains(found))
            }
        }
        for _ in 0..<500 {
            let payload = (0..<Int.random(in: 0..<300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            for header: [UInt8] in [[0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A]] {
                _ = exifOrientationValue(tiff: (header + payload)[...])
                _ = Image.exifOrientation(jpegData: withAPP1(exifPayload(header + payload), base: base))
            }
        }
    }

    // MARK: - Damaged data

    @Test(arguments: ["photo_420", "photo_progressive", "exif_photo_1"])
    func truncatedJPEGsThrowNeverCrash(_ name: String) throws {
        let full = try Self.jpeg(name)
        let reference = try Image(jpegData: full)
        var failures = 0
        for length in 0..<full.count {
            let label = "\(name)[..<\(length)]"
            do {
                let image = try Image(jpegData: Array(full.prefix(length)), name: label)
                // Only a cut that leaves the whole image (e.g. just the EOI marker missing) may decode.
                #expect(image.pixels == reference.pixels, "\(label) decoded to different pixels")
            } catch let ImageError.jpegDecodingFailed(errorName, reason) {
                failures += 1
                #expect(errorName == label && !reason.isEmpty)
            } catch {
                Issue.record("\(label): unexpected error \(error)")
            }
        }
        #expect(failures >= full.count - 2, "\(name): only \(failures) of \(full.count) cuts failed")
        // A cut inside the entropy-coded data is libjpeg's "Premature end" warning, reported as an error.
        do {
            _ = try Image(jpegData: Array(full.prefix(full.count - 10)), name: "cut.jpg")
            Issue.record("cut file decoded")
        } catch let ImageError.jpegDecodingFailed(errorName, reason) {
            #expect(errorName == "cut.jpg" && reason.contains("Premature end of JPEG file"), "\(reason)")
            #expect("\(ImageError.jpegDecodingFailed(name: errorName, reason: reason))".contains("cut.jpg"))
        }
    }

    /// TJFLAG_STOPONWARNING: a file missing only its EOI marker is an error (Pillow would decode it with a
    /// warning); bytes after EOI are ignored, as every decoder does.
    @Test func missingEOIIsAnErrorTrailingBytesAreNot() throws {
        let full = try Self.jpeg("photo_420")
        let reference = try Image(jpegData: full)
        #expect(Array(full.suffix(2)) == [0xFF, 0xD9])
        do {
            _ = try Image(jpegData: Array(full.dropLast(2)), name: "no-eoi.jpg")
            Issue.record("a file without EOI decoded")
        } catch let ImageError.jpegDecodingFailed(name, reason) {
            #expect(name == "no-eoi.jpg" && reason.contains("Premature end of JPEG file") && reason.contains("warning"))
        }
        let withTrailer = try Image(jpegData: full + Array("trailing bytes".utf8) + [0, 0, 0])
        #expect(withTrailer == reference)
    }

    @Test(arguments: ["photo_420", "photo_progressive", "photo_cmyk_adobe"])
    func corruptedJPEGsNeverCrash(_ name: String) throws {
        let full = try Self.jpeg(name)
        let reference = try Image(jpegData: full)
        var rng = SplitMix64(seed: 42)
        var failures = 0
        for trial in 0..<300 {
            var bytes = full
            for _ in 0..<(1 + trial % 3) {
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[i] ^= UInt8.random(in: 1...255, using: &rng)
            }
            do {
                let image = try Image(jpegData: bytes, name: "flipped")
                #expect(image.width == reference.width && image.height == reference.height,
                        "trial \(trial): decoded as \(image.width)×\(image.height)")
                #expect(image.pixels.count == image.width * image.height * 3)
            } catch let error as ImageError {
                failures += 1
                switch error {
                case .jpegDecodingFailed(let n, _), .invalidSize(let n, _, _): #expect(n == "flipped")
                default: Issue.record("trial \(trial): unexpected error \(error)")
                }
            }
        }
        #expect(failures > 0)
    }

    @Test func hugeHeaderIsRefusedBeforeAllocating() throws {
        for name in ["photo_420", "photo_progressive"] {
            let bytes = try Self.jpeg(name)
            // SOF0 (baseline) or SOF2 (progressive): FF Cn, length, precision, height, width.
            let sof = try #require(findMarker(0xC0, in: bytes) ?? findMarker(0xC2, in: bytes))
            for (width, height) in [(65500, 65500), (16385, 1), (1, 16385), (16384, 8192), (0, 53)] {
                var patched = bytes
                patched.replaceSubrange((sof + 5)..<(sof + 9), with: be16(height) + be16(width))
                let start = ContinuousClock.now
                do {
                    _ = try Image(jpegData: patched, name: "huge.jpg")
                    Issue.record("\(name): \(width)×\(height) accepted")
                } catch let ImageError.invalidSize(errorName, w, h) {
                    #expect(errorName == "huge.jpg" && w == width && h == height)
                } catch let ImageError.jpegDecodingFailed(_, reason) {
                    // libjpeg itself refuses a zero width in the header ("Empty JPEG image (DNL not supported)").
                    #expect(width == 0, "\(width)×\(height): \(reason)")
                }
                #expect(ContinuousClock.now - start < .seconds(1), "\(width)×\(height) took too long")
            }
        }
    }

    // MARK: - Decoding by content

    @Test func unrecognizedDataSaysWhatItLooksLike() throws {
        func message(_ bytes: [UInt8]) -> String {
            do {
                _ = try Image(encodedData: bytes, name: "input.bin")
                return "decoded"
            } catch let ImageError.unrecognizedFormat(name, looksLike) {
                #expect(name == "input.bin")
                return "\(ImageError.unrecognizedFormat(name: name, looksLike: looksLike))"
            } catch {
                return "unexpected \(error)"
            }
        }
        #expect(message([]).contains("empty"))
        #expect(message(Array("name,x,y\n1,2,3\n".utf8)).contains("text"))
        #expect(message(Array("Grüße, “quoted” — text\twith tabs\r\n".utf8)).contains("text"))
        #expect(message(Array("GIF89a".utf8) + [1, 0, 1, 0]).contains("GIF"))
        #expect(message([0, 0, 0, 0x20] + Array("ftypisom".utf8) + [0, 0, 2, 0]).contains("MP4/MOV video (ftyp)"))
        #expect(message([0x1A, 0x45, 0xDF, 0xA3, 0x9F]).contains("Matroska/WebM"))
        #expect(message([0, 1, 2, 3, 0xFE, 0xED, 0xFA, 0xCE, 9, 9]).contains("unknown binary data (first bytes: 00 01 02 03 fe ed fa ce …)"))
        #expect(message([0xFF, 0xD8]).contains("first bytes: ff d8)"))
        #expect(message([0xFF, 0xD8]).contains("input.bin"))

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blazeimage-sniff-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (file, contents, expected) in [("empty.jpg", [], "empty"), ("notes.png", Array("just some notes\n".utf8), "text")]
            as [(String, [UInt8], String)] {
            let path = directory.appendingPathComponent(file).path
            try Data(contents).write(to: URL(fileURLWithPath: path))
            do {
                _ = try Image(contentsOfFile: path)
                Issue.record("\(file) decoded")
            } catch let error as ImageError {
                guard case .unrecognizedFormat(let name, _) = error else { Issue.record("\(error)"); continue }
                #expect(name == path && "\(error)".contains(expected) && "\(error)".contains(path))
            }
        }
        #expect(throws: ImageError.self) { try Image(contentsOfFile: directory.appendingPathComponent("missing.jpg").path) }
    }

    @Test func sniffingRecognizesMagicNumbers() {
        let riff: (String) -> [UInt8] = { Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array($0.utf8) }
        let ftyp: (String) -> [UInt8] = { [0, 0, 0, 0x18] + Array("ftyp".utf8) + Array($0.utf8) + [0, 0, 0, 0] }
        let cases: [([UInt8], SniffedFormat, String)] = [
            ([], .empty, "an empty file"),
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0], .image(.png), "a PNG image"),
            ([0xFF, 0xD8, 0xFF, 0xE0], .image(.jpeg), "a JPEG image"),
            (Array("GIF87a".utf8), .unsupportedImage("GIF"), "a GIF image"),
            (riff("WEBPVP8 "), .unsupportedImage("WebP"), "a WebP image"),
            (riff("AVI LIST"), .video(.avi), "an AVI video"),
            (Array("BM".utf8) + [0x36, 0x10, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0], .unsupportedImage("BMP"), "a BMP image"),
            ([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0], .unsupportedImage("TIFF"), "a TIFF image"),
            ([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8], .unsupportedImage("TIFF"), "a TIFF image"),
            (ftyp("heic"), .unsupportedImage("HEIC/HEIF"), "a HEIC/HEIF image"),
            (ftyp("mif1"), .unsupportedImage("HEIC/HEIF"), "a HEIC/HEIF image"),
            (ftyp("avif"), .unsupportedImage("AVIF"), "an AVIF image"),
            (ftyp("isom"), .video(.isoBaseMedia), "an MP4/MOV video (ftyp)"),
            (ftyp("qt  "), .video(.isoBaseMedia), "an MP4/MOV video (ftyp)"),
            ([0x1A, 0x45, 0xDF, 0xA3, 0x01], .video(.matroska), "a Matroska/WebM video"),
            (Array("BMW is a car brand\n".utf8), .text, "text"),              // "BM" without BMP's zero fields
            (Array("{\"a\": 1}".utf8), .text, "text"),
            ([0xEF, 0xBB, 0xBF] + Array("with BOM".utf8), .text, "text"),
            (Array("text\u{0}with NUL".utf8), .unknown(firstBytes: Array("text\u{0}wit".utf8)),
             "unknown binary data (first bytes: 74 65 78 74 00 77 69 74 …)"),
            ([0xC3, 0x28], .unknown(firstBytes: [0xC3, 0x28]), "unknown binary data (first bytes: c3 28)"),
        ]
        for (bytes, format, description) in cases {
            let sniffed = Image.sniffFormat(bytes)
            #expect(sniffed == format, "\(bytes.prefix(12))")
            #expect(sniffed.description == description)
            #expect(Image.sniffFormat(bytes[...]) == format)
            #expect(sniffed.imageFormat == (format == .image(.png) ? .png : format == .image(.jpeg) ? .jpeg : nil))
        }
        // Text cut in the middle of a multi-byte character at the sniffing limit is still text.
        let long = Array(String(repeating: "a", count: Image.sniffLength - 1).utf8) + Array("é and more".utf8)
        #expect(Image.sniffFormat(long) == .text)
        // ...but the same cut at the real end of the data is not valid UTF-8.
        #expect(Image.sniffFormat(Array(long.prefix(Image.sniffLength))) != .text)
    }

    @Test func oversizedFileIsRefusedWithoutReadingIt() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("blazeimage-big-\(getpid()).jpg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        // A sparse file: a JPEG start, then zeros up to one byte over the limit.
        try Data([0xFF, 0xD8, 0xFF, 0xE0]).write(to: URL(fileURLWithPath: path))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(Image.maxEncodedFileSize + 1))
        try handle.close()
        let start = ContinuousClock.now
        do {
            _ = try Image(contentsOfFile: path)
            Issue.record("oversized file decoded")
        } catch let ImageError.fileAccessFailed(errorPath, reason) {
            #expect(errorPath == path && reason.contains("\(Image.maxEncodedFileSize + 1) bytes")
                    && reason.contains("at most \(Image.maxEncodedFileSize) bytes"), "\(reason)")
        }
        #expect(ContinuousClock.now - start < .seconds(1))
    }
}

// MARK: - Builders for hostile data

private func be16(_ v: Int) -> [UInt8] { [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

private func u16(_ v: UInt16, _ bigEndian: Bool) -> [UInt8] {
    bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
}

private func u32(_ v: UInt32, _ bigEndian: Bool) -> [UInt8] {
    let b = [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    return bigEndian ? b : b.reversed()
}

/// One 12-byte IFD entry whose value field holds `short` (left-justified) or `long`.
private func exifEntry(_ tag: UInt16, type: UInt16, count: UInt32, short: UInt16 = 0, long: UInt32? = nil,
                       bigEndian: Bool) -> [UInt8] {
    let value = long.map { u32($0, bigEndian) } ?? (u16(short, bigEndian) + [0, 0])
    return u16(tag, bigEndian) + u16(type, bigEndian) + u32(count, bigEndian) + value
}

/// A TIFF structure: header pointing at IFD0 (`ifdOffset`, default 8), IFD0 with `entries` (count
/// `countOverride` if given), then the next-IFD pointer (omitted when `nil`).
private func tiff(bigEndian: Bool, ifdOffset: UInt32 = 8, entries: [[UInt8]], countOverride: UInt16? = nil,
                  nextIFD: UInt32? = 0) -> [UInt8] {
    let header = (bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]) + u32(ifdOffset, bigEndian)
    let count = countOverride ?? UInt16(entries.count)
    return header + u16(count, bigEndian) + entries.flatMap { $0 } + (nextIFD.map { u32($0, bigEndian) } ?? [])
}

private func exifPayload(_ tiff: [UInt8]) -> [UInt8] { Array("Exif".utf8) + [0, 0] + tiff }

/// `base` (a JPEG) with an APP1 segment holding `payload` inserted right after SOI.
private func withAPP1(_ payload: [UInt8], base: [UInt8]) -> [UInt8] {
    [0xFF, 0xD8, 0xFF, 0xE1] + be16(payload.count + 2) + payload + base.dropFirst(2)
}

/// Offset of the first `FF marker` of the segment sequence (walking segment lengths from SOI).
private func findMarker(_ marker: UInt8, in jpeg: [UInt8]) -> Int? {
    var p = 2
    while p + 4 <= jpeg.count, jpeg[p] == 0xFF {
        if jpeg[p + 1] == marker { return p }
        if jpeg[p + 1] == 0xDA { return nil }
        p += 2 + (Int(jpeg[p + 2]) << 8 | Int(jpeg[p + 3]))
    }
    return nil
}
