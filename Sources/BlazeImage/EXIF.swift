// The EXIF Orientation tag of a JPEG file, read by a small parser of our own: walk the JPEG marker
// segments up to the first scan, take the first APP1 segment that starts with "Exif\0\0", read its TIFF
// header (II or MM byte order), and look for tag 0x0112 (Orientation) among IFD0's entries. Nothing else
// of EXIF is read, no IFD pointer is followed (so there is nothing to loop on), and every read is bounds-
// checked against the segment: hostile data yields "no orientation", never a trap.

extension ImageOrientation {
    /// The orientation for an EXIF/TIFF Orientation tag value, mapped as UIKit maps it to
    /// `UIImage.Orientation`: 1 up, 2 upMirrored, 3 down, 4 downMirrored, 5 leftMirrored, 6 right,
    /// 7 rightMirrored, 8 left. `nil` for any other value.
    ///
    /// With ``Image/oriented()``, each value displays as the EXIF specification describes: 6 is rotated
    /// 90° clockwise, 8 is rotated 90° counter-clockwise, 3 by 180°, 2 flipped left–right, 4 flipped
    /// top–bottom, 5 transposed and 7 transversed.
    public init?(exifValue: Int) {
        switch exifValue {
        case 1: self = .up
        case 2: self = .upMirrored
        case 3: self = .down
        case 4: self = .downMirrored
        case 5: self = .leftMirrored
        case 6: self = .right
        case 7: self = .rightMirrored
        case 8: self = .left
        default: return nil
        }
    }

    /// The EXIF/TIFF Orientation tag value (1…8) of this orientation (the inverse of ``init(exifValue:)``).
    public var exifValue: Int {
        switch self {
        case .up: return 1
        case .upMirrored: return 2
        case .down: return 3
        case .downMirrored: return 4
        case .leftMirrored: return 5
        case .right: return 6
        case .rightMirrored: return 7
        case .left: return 8
        }
    }
}

extension Image {
    /// The orientation recorded in a JPEG file's EXIF metadata (tag 0x0112 in IFD0 of the first
    /// `APP1 "Exif"` segment before the image data), mapped by ``ImageOrientation/init(exifValue:)``.
    ///
    /// Returns `nil` when the data is not a JPEG, has no EXIF segment or no Orientation tag, or when the
    /// EXIF data is malformed (offsets outside the segment, an IFD whose entries do not fit, a tag that is
    /// not a single SHORT or LONG, a value outside 1…8). ``init(jpegData:name:)`` treats `nil` as `.up`,
    /// as viewers do. Only the bytes before the first scan are examined.
    public static func exifOrientation(jpegData: [UInt8]) -> ImageOrientation? {
        guard let tiff = exifTIFFRange(inJPEG: jpegData),
              let value = exifOrientationValue(tiff: jpegData[tiff]) else { return nil }
        return ImageOrientation(exifValue: value)
    }
}

/// The `"Exif\0\0"` identifier that starts an EXIF APP1 segment's payload.
let exifSegmentIdentifier: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]

/// The byte range of the TIFF structure inside the first EXIF APP1 segment of a JPEG stream, or `nil`.
///
/// Walks the marker segments from SOI, skipping fill bytes and standalone markers, and stops at SOS or
/// EOI, at anything that is not a marker, and at a segment whose length runs past the end of the data.
/// Every step advances, so the walk ends after at most `jpeg.count` steps.
func exifTIFFRange(inJPEG jpeg: [UInt8]) -> Range<Int>? {
    guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
    var position = 2
    while position < jpeg.count {
        guard jpeg[position] == 0xFF else { return nil }       // not at a marker: give up
        var markerAt = position + 1
        while markerAt < jpeg.count, jpeg[markerAt] == 0xFF { markerAt += 1 }   // fill bytes
        guard markerAt < jpeg.count else { return nil }
        let marker = jpeg[markerAt]
        switch marker {
        case 0xDA, 0xD9, 0xD8, 0x00:
            return nil                                          // SOS, EOI, a second SOI, a stuffed zero
        case 0xD0...0xD7, 0x01:
            position = markerAt + 1                             // RSTn and TEM carry no length
            continue
        default:
            break
        }
        guard markerAt + 2 < jpeg.count else { return nil }
        let length = Int(jpeg[markerAt + 1]) << 8 | Int(jpeg[markerAt + 2])   // includes its own 2 bytes
        guard length >= 2 else { return nil }
        let payloadStart = markerAt + 3, end = markerAt + 1 + length
        guard end <= jpeg.count else { return nil }
        if marker == 0xE1, end - payloadStart >= exifSegmentIdentifier.count,
           jpeg[payloadStart..<(payloadStart + exifSegmentIdentifier.count)].elementsEqual(exifSegmentIdentifier) {
            return (payloadStart + exifSegmentIdentifier.count)..<end
        }
        position = end
    }
    return nil
}

/// The raw value of the Orientation tag (0x0112) in IFD0 of a TIFF structure (EXIF's payload), or `nil`
/// if the structure is malformed or has no such tag. Offsets are relative to the TIFF header's first byte.
func exifOrientationValue(tiff: ArraySlice<UInt8>) -> Int? {
    guard let reader = TIFFReader(tiff) else { return nil }
    // IFD0 must lie after the 8-byte header, with all its entries inside the segment.
    guard let ifd = reader.uint32(at: 4), ifd >= 8, ifd <= reader.count,
          let entryCount = reader.uint16(at: ifd) else { return nil }
    let entriesStart = ifd + 2
    guard entriesStart + 12 * entryCount <= reader.count else { return nil }
    for index in 0..<entryCount {
        let entry = entriesStart + 12 * index
        guard reader.uint16(at: entry) == 0x0112 else { continue }
        // Orientation is one SHORT (type 3), stored in the first bytes of the 4-byte value field; a LONG
        // (type 4) is accepted too. Anything else is malformed.
        guard let type = reader.uint16(at: entry + 2), reader.uint32(at: entry + 4) == 1 else { return nil }
        switch type {
        case 3: return reader.uint16(at: entry + 8)
        case 4: return reader.uint32(at: entry + 8)
        default: return nil
        }
    }
    return nil
}

/// Bounds-checked reads of TIFF integers in the structure's byte order.
private struct TIFFReader {
    let bytes: ArraySlice<UInt8>
    let bigEndian: Bool
    var count: Int { bytes.count }

    /// `nil` unless the data starts with a TIFF header: "II" + 42 (little-endian) or "MM" + 42 (big-endian).
    init?(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count >= 8 else { return nil }
        let first = bytes[bytes.startIndex], second = bytes[bytes.startIndex + 1]
        switch (first, second) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        self.bytes = bytes
        guard uint16(at: 2) == 42 else { return nil }
    }

    /// The 16-bit value at `offset` (relative to the header), or `nil` if it is not entirely inside.
    func uint16(at offset: Int) -> Int? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        let a = Int(bytes[bytes.startIndex + offset]), b = Int(bytes[bytes.startIndex + offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    /// The 32-bit value at `offset` (relative to the header), or `nil` if it is not entirely inside.
    func uint32(at offset: Int) -> Int? {
        guard let first = uint16(at: offset), let second = uint16(at: offset + 2) else { return nil }
        return bigEndian ? first << 16 | second : second << 16 | first
    }
}
