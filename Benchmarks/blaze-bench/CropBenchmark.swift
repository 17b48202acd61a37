import ArgumentParser
import BlazeKernels
import BlazeImage
import BlazeKit
import BlazeStages
import Foundation

/// `blaze-bench crop`: times the ROI crop alone (bilinear warp + conversion to the model's floats),
/// the step every landmark stage runs before its network.
struct CropBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crop",
        abstract: "Times the rotated-ROI crop of the landmark stages (warp to 256×256 and 224×224 floats).")

    @Option(help: "A PNG to crop from.") var image = "Benchmarks/photos/mpii_052475643.png"
    @Option(help: "Timed runs.") var runs = 200
    @Flag(help: "Print the transform's perspective terms once.") var verbose = false
    @Option(help: "Threads (row bands) for the crop.") var threads = 1
    @Flag(help: "Also time the 8-bit warp alone (one thread), vector and scalar reference, on each border mode.")
    var warpOnly = false
    @Flag(help: "Crop from YUV 4:2:0 planes made from the PNG (BT.601 limited range), as video frames are, instead of RGB.")
    var yuv = false
    @Option(help: "Cycle through this many copies of the source, so that each crop reads memory that is not in cache (as a freshly decoded video frame).")
    var copies = 1

    func run() throws {
        let png = try Image(contentsOfPNGFile: image)
        let sources = try (0..<max(1, copies)).map { k in try yuv ? Image(yuv420: Self.planes(of: png, shift: k)) : Self.shifted(png, by: k) }
        let photo = sources[0]
        // A rotated ROI partly outside the image (replicate border), as tracking produces.
        let roi = NormalizedRect(xCenter: 0.55, yCenter: 0.5, width: 0.9, height: 0.9 * Float(photo.width) / Float(photo.height),
                                 rotation: 0.3)
        let pool = WorkerPool(threadCount: threads)
        for size in [256, 224] {
            let geometry = try ImageToTensorGeometry(rect: roi, imageWidth: photo.width, imageHeight: photo.height,
                                                     tensorWidth: size, tensorHeight: size, keepAspectRatio: false)
            if verbose {
                let m = PerspectiveTransform(sourceQuad: geometry.sourceCorners, destinationQuad: geometry.tensorCorners).inverted().elements
                print("inverse transform:", m)
            }
            var crop = [UInt8](repeating: 0, count: size * size * 3)
            var tensor = [Float](repeating: 0, count: size * size * 3)
            var times: [Double] = []
            for r in 0..<(runs + 10) {
                let t0 = DispatchTime.now().uptimeNanoseconds
                tensor.withUnsafeMutableBufferPointer {
                    CropSampler.sample(sources[r % sources.count], geometry: geometry, border: .replicate, into: &crop, tensor: $0, valueRange: (0, 1),
                                       bands: threads) { pool.parallelFor($0, $1) }
                }
                if r >= 10 { times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6) }
            }
            times.sort()
            print("crop \(size)×\(size): median \(fmt(times[times.count / 2])) ms  min \(fmt(times[0])) ms")
            if warpOnly {
                let transform = PerspectiveTransform(sourceQuad: geometry.sourceCorners, destinationQuad: geometry.tensorCorners)
                for border in [BorderMode.replicate, .zero] {
                    for (name, warp) in [("vector", warpPerspectiveRGB), ("reference", warpPerspectiveRGBReference)] {
                        var warpTimes: [Double] = []
                        crop.withUnsafeMutableBufferPointer { out in
                            for r in 0..<(runs + 10) {
                                let t0 = DispatchTime.now().uptimeNanoseconds
                                warp(sources[r % sources.count], transform, size, size, border, out.baseAddress!, nil)
                                if r >= 10 { warpTimes.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6) }
                            }
                        }
                        warpTimes.sort()
                        print("  warp \(size)×\(size) \(border) \(name): median \(fmt(warpTimes[warpTimes.count / 2])) ms  min \(fmt(warpTimes[0])) ms")
                    }
                }
            }
        }
    }

    /// The image with every byte shifted by `k` (distinct memory with the same content statistics).
    static func shifted(_ image: Image, by k: Int) throws -> Image {
        k == 0 ? image : try Image(rgb: image.pixels.map { $0 &+ UInt8(truncatingIfNeeded: k) }, width: image.width, height: image.height)
    }

    /// BT.601 limited-range YUV 4:2:0 planes of an RGB image (chroma of each 2×2 block's top-left pixel),
    /// luma shifted by `shift` to make copies distinct.
    static func planes(of image: Image, shift: Int) throws -> YUV420Planes {
        let w = image.width, h = image.height, cw = (w + 1) / 2, ch = (h + 1) / 2
        let p = image.pixels
        func yuv(_ i: Int) -> (Double, Double, Double) {
            let r = Double(p[3 * i]), g = Double(p[3 * i + 1]), b = Double(p[3 * i + 2])
            return (16 + 0.257 * r + 0.504 * g + 0.098 * b, 128 - 0.148 * r - 0.291 * g + 0.439 * b, 128 + 0.439 * r - 0.368 * g - 0.071 * b)
        }
        let y = (0..<(w * h)).map { UInt8(min(235, max(16, yuv($0).0.rounded() + Double(shift % 8)))) }
        let u = (0..<(cw * ch)).map { UInt8(yuv((2 * ($0 / cw)) * w + 2 * ($0 % cw)).1.rounded()) }
        let v = (0..<(cw * ch)).map { UInt8(yuv((2 * ($0 / cw)) * w + 2 * ($0 % cw)).2.rounded()) }
        return try YUV420Planes(width: w, height: h, y: y, u: u, v: v)
    }

}
