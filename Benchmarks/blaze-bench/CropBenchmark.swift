import ArgumentParser
import BlazeKernels
import BlazeKit
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

    func run() throws {
        let photo = try Image(contentsOfPNGFile: image)
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
                    CropSampler.sample(photo, geometry: geometry, border: .replicate, into: &crop, tensor: $0, valueRange: (0, 1),
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
                                warp(photo, transform, size, size, border, out.baseAddress!, nil)
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
}
