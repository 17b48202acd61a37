import BlazeImage
import CFFmpeg
@testable import BlazeVideo
import Foundation
import Testing

/// The clips in `Fixtures/` and the frames OpenCV's `cv2.VideoCapture` decodes from them, written by
/// `Tools/fixtures/make_video_fixtures.py` (each clip's frames stacked top to bottom in one RGB PNG).
enum VideoFixtures {
    struct Clip: Decodable, CustomTestStringConvertible, Sendable {
        let clip: String
        let expected: String
        let codec: String
        let pixelFormat: String
        let colorSpace: String
        let colorRange: String
        let colorPrimaries: String
        let colorTransfer: String
        let width: Int
        let height: Int
        let frames: Int
        var testDescription: String { clip }
        /// Whether OpenCV's FFmpeg maps the clip's colours to BT.709 (``ColourMapping``): primaries other than
        /// BT.709's and its near relatives, or an HDR transfer.
        var mapsColours: Bool {
            !["unknown", "bt709", "bt470m", "bt470bg", "smpte170m", "smpte240m"].contains(colorPrimaries)
                || ["smpte2084", "arib-std-b67"].contains(colorTransfer)
        }
    }
    struct Manifest: Decodable { let opencv: String; let clips: [Clip] }

    static let directory: URL = {
        guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            fatalError("BlazeVideoTests: Fixtures resource directory missing")
        }
        return url
    }()

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static let clips: [Clip] = {
        do {
            return try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: directory.appendingPathComponent("manifest.json"))).clips
        } catch {
            fatalError("BlazeVideoTests: cannot read Fixtures/manifest.json: \(error)")
        }
    }()

    /// OpenCV's frames of `clip`, as RGB byte arrays.
    static func expectedFrames(_ clip: Clip) throws -> [[UInt8]] {
        let stacked = try Image(contentsOfPNGFile: path(clip.expected))
        #expect(stacked.width == clip.width && stacked.height == clip.height * clip.frames)
        let frameBytes = clip.width * clip.height * 3
        let pixels = stacked.pixels
        return (0..<clip.frames).map { Array(pixels[($0 * frameBytes)..<(($0 + 1) * frameBytes)]) }
    }

    /// Expects `pixels` to be OpenCV's `expected` frame.
    static func expectOpenCVs(_ pixels: [UInt8], _ expected: [UInt8], clip: Clip, what: String) {
        #expect(pixels == expected, "\(clip.clip) \(what): \(difference(pixels, expected, width: clip.width))")
    }

    /// Where two frames differ: how many channel values, and the first differing pixel.
    static func difference(_ a: [UInt8], _ b: [UInt8], width: Int) -> String {
        guard a.count == b.count else { return "\(a.count) bytes vs \(b.count)" }
        let differing = zip(a, b).filter { $0 != $1 }.count
        guard let first = a.indices.first(where: { a[$0] != b[$0] }) else { return "identical" }
        let pixel = first / 3, largest = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
        return "\(differing) values differ (by up to \(largest)), first at (\(pixel % width), \(pixel / width)): \(a[first]) vs \(b[first])"
    }
}

/// Every frame the reader hands out is the frame OpenCV's `VideoCapture` gives for the same file, byte for
/// byte: as RGB, and as YUV planes (converted, and cropped).
@Suite struct OpenCVFrameTests {
    @Test(arguments: VideoFixtures.clips)
    func rgbFramesAreOpenCVs(_ clip: VideoFixtures.Clip) throws {
        let expected = try VideoFixtures.expectedFrames(clip)
        let read = readAll(VideoFixtures.path(clip.clip))
        #expect(read.error == nil)
        #expect(read.frames.count == clip.frames)
        for (frame, bytes) in zip(read.frames, expected) {
            #expect(frame.image.width == clip.width && frame.image.height == clip.height)
            #expect(frame.image.yuv420 == nil)
            VideoFixtures.expectOpenCVs(frame.image.pixels, bytes, clip: clip, what: "frame \(frame.index)")
        }
    }

    /// (Clips whose colours are mapped come as RGB in both modes, the same conversion as above, whose colour
    /// table takes seconds to build in a debug build: left to `rgbFramesAreOpenCVs`.)
    @Test(arguments: VideoFixtures.clips.filter { !$0.mapsColours })
    func planeFramesAreOpenCVs(_ clip: VideoFixtures.Clip) throws {
        let expected = try VideoFixtures.expectedFrames(clip)
        var options = VideoFileReader.Options()
        options.convertsToRGB = false
        let read = readAll(VideoFixtures.path(clip.clip), options: options)
        #expect(read.error == nil)
        #expect(read.frames.count == clip.frames)
        // Planes for upright 8-bit 4:2:0 frames that libswscale converts unscaled (even height).
        let planar = ["yuv420p", "yuvj420p"].contains(clip.pixelFormat) && clip.height % 2 == 0 && !clip.clip.contains("rotated")
        for (frame, bytes) in zip(read.frames, expected) {
            #expect((frame.image.yuv420 != nil) == planar, "\(clip.clip) frame \(frame.index): planes \(frame.image.yuv420 != nil)")
            VideoFixtures.expectOpenCVs(frame.image.pixels, bytes, clip: clip, what: "frame \(frame.index)")
        }
    }

