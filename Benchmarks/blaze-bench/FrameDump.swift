import ArgumentParser
import BlazeImage
import BlazeVideo
import Foundation

/// `blaze-bench frames CLIP --output FILE`: every frame `VideoFileReader` hands out, as packed RGB bytes one
/// after another, for comparing with other decoders (Tools/reference/compare_opencv_frames.py compares them
/// with OpenCV's). With `--frames yuv` the reader hands out planes where it can; those frames are converted
/// (`Image.pixels`), and a rotated crop of each is checked against the crop of its converted RGB.
struct FrameDump: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames",
        abstract: "Writes every decoded frame's RGB bytes to a file (for comparing with OpenCV's frames).")

    @Argument(help: "A video file.") var clip: String
    @Option(help: "The file the frames' bytes go to.") var output: String
    @Option(help: "rgb (converted by the reader) or yuv (planes where the reader hands them out, converted here).")
    var frames = "rgb"

    func validate() throws {
        guard ["yuv", "rgb"].contains(frames) else { throw ValidationError("--frames expected yuv or rgb, found \(frames)") }
    }

    func run() throws {
        var options = VideoFileReader.Options()
        options.convertsToRGB = frames == "rgb"
        options.skipNonIncreasingTimestamps = false
        let reader = try VideoFileReader(path: clip, options: options)
        guard FileManager.default.createFile(atPath: output, contents: nil), let file = FileHandle(forWritingAtPath: output) else {
            throw ValidationError("cannot write \(output)")
        }
        defer { try? file.close() }
        var count = 0, planeFrames = 0, cropMismatches = 0, width = 0, height = 0
        while let frame = try reader.nextFrame() {
            let pixels = frame.image.pixels
            (width, height) = (frame.image.width, frame.image.height)
            try file.write(contentsOf: Data(pixels))
            if frame.image.yuv420 != nil {
                planeFrames += 1
                let rgb = try Image(rgb: pixels, width: width, height: height)
                let (w, h) = (Float(width), Float(height))
                let t = PerspectiveTransform(sourceQuad: [SIMD2(-5, h + 3), SIMD2(w * 0.1, -7), SIMD2(w + 4, h * 0.05), SIMD2(w * 0.9, h + 6)],
                                             destinationQuad: [SIMD2(0, 256), SIMD2(0, 0), SIMD2(256, 0), SIMD2(256, 256)])
                for border in [BorderMode.zero, .replicate] {
                    var a = [UInt8](repeating: 0, count: 256 * 256 * 3), b = a
                    a.withUnsafeMutableBufferPointer { warpPerspectiveRGB(frame.image, transform: t, width: 256, height: 256, border: border, into: $0.baseAddress!) }
                    b.withUnsafeMutableBufferPointer { warpPerspectiveRGB(rgb, transform: t, width: 256, height: 256, border: border, into: $0.baseAddress!) }
                    if a != b { cropMismatches += 1 }
                }
            }
            reader.recycle(frame)
            count += 1
        }
        print("{\"frames\": \(count), \"width\": \(width), \"height\": \(height), \"planeFrames\": \(planeFrames), \"cropMismatches\": \(cropMismatches)}")
    }
}
