import BlazeImage
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
        let width: Int
        let height: Int
        let frames: Int
        var testDescription: String { clip }
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

    /// Clips whose frames OpenCV's FFmpeg 8 converts in a way the system libswscale (5.1) does not; see
    /// BlazeVideo's README. Their differences are recorded as known issues (a clip that starts to match
    /// passes too).
    static let knownDifferences: [String: (reason: String, largest: Int)] = [
        "hevc_250x142_bt2020.mp4": ("BT.2020: OpenCV's FFmpeg 8 also maps the BT.2020 gamut to BT.709", 255),
    ]

    /// Expects `pixels` to be OpenCV's `expected` frame; for the clips above, records the difference as a
    /// known issue and expects it within its bound.
    static func expectOpenCVs(_ pixels: [UInt8], _ expected: [UInt8], clip: Clip, what: String) {
        let same = pixels == expected
        guard let known = knownDifferences[clip.clip] else {
            #expect(same, "\(clip.clip) \(what): \(difference(pixels, expected, width: clip.width))")
            return
        }
        withKnownIssue(Comment(rawValue: known.reason), isIntermittent: true) {
            #expect(same, "\(clip.clip) \(what): \(difference(pixels, expected, width: clip.width))")
        }
        let largest = zip(pixels, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(pixels.count == expected.count && largest <= known.largest, "\(clip.clip) \(what): off by up to \(largest)")
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

    @Test(arguments: VideoFixtures.clips)
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
    @Test(arguments: VideoFixtures.clips.filter { ["yuv420p", "yuvj420p"].contains($0.pixelFormat) && $0.height % 2 == 0 })
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
