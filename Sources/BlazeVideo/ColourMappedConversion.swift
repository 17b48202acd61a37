import CFFmpeg

/// The colours of a frame that OpenCV's FFmpeg 8 maps before converting it to BGR24, and what to.
///
/// OpenCV 5.0 converts with `sws_scale_frame` into a BGR24 frame whose colour tags are all unset. libswscale 9
/// then infers the output's primaries and transfer from the input's (``ColourDescription/untaggedOutput``):
/// primaries close to BT.709 (BT.709, BT.470 M and BG, SMPTE 170M and 240M) are kept, any other (BT.2020,
/// P3, …) become BT.709; an SDR transfer is kept, an HDR one (PQ, HLG) becomes BT.709 over 0–203 cd/m². The
/// input's luminance range is its transfer's (0–10000 cd/m² for PQ, 0–1000 for HLG, 0–203 for SDR) unless the
/// frame's mastering-display metadata gives one, whose primaries also bound the content's gamut (PQ's black
/// stays 0). Where the two sides differ, the conversion is three passes instead of one: to 16-bit RGBA with the
/// frame's matrix, a 65³ colour table built by its colour management (``GamutMapTable``), then to BGR24
/// through its scaler. Frames with untagged primaries are not mapped.
struct ColourMapping: Equatable {
    let source: ColourDescription
    let destination: ColourDescription

    /// The mapping FFmpeg 8 applies to `frame` on its way to an untagged BGR24 frame, or nil when it applies
    /// none (or none this reader can reproduce: a transfer without a display curve, whose conversion FFmpeg
    /// refuses, is converted as if untagged).
    init?(_ frame: UnsafeMutablePointer<AVFrame>) {
        let transferTag = frame.pointee.color_trc
        // The common case, checked on every frame: BT.709-like primaries with an SDR transfer are never mapped.
        switch frame.pointee.color_primaries {
        case AVCOL_PRI_UNSPECIFIED: return nil
        case AVCOL_PRI_BT709, AVCOL_PRI_BT470M, AVCOL_PRI_BT470BG, AVCOL_PRI_SMPTE170M, AVCOL_PRI_SMPTE240M:
            if transferTag != AVCOL_TRC_SMPTE2084 && transferTag != AVCOL_TRC_ARIB_STD_B67 { return nil }
        default: break
        }
        guard let primaries = ColourPrimaries(rawValue: Int32(frame.pointee.color_primaries.rawValue)),
              let transfer = transferTag == AVCOL_TRC_UNSPECIFIED ? .bt709 : TransferCharacteristic(rawValue: Int32(transferTag.rawValue)),
              transfer.hasEOTF else { return nil }
        var source = ColourDescription(primaries: primaries, transfer: transfer)
        if let data = av_frame_get_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA),
           Int(data.pointee.size) >= MemoryLayout<AVMasteringDisplayMetadata>.size {
            let metadata = UnsafeRawPointer(data.pointee.data).load(as: AVMasteringDisplayMetadata.self)
            // Values no display has (negative, or a zero or negative denominator) are ignored, not computed with.
            func plausible(_ q: AVRational, atMostOne: Bool = false) -> Bool {
                q.den > 0 && q.num >= 0 && (!atMostOne || q.num <= q.den)
            }
            let p = metadata.display_primaries
            let corners = [p.0.0, p.0.1, p.1.0, p.1.1, p.2.0, p.2.1]
            if metadata.has_luminance != 0, plausible(metadata.min_luminance), plausible(metadata.max_luminance) {
                source.minLuminance = Fraction(metadata.min_luminance.num, metadata.min_luminance.den)
                source.maxLuminance = Fraction(metadata.max_luminance.num, metadata.max_luminance.den)
            }
            if metadata.has_primaries != 0, corners.allSatisfy({ plausible($0, atMostOne: true) }) {
                func point(_ xy: (AVRational, AVRational)) -> Chromaticity {
                    Chromaticity(x: Fraction(xy.0.num, xy.0.den), y: Fraction(xy.1.num, xy.1.den))
                }
                source.contentGamut = PrimaryChromaticities(red: point(p.0), green: point(p.1), blue: point(p.2))
            }
        }
        if transfer == .smpte2084 { source.minLuminance = Fraction(0) }
        let destination = source.untaggedOutput
        guard !GamutMapTable.isNoOp(source: source, destination: destination) else { return nil }
        self.source = source
        self.destination = destination
    }
}

