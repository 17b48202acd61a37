import ArgumentParser
import BlazeImage
import BlazeKit
import Foundation

/// `blaze-bench photos`: the time of `detect(image:)` on real photos, default mode against accurate mode.
struct PhotoBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photos",
        abstract: "Times PoseLandmarker.detect(image:) on each photo of a directory (decoding not counted) and prints the median.",
        discussion: """
            Each photo is decoded once, then detected once untimed (warm-up on the first photo only) and once timed. \
            --every K takes every K-th file in name order. With --accurate the accurate mode is timed too, beside the default.
            """)

    @Argument(help: "A directory of photos (JPEG or PNG).") var directory: String
    @Option(help: "Threads per inference (1...64).") var threads = 2
    @Option(help: "Take every K-th photo (name order).") var every = 1
    @Option(help: "The most poses per photo.") var numPoses = 1
    @Flag(help: "Also time the accurate mode.") var accurate = false
    @Option(help: "Accurate mode's smallest person height (pixels).") var minPersonHeight = PoseAccurateMode().smallestPersonHeight
    @Option(help: "Accurate mode's parts to switch off, comma-separated: tiles, rotations, zoom-out, refine, flip, masked-retry.") var accurateOff = ""
    @Flag(help: "Print one JSON object per mode.") var json = false

    func run() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            .filter { ["jpg", "jpeg", "png"].contains(($0 as NSString).pathExtension.lowercased()) }
        let picked = stride(from: 0, to: names.count, by: max(1, every)).map { names[$0] }
        let photos = try picked.map { try Image(contentsOfFile: (directory as NSString).appendingPathComponent($0)) }
        guard !photos.isEmpty else { throw ValidationError("no photos in \(directory)") }
        var modes: [(String, PoseAccurateMode?)] = [("default", nil)]
        if accurate {
            do {
                modes.append(("accurate", try PoseAccurateMode(smallestPersonHeight: minPersonHeight, turningOff: accurateOff)))
            } catch {
                throw ValidationError("--accurate-off: \(error)")
            }
        }
        for (name, mode) in modes {
            let options = PoseLandmarkerOptions()
            options.baseOptions.threadCount = threads
            options.numPoses = numPoses
            options.accurateMode = mode
            let landmarker = try PoseLandmarker(options: options)
            _ = try landmarker.detect(image: photos[0])
            var times: [Double] = []
            var found = 0
            for photo in photos {
                let t0 = DispatchTime.now().uptimeNanoseconds
                found += try landmarker.detect(image: photo).landmarks.count
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            }
            times.sort()
            let median = times[times.count / 2], p90 = times[min(times.count - 1, times.count * 9 / 10)]
            let line = json
                ? #"{"mode":"\#(name)","photos":\#(photos.count),"threads":\#(threads),"medianMs":\#(String(format: "%.2f", median)),"p90Ms":\#(String(format: "%.2f", p90)),"poses":\#(found)}"#
                : "\(name): \(photos.count) photos, threads=\(threads)  median \(String(format: "%.1f", median)) ms  p90 \(String(format: "%.1f", p90)) ms  poses \(found)"
            print(line)
        }
    }
}
