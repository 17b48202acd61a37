import BlazeImage
import BlazeVideo
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The `blaze` executable built next to this test bundle.
let blazeExecutable: URL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    .deletingLastPathComponent().appendingPathComponent("blaze")

/// Photos in the repository (Tests/BlazeKitTests/Fixtures), read by path.
let fixturePhotos = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("BlazeKitTests/Fixtures")

struct RunResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var lines: [String] { String(decoding: stdout, as: UTF8.self).split(separator: "\n").map(String.init) }
}

/// Runs `blaze` with `arguments` to completion.
func blaze(_ arguments: [String], environment: [String: String] = [:]) throws -> RunResult {
    let process = try startBlaze(arguments, environment: environment)
    let out = process.standardOutput as! Pipe, err = process.standardError as! Pipe
    // Read both pipes to the end before waiting, so a full pipe cannot block the child.
    final class Box: @unchecked Sendable { var data = Data() }   // written by one thread, read after wait()
    let errors = Box()
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) { errors.data = err.fileHandleForReading.readDataToEndOfFile() }
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return RunResult(status: process.terminationStatus, stdout: stdout, stderr: String(decoding: errors.data, as: UTF8.self))
}

func startBlaze(_ arguments: [String], environment: [String: String] = [:]) throws -> Process {
    let process = Process()
    process.executableURL = blazeExecutable
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    for key in ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "AWS_BATCH_JOB_ARRAY_INDEX"] { env[key] = nil }
    env.merge(environment) { $1 }
    process.environment = env
    process.standardOutput = Pipe()
    process.standardError = Pipe()
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return process
}