/// Converts frames that need a ``ColourMapping`` the way FFmpeg 8 does, with the system libswscale for the
/// first and last passes (their legacy scaler arithmetic is the same) and ``GamutMapTable`` between them.
///
/// Two details of FFmpeg 8's graph matter for the bytes: the 16-bit RGBA intermediate keeps the frame's
/// description (its matrix, range and chroma siting), so the first pass is told the frame's chroma siting for
/// its output too, and the last pass converts that RGBA to its internal YUV with BT.601's matrix and back to
/// RGB with the frame's matrix and range (chroma halved horizontally on the way, as for any packed RGB output).
final class ColourMappedConverter {
    let width: Int
    let height: Int
    private let toWide: OpaquePointer
    private let toBGR: OpaquePointer
    private let table: GamutMapTable.Lazy
    /// The 16-bit RGBA frame between the passes, rows `wideRowElements` apart.
    private let wide: UnsafeMutablePointer<UInt16>
    private let wideRowElements: Int

    /// A converter for `width × height` frames of `format` with `colour` and `mapping`; nil when libswscale
    /// cannot make the passes or the table cannot be built for these tags.
    init?(width: Int, height: Int, format: AVPixelFormat, colour: FrameColour, mapping: ColourMapping) {
        guard let table = GamutMapTable.Lazy(source: mapping.source, destination: mapping.destination) else { return nil }
        let range: Int64 = colour.fullRange ? 1 : 0
        guard let toWide = FFmpegDecoder.scalingContext(
            width: width, height: height, from: format, to: AV_PIX_FMT_RGBA64LE,
            options: [("src_range", range), ("dst_range", range),
                      ("src_h_chr_pos", Int64(colour.chromaX)), ("src_v_chr_pos", Int64(colour.chromaY)),
                      ("dst_h_chr_pos", Int64(colour.chromaX)), ("dst_v_chr_pos", Int64(colour.chromaY))],
            inverse: colour.space, sourceRange: colour.fullRange, forward: colour.space, destinationRange: colour.fullRange)
        else { return nil }
        guard let toBGR = FFmpegDecoder.scalingContext(
            width: width, height: height, from: AV_PIX_FMT_RGBA64LE, to: AV_PIX_FMT_BGR24,
            options: [("src_range", range), ("dst_range", 1),
                      ("src_h_chr_pos", Int64(colour.chromaX)), ("src_v_chr_pos", Int64(colour.chromaY))],
            inverse: colour.space, sourceRange: colour.fullRange, forward: SWS_CS_ITU601, destinationRange: true)
        else {
            sws_freeContext(toWide)
            return nil
        }
        self.width = width
        self.height = height
        self.toWide = toWide
        self.toBGR = toBGR
        self.table = table
        // Rows of whole 64-byte lines, and spare rows: libswscale's vector code may run past a row's end.
        wideRowElements = (width * 4 + 31) / 32 * 32
        let count = wideRowElements * (height + 2)
        wide = UnsafeMutableRawPointer.allocate(byteCount: count * 2, alignment: 64).bindMemory(to: UInt16.self, capacity: count)
    }

    deinit {
        sws_freeContext(toWide)
        sws_freeContext(toBGR)
        wide.deallocate()
    }

    /// Converts `frame` into `staging` as BGR.
    func convert(_ frame: UnsafeMutablePointer<AVFrame>, into staging: RGBStaging) {
        var widePlanes: [UnsafeMutablePointer<UInt8>?] = [UnsafeMutableRawPointer(wide).assumingMemoryBound(to: UInt8.self), nil, nil, nil]
        var wideStrides: [Int32] = [Int32(wideRowElements * 2), 0, 0, 0]
        RGBStaging.withPlanes(of: frame) { source, strides in
            _ = sws_scale(toWide, UnsafeRawPointer(source).assumingMemoryBound(to: UnsafePointer<UInt8>?.self), strides, 0,
                          Int32(height), &widePlanes, &wideStrides)
        }
        for y in 0..<height { table.apply(toRGBA64: wide + y * wideRowElements, count: width) }
        var source: [UnsafePointer<UInt8>?] = [UnsafePointer(widePlanes[0]), nil, nil, nil]
        staging.convert(from: &source, strides: &wideStrides, with: toBGR, width: width, height: height, order: .bgr)
    }
}