    /// A crop of a frame's planes (rotated, partly outside, both borders) is the crop of OpenCV's RGB frame.
    @Test(arguments: VideoFixtures.clips.filter { ["yuv420p", "yuvj420p"].contains($0.pixelFormat) && $0.height % 2 == 0 && !$0.mapsColours })
    func cropsOfPlanesAreCropsOfOpenCVFrames(_ clip: VideoFixtures.Clip) throws {
        let expected = try VideoFixtures.expectedFrames(clip)
        var options = VideoFileReader.Options()
        options.convertsToRGB = false
        let read = readAll(VideoFixtures.path(clip.clip), options: options)
        let (w, h) = (Float(clip.width), Float(clip.height))
        let t = PerspectiveTransform(sourceQuad: [SIMD2(-5, h + 3), SIMD2(w * 0.1, -7), SIMD2(w + 4, h * 0.05), SIMD2(w * 0.9, h + 6)],
                                     destinationQuad: [SIMD2(0, 64), SIMD2(0, 0), SIMD2(64, 0), SIMD2(64, 64)])
        for (frame, bytes) in zip(read.frames, expected) {
            let opencv = try Image(rgb: bytes, width: clip.width, height: clip.height)
            for border in [BorderMode.zero, .replicate] {
                var fromPlanes = [UInt8](repeating: 0, count: 64 * 64 * 3), fromOpenCV = fromPlanes
                fromPlanes.withUnsafeMutableBufferPointer {
                    warpPerspectiveRGB(frame.image, transform: t, width: 64, height: 64, border: border, into: $0.baseAddress!)
                }
                fromOpenCV.withUnsafeMutableBufferPointer {
                    warpPerspectiveRGB(opencv, transform: t, width: 64, height: 64, border: border, into: $0.baseAddress!)
                }
                VideoFixtures.expectOpenCVs(fromPlanes, fromOpenCV, clip: clip, what: "frame \(frame.index) crop \(border)")
            }
        }
    }
}

/// Which frames FFmpeg 8 maps to BT.709 on their way to OpenCV's untagged BGR24 frame, and to what.
@Suite struct ColourMappingTests {
    /// A frame with these tags (the mapping reads nothing else).
    func mapping(primaries: AVColorPrimaries, transfer: AVColorTransferCharacteristic,
                 mastering: ((Int32, Int32), (Int32, Int32))? = nil) -> ColourMapping? {
        let frame = av_frame_alloc()!
        defer { var f: UnsafeMutablePointer<AVFrame>? = frame; av_frame_free(&f) }
        frame.pointee.color_primaries = primaries
        frame.pointee.color_trc = transfer
        if let mastering, let metadata = av_mastering_display_metadata_create_side_data(frame) {
            metadata.pointee.min_luminance = AVRational(num: mastering.0.0, den: mastering.0.1)
            metadata.pointee.max_luminance = AVRational(num: mastering.1.0, den: mastering.1.1)
            metadata.pointee.has_luminance = 1
        }
        return ColourMapping(frame)
    }

    @Test func primariesNearBT709AndSDRTransfersAreNotMapped() {
        for primaries in [AVCOL_PRI_UNSPECIFIED, AVCOL_PRI_BT709, AVCOL_PRI_BT470M, AVCOL_PRI_BT470BG, AVCOL_PRI_SMPTE170M,
                          AVCOL_PRI_SMPTE240M] {
            for transfer in [AVCOL_TRC_UNSPECIFIED, AVCOL_TRC_BT709, AVCOL_TRC_SMPTE170M, AVCOL_TRC_IEC61966_2_1] {
                #expect(mapping(primaries: primaries, transfer: transfer) == nil, "\(primaries) \(transfer)")
            }
        }
        // Untagged primaries are never mapped, whatever the transfer.
        #expect(mapping(primaries: AVCOL_PRI_UNSPECIFIED, transfer: AVCOL_TRC_SMPTE2084) == nil)
    }