func makeTemporaryDirectory(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("blaze-cli-\(name)-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A short clip of a real photo (a virtual camera panning over it), written with BlazeVideo.
func writePanClip(to path: String, photo: String = "pose/mpii_052475643.png", frames: Int = 8, width: Int = 192, height: Int = 144,
                  stepMs: Int = 40) throws {
    let source = try Image(contentsOfPNGFile: fixturePhotos.appendingPathComponent(photo).path)
    let sequence = PanZoomSequence(source: source, width: width, height: height, frameCount: frames,
                                   startCenter: SIMD2(0.45, 0.5), endCenter: SIMD2(0.55, 0.5), startZoom: 1, endZoom: 1.1)
    let writer = try VideoFileWriter(path: path, width: width, height: height, frameRate: 1000 / Double(stepMs))
    for i in 0..<frames { try writer.write(try sequence.frame(i), timestampMs: i * stepMs) }
    try writer.finish()
}

/// File name → contents of every regular file in `directory` (hidden ones included).
func contents(of directory: URL) throws -> [String: Data] {
    var out: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
        out[name] = try Data(contentsOf: directory.appendingPathComponent(name))
    }
    return out
}

@Suite(.serialized) struct BatchTests {
    /// A folder with photos and a video.
    func makeInputs() throws -> URL {
        let inputs = try makeTemporaryDirectory("inputs")
        for name in ["pose/mpii_052475643.png", "pose/coco_000000040083.png", "pose/freihand_00050180.png",
                     "hand/onehand10k_33.png", "hand/freihand_00000355.png"] {
            let url = fixturePhotos.appendingPathComponent(name)
            try FileManager.default.copyItem(at: url, to: inputs.appendingPathComponent(url.lastPathComponent))
        }
        try writePanClip(to: inputs.appendingPathComponent("pan.mp4").path)
        return inputs
    }

    @Test func threeShardsAsSeparateProcessesEqualOneRun() throws {
        let inputs = try makeInputs()
        let whole = try makeTemporaryDirectory("whole"), sharded = try makeTemporaryDirectory("sharded")
        defer { for d in [inputs, whole, sharded] { try? FileManager.default.removeItem(at: d) } }

        let one = try blaze(["pose", "--quiet", "--output-dir", whole.path, inputs.path])
        #expect(one.status == 0, "\(one.stderr)")
        let processes = try (0..<3).map { try startBlaze(["pose", "--quiet", "--shard", "\($0)/3", "--output-dir", sharded.path, inputs.path]) }
        for p in processes { p.waitUntilExit(); #expect(p.terminationStatus == 0) }
        let expected = try contents(of: whole), actual = try contents(of: sharded)
        #expect(expected.count == 6 && expected.keys.allSatisfy { $0.hasSuffix(".jsonl") && !$0.hasPrefix(".") })
        #expect(actual == expected)
        let video = try #require(expected["pan.mp4.jsonl"])
        #expect(String(decoding: video, as: UTF8.self).split(separator: "\n").count == 8)

        // On standard output, the shards' outputs in shard order are one run's output, byte for byte;
        // auto/N reads the shard from the job-array variables.
        let stdoutWhole = try blaze(["pose", "--quiet", inputs.path])
        var concatenated = Data()
        for (i, env) in [["JOB_COMPLETION_INDEX": "0"], ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1"],
                         ["AWS_BATCH_JOB_ARRAY_INDEX": "2"]].enumerated() {
            let part = try blaze(["pose", "--quiet", "--shard", "auto/3", inputs.path], environment: env)
            #expect(part.status == 0, "shard \(i): \(part.stderr)")
            concatenated.append(part.stdout)
        }
        #expect(stdoutWhole.status == 0 && concatenated == stdoutWhole.stdout)
        #expect(stdoutWhole.lines.count == 5 + 8)
    }

    @Test func resumeAfterAKillMidRunCompletesTheSetWithNothingLostOrDuplicated() throws {
        // 40 inputs (copies of two photos and a clip under different names), killed once a few outputs exist.
        let inputs = try makeTemporaryDirectory("many")
        let outputs = try makeTemporaryDirectory("out"), reference = try makeTemporaryDirectory("ref")
        defer { for d in [inputs, outputs, reference] { try? FileManager.default.removeItem(at: d) } }
        try writePanClip(to: inputs.appendingPathComponent("clip_00.mp4").path, frames: 6)
        for i in 0..<40 {
            let source = fixturePhotos.appendingPathComponent(i % 2 == 0 ? "pose/mpii_052475643.png" : "hand/onehand10k_33.png")
            if i % 10 == 5 {
                try FileManager.default.copyItem(at: inputs.appendingPathComponent("clip_00.mp4"),
                                                 to: inputs.appendingPathComponent(String(format: "clip_%02d.mp4", i)))
            } else if i > 0 {
                try FileManager.default.copyItem(at: source, to: inputs.appendingPathComponent(String(format: "photo_%02d.png", i)))
            }
        }
        let manifest = inputs.appendingPathComponent("list.txt")
        let names = try FileManager.default.contentsOfDirectory(atPath: inputs.path).filter { $0 != "list.txt" }.sorted()
        try (names.map { inputs.appendingPathComponent($0).path }.joined(separator: "\n") + "\n")
            .write(to: manifest, atomically: true, encoding: .utf8)

        let process = try startBlaze(["pose", "--quiet", "--output-dir", outputs.path, "--inputs-from", manifest.path])
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, try FileManager.default.contentsOfDirectory(atPath: outputs.path).filter({ !$0.hasPrefix(".") }).count < 5 {
            usleep(2000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let done = try FileManager.default.contentsOfDirectory(atPath: outputs.path).filter { !$0.hasPrefix(".") }
        #expect(done.count >= 5 && done.count < names.count, "killed after \(done.count) of \(names.count) outputs")

        let resumed = try blaze(["pose", "--output-dir", outputs.path, "--resume", "--inputs-from", manifest.path])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("skipped \(done.count) inputs"))
        let full = try blaze(["pose", "--quiet", "--output-dir", reference.path, "--inputs-from", manifest.path])
        #expect(full.status == 0)
        let expected = try contents(of: reference), actual = try contents(of: outputs)
        #expect(expected.count == names.count)
        #expect(actual == expected, "resumed outputs differ: \(Set(actual.keys).symmetricDifference(expected.keys).sorted())")
    }

    @Test func badShardAndBatchOptionsAreRefused() throws {
        for arguments in [["--shard", "3/3"], ["--shard", "x/2"], ["--shard", "auto/2"], ["--resume"], ["--shard", "0/0"]] {
            let run = try blaze(["pose"] + arguments + [fixturePhotos.appendingPathComponent("pose").path])
            #expect(run.status != 0 && !run.stderr.isEmpty, "\(arguments)")
        }
    }
}

@Suite(.serialized) struct MediaCLITests {
    @Test func overlayVideoHasTheInputsFrameCountSizeAndTimestamps() throws {
        let directory = try makeTemporaryDirectory("overlay")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("walk.mp4").path, overlay = directory.appendingPathComponent("walk.overlay.mp4").path
        try writePanClip(to: clip, frames: 10, width: 190, height: 142, stepMs: 33)
        let run = try blaze(["pose", "--quiet", clip, "--overlay-video", overlay])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines.count == 10)
        let original = try VideoFileReader(path: clip), drawn = try VideoFileReader(path: overlay)
        #expect((drawn.info.width, drawn.info.height) == (original.info.width, original.info.height))
        var a: [VideoFrame] = [], b: [VideoFrame] = []
        while let f = try original.nextFrame() { a.append(f) }
        while let f = try drawn.nextFrame() { b.append(f) }
        #expect(b.count == a.count && a.count == 10)
        #expect(b.map(\.timestampMs) == a.map(\.timestampMs))
        // The skeleton is drawn: some frames differ visibly from the input.
        let changed = zip(a, b).filter { x, y in zip(x.image.pixels, y.image.pixels).contains { abs(Int($0) - Int($1)) > 60 } }.count
        #expect(changed >= 5)

        // Without an overlay the CLI reads the frames as the decoder's YUV planes (this clip's are), and its
        // lines are those of the RGB frames it draws on.
        var planes = VideoFileReader.Options()
        planes.convertsToRGB = false
        #expect(try VideoFileReader(path: clip, options: planes).nextFrame()?.image.yuv420 != nil)
        let plain = try blaze(["pose", "--quiet", clip])
        #expect(plain.status == 0 && plain.lines == run.lines)
    }

    @Test func videoFramesAreTrackedWithPresentationTimes() throws {
        let directory = try makeTemporaryDirectory("track")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("pan.mp4").path
        try writePanClip(to: clip, frames: 6, stepMs: 50)
        let run = try blaze(["pose", clip])
        #expect(run.status == 0)
        let records = try run.lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(records.map { $0["timestampMs"] as? Int } == [0, 50, 100, 150, 200, 250])
        #expect(records.map { $0["frame"] as? String } == (0..<6).map { String(format: "frame_%05d", $0) })
        #expect(records.allSatisfy { $0["video"] as? String == "pan.mp4" && $0["image"] == nil })
        #expect(records.allSatisfy { ($0["poses"] as? [Any])?.count == 1 })
        // The person's "id" (BlazeKit's identities) is on every frame and stays 1.
        #expect(records.allSatisfy { (($0["poses"] as? [[String: Any]])?.first?["id"] as? Int) == 1 })
        #expect(run.stderr.contains("pan.mp4: tracked 6 frames"))
        #expect(!run.stderr.contains("frames/s"))

        let timed = try blaze(["pose", "--quiet", "--timing", clip])
        #expect(timed.status == 0 && timed.lines == run.lines)
        #expect(timed.stderr.hasPrefix("pan.mp4: 6 frames in ") && timed.stderr.contains(" frames/s (opening the file to its last line)"))
    }

    /// Zero-byte and text files, a JPEG header claiming 65500×65500, a truncated video and a truncated JPEG:
    /// each gets an error line naming it; a truncated video's frames before the damage all come out first;
    /// good inputs in the same run still work; the exit status is 1.
    @Test func damagedInputsGetErrorLinesAndLoseNothing() throws {
        let directory = try makeTemporaryDirectory("bad")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("good.mp4").path
        try writePanClip(to: clip, frames: 12)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: clip)))
        let cutClip = directory.appendingPathComponent("cut.mp4")
        try Data(bytes[0..<(bytes.count * 7 / 10)]).write(to: cutClip)
        try Data().write(to: directory.appendingPathComponent("empty.jpg"))
        try Data("hello, not a photo\n".utf8).write(to: directory.appendingPathComponent("notes.png"))
        // A baseline JPEG whose SOF0 claims 65500×65500.
        let photo = try Image(contentsOfPNGFile: fixturePhotos.appendingPathComponent("pose/mpii_052475643.png").path)
        var jpeg = try photo.jpegData()
        let huge = jpeg
        if let sof = (0..<(jpeg.count - 9)).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }) {
            jpeg[sof + 5] = 0xFF; jpeg[sof + 6] = 0xDC; jpeg[sof + 7] = 0xFF; jpeg[sof + 8] = 0xDC
        }
        try Data(jpeg).write(to: directory.appendingPathComponent("huge.jpg"))
        try Data(huge[0..<(huge.count / 2)]).write(to: directory.appendingPathComponent("half.jpg"))

        let intact = try blaze(["pose", "--quiet", clip])
        let run = try blaze(["pose", "--quiet", directory.path])
        #expect(run.status == 1)
        let lines = run.lines
        let records = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        func errors(_ name: String) -> [String] { records.filter { $0["image"] as? String == name }.compactMap { $0["error"] as? String } }
        #expect(errors("empty.jpg").first?.contains("empty") == true)
        #expect(errors("notes.png").first?.contains("text") == true)
        #expect(errors("huge.jpg").first?.contains("65500") == true)
        #expect(errors("half.jpg").count == 1)
        let cutError = try #require(errors("cut.mp4").first)
        #expect(cutError.contains("cut.mp4"))
        let cutFrames = lines.filter { $0.contains("\"video\":\"cut.mp4\"") }
        #expect(!cutFrames.isEmpty && cutFrames.count < 12)
        let intactFrames = intact.lines.map { $0.replacingOccurrences(of: "\"video\":\"good.mp4\"", with: "\"video\":\"cut.mp4\"") }
        #expect(Array(intactFrames.prefix(cutFrames.count)) == cutFrames, "frames before the damage must equal the intact run's")
        #expect(lines.filter { $0.contains("\"video\":\"good.mp4\"") }.count == 12)
    }

    /// A video's lines depend neither on the thread count nor on which threads decode ahead
    /// (`--decode-ahead`): on an intact clip and on a cut one (its frames before the cut, then its error).
    @Test func videoLinesAreTheSameWhicheverThreadsDecode() throws {
        let directory = try makeTemporaryDirectory("decode-ahead")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("pan.mp4").path, cut = directory.appendingPathComponent("cut.mp4").path
        try writePanClip(to: clip, frames: 12)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: clip)))
        try Data(bytes[0..<(bytes.count * 7 / 10)]).write(to: URL(fileURLWithPath: cut))
        let base = try blaze(["pose", "--quiet", clip, cut])
        #expect(base.status == 1 && base.lines.count > 12 && base.lines.last?.contains("\"error\"") == true, "\(base.lines)")
        for options in [["--threads", "2", "--decode-ahead", "idle-workers"], ["--threads", "2", "--decode-ahead", "reader-thread"],
                        ["--threads", "3", "--decode-ahead", "idle-workers"], ["--threads", "2"]] {
            let run = try blaze(["pose", "--quiet"] + options + [clip, cut])
            let firstDifference = zip(run.lines, base.lines).first { $0 != $1 }.map { "\($0.0)\n  against\n\($0.1)" }
            #expect(run.status == base.status && run.lines == base.lines,
                    "\(options): \(run.lines.count) lines against \(base.lines.count); first difference: \(firstDifference ?? "none")")
        }
        let refused = try blaze(["pose", "--quiet", "--decode-ahead", "idle-workers", clip])
        #expect(refused.status != 0 && refused.stderr.contains("--threads 2"), "\(refused.stderr)")
    }

    @Test func exifPhotosAreReadUprightByTheCLIMirroredOnesToo() throws {
        let directory = try makeTemporaryDirectory("exif")
        defer { try? FileManager.default.removeItem(at: directory) }
        let photo = try Image(contentsOfPNGFile: fixturePhotos.appendingPathComponent("pose/mpii_052475643.png").path)
        let upright = directory.appendingPathComponent("upright.jpg"), mirrored = directory.appendingPathComponent("transposed.jpg")
        try Data(photo.jpegData(quality: 100)).write(to: upright)
        // The photo transposed and tagged EXIF 5 (leftMirrored), which MediaPipe's API would reject.
        var turned = photo
        turned.orientation = .leftMirrored
        var stored = try turned.oriented()
        stored.orientation = .leftMirrored
        try Data(stored.jpegData(quality: 100)).write(to: mirrored)
        let a = try blaze(["pose", "--quiet", upright.path]), b = try blaze(["pose", "--quiet", mirrored.path])
        #expect(a.status == 0 && b.status == 0, "\(b.stdout)")
        struct Line: Decodable { var width: Int; var height: Int; var poses: [[String: [[Float]]]] }
        let x = try JSONDecoder().decode(Line.self, from: Data(a.lines[0].utf8)), y = try JSONDecoder().decode(Line.self, from: Data(b.lines[0].utf8))
        #expect((y.width, y.height) == (photo.width, photo.height) && (x.width, x.height) == (photo.width, photo.height))
        let p = try #require(x.poses.first?["landmarks"]), q = try #require(y.poses.first?["landmarks"])
        let mean = zip(p, q).map { abs($0[0] - $1[0]) + abs($0[1] - $1[1]) }.reduce(0, +) / Float(2 * p.count)
        #expect(mean <= 0.002, "mean difference \(mean) between the EXIF-5 file and the upright one")
    }
}

