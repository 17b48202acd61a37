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
    @Option(help: "Accurate mode's parts to switch off, comma-separated: tiles, rotations, zoom-out, zoom-in, refine, flip, masked-retry.") var accurateOff = ""
    @Flag(help: "Print one JSON object per mode.") var json = false

    func run() throws {
        let photos = try PhotoTiming.photos(in: directory, every: every)
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
            print(try PhotoTiming.measure(photos: photos, mode: name, threads: threads, json: json, itemName: "poses") {
                try landmarker.detect(image: $0).landmarks.count
            })
        }
    }
}

/// `blaze-bench hand-photos`: the time of `HandLandmarker.detect(image:)` on real photos, default mode
/// against accurate mode.
struct HandPhotoBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hand-photos",
        abstract: "Times HandLandmarker.detect(image:) on each photo of a directory (decoding not counted) and prints the median.",
        discussion: """
            Each photo is decoded once, then detected once untimed (warm-up on the first photo only) and once timed. \
            --every K takes every K-th file in name order. With --accurate the accurate mode is timed too, beside the default.
            """)

    @Argument(help: "A directory of photos (JPEG or PNG).") var directory: String
    @Option(help: "Threads per inference (1...64).") var threads = 2
    @Option(help: "Take every K-th photo (name order).") var every = 1
    @Option(help: "The most hands per photo.") var numHands = 1
    @Flag(help: "Also time the accurate mode.") var accurate = false
    @Option(help: "Accurate mode's smallest hand size (pixels).") var minHandSize = HandAccurateMode().smallestHandSize
    @Option(help: "Accurate mode's parts to switch off, comma-separated: tiles, flip, refine.") var accurateOff = ""
    @Option(help: "Accurate mode's parts to switch on, comma-separated: refine.") var accurateOn = ""
    @Flag(help: "Print one JSON object per mode.") var json = false

    func run() throws {
        let photos = try PhotoTiming.photos(in: directory, every: every)
        var modes: [(String, HandAccurateMode?)] = [("default", nil)]
        if accurate {
            do {
                modes.append(("accurate", try HandAccurateMode(smallestHandSize: minHandSize, turningOn: accurateOn,
                                                               turningOff: accurateOff)))
            } catch {
                throw ValidationError("--accurate-on/--accurate-off: \(error)")
            }
        }
        for (name, mode) in modes {
            let options = HandLandmarkerOptions()
            options.baseOptions.threadCount = threads
            options.numHands = numHands
            options.accurateMode = mode
            let landmarker = try HandLandmarker(options: options)
            print(try PhotoTiming.measure(photos: photos, mode: name, threads: threads, json: json, itemName: "hands") {
                try landmarker.detect(image: $0).landmarks.count
            })
        }
    }
}

/// What `photos` and `hand-photos` share: reading the photos and timing one landmarker over them.
enum PhotoTiming {
    static func photos(in directory: String, every: Int) throws -> [Image] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
            .filter { ["jpg", "jpeg", "png"].contains(($0 as NSString).pathExtension.lowercased()) }
        let picked = stride(from: 0, to: names.count, by: max(1, every)).map { names[$0] }
        let photos = try picked.map { try Image(contentsOfFile: (directory as NSString).appendingPathComponent($0)) }
        guard !photos.isEmpty else { throw ValidationError("no photos in \(directory)") }
        return photos
    }

    /// One warm-up `detect` on the first photo, then each photo timed once; the summary line.
    static func measure(photos: [Image], mode: String, threads: Int, json: Bool, itemName: String,
                        detect: (Image) throws -> Int) rethrows -> String {
        _ = try detect(photos[0])
        var times: [Double] = []
        var found = 0
        for photo in photos {
            let t0 = DispatchTime.now().uptimeNanoseconds
            found += try detect(photo)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
        }
        times.sort()
        let median = times[times.count / 2], p90 = times[min(times.count - 1, times.count * 9 / 10)]
        return json
            ? #"{"mode":"\#(mode)","photos":\#(photos.count),"threads":\#(threads),"medianMs":\#(String(format: "%.2f", median)),"p90Ms":\#(String(format: "%.2f", p90)),"\#(itemName)":\#(found)}"#
            : "\(mode): \(photos.count) photos, threads=\(threads)  median \(String(format: "%.1f", median)) ms  p90 \(String(format: "%.1f", p90)) ms  \(itemName) \(found)"
    }
}