    @Test func wideGamutsBecomeBT709AndHDRBecomesSDR() throws {
        let sdr = try #require(mapping(primaries: AVCOL_PRI_BT2020, transfer: AVCOL_TRC_BT709))
        #expect(sdr.destination.primaries == .bt709 && sdr.destination.transfer == .bt709)
        let p3 = try #require(mapping(primaries: AVCOL_PRI_SMPTE432, transfer: AVCOL_TRC_IEC61966_2_1))
        #expect(p3.destination.primaries == .bt709 && p3.destination.transfer == .iec61966_2_1)
        let hlg = try #require(mapping(primaries: AVCOL_PRI_BT2020, transfer: AVCOL_TRC_ARIB_STD_B67))
        #expect(hlg.source.maxLuminance == Fraction(1000) && hlg.destination.transfer == .bt709
                && hlg.destination.maxLuminance == Fraction(203))
        // HDR on BT.709 primaries is mapped too (its transfer changes).
        let pq = try #require(mapping(primaries: AVCOL_PRI_BT709, transfer: AVCOL_TRC_SMPTE2084))
        #expect(pq.source.maxLuminance == Fraction(10000) && pq.destination.primaries == .bt709)
        // Mastering metadata sets the range; PQ's black stays 0.
        let mastered = try #require(mapping(primaries: AVCOL_PRI_BT2020, transfer: AVCOL_TRC_SMPTE2084, mastering: ((1, 200), (1000, 1))))
        #expect(mastered.source.maxLuminance == Fraction(1000) && mastered.source.minLuminance == Fraction(0))
        let hlgMastered = try #require(mapping(primaries: AVCOL_PRI_BT2020, transfer: AVCOL_TRC_ARIB_STD_B67, mastering: ((1, 200), (600, 1))))
        #expect(hlgMastered.source.minLuminance == Fraction(1, 200) && hlgMastered.source.maxLuminance == Fraction(600))
    }

    /// A table for a gamut change alone keeps greys (within float rounding), and the tetrahedral lookup of a
    /// pixel on a node (channels multiples of 1024) is that node's entry.
    @Test func tableLookupOnNodesIsTheNodeAndGreyStaysGrey() throws {
        let source = ColourDescription(primaries: .bt2020, transfer: .bt709)
        let table = try #require(GamutMapTable.make(source: source, destination: source.untaggedOutput, threads: 2))
        #expect(table.count == GamutMapTable.count)
        for (r, g, b) in [(0, 0, 0), (63, 0, 0), (13, 40, 63), (63, 63, 63), (32, 7, 50)] {
            var pixel: [UInt16] = [UInt16(r * 1024), UInt16(g * 1024), UInt16(b * 1024), 65535]
            table.withUnsafeBufferPointer { GamutMapTable.apply($0.baseAddress!, toRGBA64: &pixel, count: 1) }
            let node = GamutMapTable.index(r: r, g: g, b: b, channel: 0)
            #expect(Array(pixel[0..<3]) == Array(table[node..<(node + 3)]) && pixel[3] == 65535, "node (\(r), \(g), \(b))")
        }
        for level in stride(from: 0, through: 64, by: 8) {
            let node = GamutMapTable.index(r: level, g: level, b: level, channel: 0)
            // The same transfer on both sides: the level itself (entries scaled by 65534), up to the float
            // rounding of the colour matrices (a few parts in 65534).
            let expected = level * 65534 / 64
            let channels = (0..<3).map { Int(table[node + $0]) }
            #expect(channels.allSatisfy { abs($0 - expected) <= 8 }, "grey \(level): \(channels), expected \(expected)")
        }
    }

    /// The table computed node by node as pixels need them maps every pixel as the whole table does: random
    /// pixels, the cube's corners and edges (entries 63 and 64), HLG's tone range.
    @Test func nodesComputedOnDemandMapAsTheWholeTable() throws {
        let source = ColourDescription(primaries: .bt2020, transfer: .aribStdB67)
        let table = try #require(GamutMapTable.make(source: source, destination: source.untaggedOutput, threads: 2))
        let lazy = try #require(GamutMapTable.Lazy(source: source, destination: source.untaggedOutput))
        var generator = SystemRandomNumberGenerator()
        var pixels: [UInt16] = []
        for _ in 0..<3000 {
            pixels += [UInt16.random(in: 0...65535, using: &generator), UInt16.random(in: 0...65535, using: &generator),
                       UInt16.random(in: 0...65535, using: &generator), 65535]
        }
        for r: UInt16 in [0, 1023, 1024, 64511, 64512, 65535] {
            for g: UInt16 in [0, 32768, 65535] { pixels += [r, g, 65535 - r, 65535] }
        }
        var expected = pixels
        table.withUnsafeBufferPointer { GamutMapTable.apply($0.baseAddress!, toRGBA64: &expected, count: expected.count / 4) }
        lazy.apply(toRGBA64: &pixels, count: pixels.count / 4)
        #expect(pixels == expected)
        #expect(lazy.nodesComputed > 0 && lazy.nodesComputed < GamutMapTable.count / 3)
    }
}