/// `blaze pose --accurate`: the accurate mode's flags reach the landmarker; the default output is untouched.
@Suite struct AccurateFlagTests {
    static let photo = fixturePhotos.appendingPathComponent("pose/mpii_052475643.png").path

    static func poseCount(_ line: String) throws -> Int {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        return (object["poses"] as! [Any]).count
    }

    /// Two men seated side by side: MediaPipe's detector (so the default) gives one; the accurate mode's
    /// extra detector passes find the other, and its de-duplication by landmarks keeps both.
    @Test func accurateFindsBothMenOfThePhoto() throws {
        let plain = try blaze(["pose", "--quiet", "--num-poses", "2", Self.photo])
        let accurate = try blaze(["pose", "--quiet", "--num-poses", "2", "--accurate", "--accurate-off", "tiles,flip", Self.photo])
        #expect(plain.status == 0 && accurate.status == 0, "\(plain.stderr) \(accurate.stderr)")
        #expect(try Self.poseCount(try #require(accurate.lines.first)) == 2)
        #expect(try Self.poseCount(try #require(plain.lines.first)) == 1)
    }

    @Test func unknownPartIsRefused() throws {
        let run = try blaze(["pose", "--quiet", "--accurate", "--accurate-off", "tiles,everything", Self.photo])
        #expect(run.status != 0 && run.stderr.contains("everything"))
    }
}

/// `blaze hand --accurate`: the accurate mode's flags reach the landmarker; the default output is untouched.
@Suite struct HandAccurateFlagTests {
    /// A flat grey 1280×720 frame with `hand/onehand10k_1402.png` halved (2×2 box average; its hand 93 px)
    /// pasted at (900, 400), written as PNG into `directory`.
    static func smallHandFrame(in directory: URL) throws -> String {
        let photo = try Image(contentsOfPNGFile: fixturePhotos.appendingPathComponent("hand/onehand10k_1402.png").path)
        let w = 1280, h = 720, x0 = 900, y0 = 400
        var frame = [UInt8](repeating: 128, count: w * h * 3)
        for y in 0..<(photo.height / 2) {
            for x in 0..<(photo.width / 2) {
                for c in 0..<3 {
                    let sum = [(0, 0), (0, 1), (1, 0), (1, 1)].reduce(2) { $0 + Int(photo.pixels[((2 * y + $1.0) * photo.width + 2 * x + $1.1) * 3 + c]) }
                    frame[((y0 + y) * w + x0 + x) * 3 + c] = UInt8(sum / 4)
                }
            }
        }
        let path = directory.appendingPathComponent("small-hand.png").path
        try Data(try Image(rgb: frame, width: w, height: h).pngData()).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func handCount(_ line: String) throws -> Int {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        return (object["hands"] as! [Any]).count
    }

    @Test func accurateFindsTheSmallHandTheDefaultMisses() throws {
        let directory = try makeTemporaryDirectory("hand-accurate")
        defer { try? FileManager.default.removeItem(at: directory) }
        let frame = try Self.smallHandFrame(in: directory)
        let plain = try blaze(["hand", "--quiet", frame])
        let accurate = try blaze(["hand", "--quiet", "--accurate", "--min-hand-size", "80", "--accurate-on", "refine", "--accurate-off", "flip", frame])
        #expect(plain.status == 0 && accurate.status == 0, "\(plain.stderr) \(accurate.stderr)")
        #expect(try Self.handCount(try #require(plain.lines.first)) == 0)
        #expect(try Self.handCount(try #require(accurate.lines.first)) == 1)
    }

    @Test func unknownPartAndTooSmallSizeAreRefused() throws {
        let photo = fixturePhotos.appendingPathComponent("hand/onehand10k_1402.png").path
        let part = try blaze(["hand", "--quiet", "--accurate", "--accurate-off", "tiles,everything", photo])
        #expect(part.status != 0 && part.stderr.contains("everything"), "\(part.stderr)")
        let on = try blaze(["hand", "--quiet", "--accurate", "--accurate-on", "zoom-out", photo])
        #expect(on.status != 0 && on.stderr.contains("zoom-out"), "\(on.stderr)")
        let size = try blaze(["hand", "--quiet", "--accurate", "--min-hand-size", "8", photo])
        #expect(size.status != 0 && size.stderr.contains("smallestHandSize"), "\(size.stderr)")
    }
}
