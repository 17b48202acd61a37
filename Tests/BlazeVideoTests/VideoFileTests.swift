import BlazeImage
@testable import BlazeVideo
import Foundation
import Synchronization
import Testing

/// A frame with a left half and a right half of different colours and a square that moves with `t`, so
/// rotation, order and timing are all visible in the pixels.
func testFrame(width: Int, height: Int, t: Int) throws -> Image {
    var rgb = [UInt8](repeating: 0, count: width * height * 3)
    let square = max(2, min(width, height) / 4)
    let sx = (t * 3) % max(1, width - square), sy = (t * 2) % max(1, height - square)
    for y in 0..<height {
        for x in 0..<width {
            let i = (y * width + x) * 3
            let inSquare = x >= sx && x < sx + square && y >= sy && y < sy + square
            if inSquare {
                rgb[i] = 250; rgb[i + 1] = 250; rgb[i + 2] = 250
            } else if x < width / 2 {
                rgb[i] = 200; rgb[i + 1] = 40; rgb[i + 2] = 40
            } else {
                rgb[i] = 30; rgb[i + 1] = 60; rgb[i + 2] = 210
            }
        }
    }
    return try Image(rgb: rgb, width: width, height: height)
}

func temporaryPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("blazevideo-\(UInt32.random(in: 0...UInt32.max))-\(name)").path
}

/// Writes a clip and returns its path.
func writeClip(_ name: String, width: Int, height: Int, timestampsMs: [Int], rotation: Int = 0) throws -> String {
    let path = temporaryPath(name)
    let writer = try VideoFileWriter(path: path, width: width, height: height, frameRate: 25, rotationDegrees: rotation)
    for (t, ms) in timestampsMs.enumerated() { try writer.write(try testFrame(width: width, height: height, t: t), timestampMs: ms) }
    try writer.finish()
    return path
}

/// A clip of `frames` frames, 40 ms apart, whose channel `t % 3` of frame `t` is noise and the other two a
/// horizontal ramp: decoded, its samples span the colour range.
func writeNoiseClip(_ name: String, width: Int, height: Int, frames: Int, seed: UInt32) throws -> String {
    let path = temporaryPath(name)
    let writer = try VideoFileWriter(path: path, width: width, height: height, frameRate: 25)
    var state = seed
    for t in 0..<frames {
        let pixels = (0..<(width * height * 3)).map { i -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return i % 3 == t % 3 ? UInt8(truncatingIfNeeded: state >> 24) : UInt8(truncatingIfNeeded: (i / 3 % width) * 255 / width)
        }
        try writer.write(try Image(rgb: pixels, width: width, height: height), timestampMs: t * 40)
    }
    try writer.finish()
    return path
}

/// All frames of a file, plus the error that ended the read if any. (FFmpeg's own log is quieted: the
/// damaged files below would fill the test output with its complaints; the errors are checked instead.)
func readAll(_ path: String, options: VideoFileReader.Options = .init()) -> (frames: [VideoFrame], error: Error?) {
    FFmpegLogLevel.fatal.apply()
    var frames: [VideoFrame] = []
    do {
        let reader = try VideoFileReader(path: path, options: options)
        while let frame = try reader.nextFrame() { frames.append(frame) }
        #expect(try reader.nextFrame() == nil, "a finished reader stays finished")
        return (frames, nil)
    } catch {
        return (frames, error)
    }
}

/// All frames of a file read in ``VideoFileReader/AheadDecoding/onIdleWorkers`` mode while two helper
/// threads call `decodeAheadWork` in a loop, as a landmarker's idle workers would; also how many frames the
/// helpers decoded.
func readWithHelpers(_ path: String, options: VideoFileReader.Options) throws
    -> (frames: [VideoFrame], error: Error?, decodedByHelpers: Int) {
    FFmpegLogLevel.fatal.apply()
    let reader = try VideoFileReader(path: path, options: options)
    let work = reader.decodeAheadWork
    let stop = Atomic<Bool>(false), decoded = Atomic<Int>(0)
    let finished = DispatchGroup()
    for _ in 0..<2 {
        finished.enter()
        Thread {
            while !stop.load(ordering: .relaxed) { if work() { decoded.wrappingAdd(1, ordering: .relaxed) } }
            finished.leave()
        }.start()
    }
    defer { stop.store(true, ordering: .relaxed); finished.wait() }
    // Helpers decode nothing ahead until the caller has taken two frames (then one more per frame taken);
    // after those two, the next frame is left to the helpers (with a generous limit for a loaded machine), so
    // they surely take part; later frames go to whichever thread gets there first.
    var frames: [VideoFrame] = []
    do {
        for _ in 0..<2 { if let frame = try reader.nextFrame() { frames.append(frame) } }
        let deadline = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
        while frames.count == 2, decoded.load(ordering: .relaxed) == 0, DispatchTime.now().uptimeNanoseconds < deadline { usleep(100) }
        while let frame = try reader.nextFrame() { frames.append(frame) }
        #expect(try reader.nextFrame() == nil, "a finished reader stays finished")
        return (frames, nil, decoded.load(ordering: .relaxed))
    } catch {
        return (frames, error, decoded.load(ordering: .relaxed))
    }
}

func meanAbsoluteDifference(_ a: Image, _ b: Image) -> Double {
    precondition(a.pixels.count == b.pixels.count)
    var sum = 0
    for i in a.pixels.indices { sum += abs(Int(a.pixels[i]) - Int(b.pixels[i])) }
    return Double(sum) / Double(a.pixels.count)
}

@Suite struct VideoFileTests {
    @Test func roundTripKeepsFramesSizeAndVariableTimestamps() throws {
        let stamps = [0, 33, 70, 100, 141, 180, 215, 260, 300, 333, 371, 400]
        let path = try writeClip("vfr.mp4", width: 64, height: 48, timestampsMs: stamps)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try VideoFileReader(path: path)
        #expect(reader.info.width == 64 && reader.info.height == 48 && reader.info.rotationDegrees == 0)
        #expect(reader.info.codecName == "h264" || reader.info.codecName == "mpeg4")
        #expect(reader.info.frameCount == stamps.count)
        let (frames, error) = readAll(path)
        #expect(error == nil)
        #expect(frames.map(\.timestampMs) == stamps)
        #expect(frames.map(\.index) == Array(0..<stamps.count))
        for (t, frame) in frames.enumerated() {
            let expected = try testFrame(width: 64, height: 48, t: t)
            #expect(meanAbsoluteDifference(frame.image, expected) < 6, "frame \(t) differs too much from what was written")
        }
    }

    @Test func memoryInputDecodesLikeTheFile() throws {
        let path = try writeClip("memory.mp4", width: 48, height: 32, timestampsMs: [0, 40, 90, 130], rotation: 90)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let reader = try VideoFileReader(data: bytes, name: "upload.mp4")
        #expect(reader.info == (try VideoFileReader(path: path).info))
        var frames: [VideoFrame] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        let fromFile = readAll(path).frames
        #expect(frames.map(\.timestampMs) == fromFile.map(\.timestampMs) && frames.map(\.image) == fromFile.map(\.image))
        do {
            _ = try VideoFileReader(data: Array(bytes.prefix(40)), name: "cut.mp4")
            Issue.record("opened a 40-byte cut")
        } catch let error as VideoError {
            #expect("\(error)".contains("cut.mp4"))
        }
    }

    /// Frames handed back with `recycle` are written over by later frames (their memory is reused), and the
    /// frames read that way are the same as without recycling, rotated or not, with or without the decoding
    /// thread; a frame recycled while a copy of its image is still held keeps that copy intact.
    @Test(arguments: [(0, 2), (90, 2), (0, 0)])
    func recycledFramesAreReusedAndUnchanged(rotation: Int, prefetch: Int) throws {
        let stamps = Array(stride(from: 0, to: 40 * 24, by: 40))
        let path = try writeClip("recycle\(rotation).mp4", width: 64, height: 48, timestampsMs: stamps, rotation: rotation)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = VideoFileReader.Options()
        options.prefetch = prefetch
        let plain = readAll(path, options: options).frames
        let reader = try VideoFileReader(path: path, options: options)
        var recycled: Set<UInt> = [], reused = 0
        var timestamps: [Int] = [], sameAsPlain: [Bool] = []
        var kept: (index: Int, image: Image)?
        while let frame = try reader.nextFrame() {
            let address = frame.image.pixels.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
            if recycled.contains(address) { reused += 1 }
            timestamps.append(frame.timestampMs)
            sameAsPlain.append(frame.image.pixels == plain[frame.index].image.pixels)
            if frame.index == 5 { kept = (5, frame.image) }
            recycled.insert(address)
            reader.recycle(frame)
        }
        #expect(timestamps == plain.map(\.timestampMs))
        #expect(sameAsPlain.allSatisfy { $0 }, "recycled reads differ from plain reads at \(sameAsPlain.indices.filter { !sameAsPlain[$0] })")
        // Every frame decoded into handed-back memory was written in place, except the one whose image is kept.
        #expect(reader.reusedFrameCount > stamps.count / 2 && reused >= reader.reusedFrameCount - 1,
                "\(reader.reusedFrameCount) frames decoded into recycled memory, \(reused) at a recycled address")
        let (index, image) = try #require(kept)
        #expect(image == plain[index].image, "a frame's image kept by the caller changed after recycling")
    }

    /// Frames converted straight into their pixel arrays (upright 4:2:0 with a width that is a multiple of
    /// 16) have the same bytes as frames converted through the staging buffer, on noisy content that spans
    /// the colour range; recycled arrays keep the spare capacity the direct conversion needs.
    @Test func inPlaceAndStagedFramesAreTheSame() throws {
        let (width, height) = (160, 64)
        let path = try writeNoiseClip("inplace.mp4", width: width, height: height, frames: 6, seed: 12345)
        defer { try? FileManager.default.removeItem(atPath: path) }
        func decode(inPlace: Bool) throws -> [[UInt8]] {
            let decoder = try FFmpegDecoder(path: path, decodeThreads: 1)
            decoder.convertsInPlace = inPlace
            var frames: [[UInt8]] = []
            while let frame = try decoder.next() {
                frames.append(frame.image.pixels)
                decoder.recycler.put(frame.image.pixels)
            }
            return frames
        }
        let direct = try decode(inPlace: true), staged = try decode(inPlace: false)
        #expect(direct.count == 6 && staged.count == 6)
        #expect(direct == staged, "frames \(direct.indices.filter { direct[$0] != staged[$0] }) differ")
        #expect(Set(direct.flatMap { $0 }).count > 200, "the clip should span the colour range")
    }

    /// Frames read as YUV planes (`convertsToRGB` off) convert to the bytes libswscale gives, and a rotated
    /// perspective crop of the planes is the crop of the converted frame, byte for byte; a frame of odd
    /// height (the writer encodes it as 4:4:4) comes as RGB. (`OpenCVFrameTests` compares both with OpenCV's.)
    @Test(arguments: [(160, 64), (96, 33)])
    func yuvFramesConvertAndCropAsTheirRGB(width: Int, height: Int) throws {
        let path = try writeNoiseClip("planes\(height).mp4", width: width, height: height, frames: 4, seed: 99)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = VideoFileReader.Options()
        options.convertsToRGB = false
        let planes = readAll(path, options: options), rgb = readAll(path)
        #expect(planes.error == nil && planes.frames.count == 4 && rgb.frames.count == 4)
        let t = PerspectiveTransform(sourceQuad: [SIMD2(-5, Float(height) + 3), SIMD2(10, -7), SIMD2(Float(width) + 4, 2), SIMD2(Float(width) - 9, Float(height) + 6)],
                                     destinationQuad: [SIMD2(0, 40), SIMD2(0, 0), SIMD2(40, 0), SIMD2(40, 40)])
        for (a, b) in zip(planes.frames, rgb.frames) {
            #expect((a.image.yuv420 != nil) == (height % 2 == 0), "frame \(a.index): planes only for an even height")
            let same = a.image.pixels == b.image.pixels
            #expect(same, "frame \(a.index): converted planes differ from libswscale's RGB")
            for border in [BorderMode.zero, .replicate] {
                var fromPlanes = [UInt8](repeating: 0, count: 40 * 40 * 3), fromRGB = fromPlanes
                fromPlanes.withUnsafeMutableBufferPointer { warpPerspectiveRGB(a.image, transform: t, width: 40, height: 40, border: border, into: $0.baseAddress!) }
                fromRGB.withUnsafeMutableBufferPointer { warpPerspectiveRGB(b.image, transform: t, width: 40, height: 40, border: border, into: $0.baseAddress!) }
                let sameCrop = fromPlanes == fromRGB
                #expect(sameCrop, "frame \(a.index) \(border): the crop of the planes differs from the crop of the RGB frame")
            }
        }
    }

    @Test func displayMatrixRotationIsApplied() throws {
        // Stored landscape 64×48 with a red left half; a 90° clockwise display rotation shows it as a
        // 48×64 portrait frame with the red half on top.
        let path = try writeClip("rot90.mp4", width: 64, height: 48, timestampsMs: [0, 40, 80], rotation: 90)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try VideoFileReader(path: path)
        #expect(reader.info.rotationDegrees == 90)
        #expect(reader.info.width == 48 && reader.info.height == 64)
        #expect(reader.info.codedWidth == 64 && reader.info.codedHeight == 48)
        let (frames, error) = readAll(path)
        #expect(error == nil && frames.count == 3)
        for (t, frame) in frames.enumerated() {
            var stored = try testFrame(width: 64, height: 48, t: t)
            stored.orientation = .right
            #expect(frame.image.width == 48 && frame.image.height == 64)
            #expect(meanAbsoluteDifference(frame.image, try stored.oriented()) < 6, "frame \(t)")
        }
        for rotation in [180, 270] {
            let other = try writeClip("rot\(rotation).mp4", width: 32, height: 16, timestampsMs: [0, 40], rotation: rotation)
            defer { try? FileManager.default.removeItem(atPath: other) }
            let info = try VideoFileReader(path: other).info
            #expect(info.rotationDegrees == rotation)
            #expect((info.width, info.height) == (rotation == 180 ? (32, 16) : (16, 32)))
        }
    }

    @Test(arguments: [(63, 47, 0), (1080, 40, 90), (90, 34, 270)])
    func oddFrameSizesAndRowLengthsRoundTrip(width: Int, height: Int, rotation: Int) throws {
        // Rows whose byte length is no multiple of 16 or 64 (1080 · 3): libswscale's vector code must not
        // write past them.
        let path = try writeClip("odd.mp4", width: width, height: height, timestampsMs: [0, 40, 80, 120], rotation: rotation)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (frames, error) = readAll(path)
        #expect(error == nil && frames.count == 4)
        let (w, h) = rotation % 180 == 0 ? (width, height) : (height, width)
        #expect(frames.allSatisfy { $0.image.width == w && $0.image.height == h })
    }

    @Test func nonIncreasingMillisecondTimestampsAreSkippedAndReported() throws {
        // 90 kHz timestamps 0, 30 (0.33 ms, rounds to 0 ms), 3600 (40 ms), 7200 (80 ms).
        let path = temporaryPath("dup.mp4")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try VideoFileWriter(path: path, width: 32, height: 32, frameRate: 25)
        for (t, pts) in [Int64(0), 30, 3600, 7200].enumerated() {
            try writer.write(try testFrame(width: 32, height: 32, t: t), presentationTimestamp: pts)
        }
        try writer.finish()
        let skipped = SkippedFrames()
        var options = VideoFileReader.Options()
        options.onSkippedFrame = { skipped.items.append($0) }
        let (frames, error) = readAll(path, options: options)
        #expect(error == nil)
        #expect(frames.map(\.timestampMs) == [0, 40, 80])
        #expect(frames.map(\.index) == [0, 2, 3])
        #expect(skipped.items == [VideoFileReader.SkippedFrame(index: 1, timestampMs: 0, previousTimestampMs: 0)])
        #expect(skipped.items.first?.description.contains("frame 1") == true)
        var all = VideoFileReader.Options()
        all.skipNonIncreasingTimestamps = false
        #expect(readAll(path, options: all).frames.map(\.timestampMs) == [0, 0, 40, 80])
    }

    @Test func prefetchingAndDirectDecodingGiveTheSameFrames() throws {
        let path = try writeClip("prefetch.mp4", width: 48, height: 32, timestampsMs: Array(stride(from: 0, to: 800, by: 40)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var direct = VideoFileReader.Options()
        direct.prefetch = 0
        let a = readAll(path, options: direct), b = readAll(path)
        #expect(a.error == nil && b.error == nil && a.frames.count == 20)
        #expect(a.frames.map(\.image) == b.frames.map(\.image))
        // A reader dropped half-way stops its decoding thread cleanly.
        let reader = try VideoFileReader(path: path)
        _ = try reader.nextFrame()
    }

    /// `.onIdleWorkers`: frames decoded by helper threads through `decodeAheadWork` (as a landmarker's idle
    /// workers call it), or by the caller when none is ready, are the reader thread's frames in order, and a
    /// cut file still gives every frame before the cut, then its error. `decodeAheadWork` does nothing in
    /// the other mode and once the reader is gone.
    @Test func idleWorkerDecodingGivesTheSameFrames() throws {
        let path = try writeClip("idle.mp4", width: 48, height: 32, timestampsMs: Array(stride(from: 0, to: 1200, by: 40)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reference = readAll(path)
        #expect(reference.error == nil && reference.frames.count == 30)
        var options = VideoFileReader.Options()
        options.decodesAhead = .onIdleWorkers
        options.decodeThreads = 1
        options.prefetch = 3

        let alone = readAll(path, options: options)   // no helper: every frame decoded on the caller's thread
        #expect(alone.error == nil && alone.frames.map(\.image) == reference.frames.map(\.image))
        #expect(alone.frames.map(\.timestampMs) == reference.frames.map(\.timestampMs))

        let helped = try readWithHelpers(path, options: options)
        #expect(helped.error == nil && helped.frames.map(\.image) == reference.frames.map(\.image))
        #expect(helped.frames.map(\.timestampMs) == reference.frames.map(\.timestampMs))
        #expect(helped.decodedByHelpers > 0, "the helpers decoded no frame")

        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let cut = temporaryPath("idle-cut.mp4")
        defer { try? FileManager.default.removeItem(atPath: cut) }
        try Data(bytes[0..<(bytes.count * 3 / 5)]).write(to: URL(fileURLWithPath: cut))
        let before = readAll(cut), damaged = try readWithHelpers(cut, options: options)
        #expect(before.error != nil && damaged.error != nil && "\(damaged.error!)".contains(cut))
        #expect(damaged.frames.map(\.image) == before.frames.map(\.image) && !damaged.frames.isEmpty)

        var work: (@Sendable () -> Bool)?
        do {
            let reader = try VideoFileReader(path: path, options: options)
            work = reader.decodeAheadWork
            #expect(try reader.nextFrame() != nil)
        }
        #expect(work?() == false, "decodeAheadWork decoded for a reader that is gone")
        #expect(try VideoFileReader(path: path).decodeAheadWork() == false, "decodeAheadWork decoded for a reader with its own thread")
    }

    /// The idle workers decode nothing ahead while the caller has its first frame (the slow one, with the
    /// detector, which gets both threads), then one frame more for each frame taken, up to `prefetch`.
    @Test func idleWorkersDecodeAheadFromTheSecondFrameOnRampingUpToPrefetch() throws {
        let path = try writeClip("ramp.mp4", width: 48, height: 32, timestampsMs: Array(stride(from: 0, to: 800, by: 40)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = VideoFileReader.Options()
        options.decodesAhead = .onIdleWorkers
        options.decodeThreads = 1
        options.prefetch = 3
        let reader = try VideoFileReader(path: path, options: options)
        let work = reader.decodeAheadWork
        func decodedAhead() -> Int {
            var n = 0
            while work() { n += 1 }
            return n
        }
        #expect(decodedAhead() == 0, "before the first frame")
        #expect(try reader.nextFrame()?.timestampMs == 0)
        #expect(decodedAhead() == 0, "while the first frame is processed")
        #expect(try reader.nextFrame()?.timestampMs == 40)
        #expect(decodedAhead() == 1)
        #expect(try reader.nextFrame()?.timestampMs == 80)
        #expect(decodedAhead() == 2, "two ahead")
        #expect(try reader.nextFrame()?.timestampMs == 120)
        #expect(decodedAhead() == 2, "three ahead (prefetch), one of them decoded before")
        #expect(try reader.nextFrame()?.timestampMs == 160)
        #expect(decodedAhead() == 1, "still three ahead")
    }

    @Test func emptyTextAndNonVideoFilesAreRefusedWithTheirPath() throws {
        let empty = temporaryPath("empty.mp4"), text = temporaryPath("notes.txt")
        try Data().write(to: URL(fileURLWithPath: empty))
        try Data("just some text, not a video\n".utf8).write(to: URL(fileURLWithPath: text))
        defer { try? FileManager.default.removeItem(atPath: empty); try? FileManager.default.removeItem(atPath: text) }
        FFmpegLogLevel.fatal.apply()
        for path in [empty, text, "/nonexistent/clip.mp4"] {
            do {
                _ = try VideoFileReader(path: path)
                Issue.record("opened \(path)")
            } catch let error as VideoError {
                #expect("\(error)".contains(path))
            }
        }
    }

    @Test func writerRejectsBadArguments() throws {
        #expect(throws: VideoError.self) { try VideoFileWriter(path: temporaryPath("a.mp4"), width: 0, height: 10, frameRate: 25) }
        #expect(throws: VideoError.self) { try VideoFileWriter(path: temporaryPath("a.mp4"), width: 10, height: 10, frameRate: 0) }
        #expect(throws: VideoError.self) { try VideoFileWriter(path: temporaryPath("a.mp4"), width: 10, height: 10, frameRate: 25, rotationDegrees: 45) }
        let path = temporaryPath("b.mp4")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try VideoFileWriter(path: path, width: 16, height: 16, frameRate: 25)
        #expect(throws: VideoError.self) { try writer.write(try testFrame(width: 8, height: 8, t: 0), timestampMs: 0) }
        try writer.write(try testFrame(width: 16, height: 16, t: 0), timestampMs: 40)
        #expect(throws: VideoError.self) { try writer.write(try testFrame(width: 16, height: 16, t: 1), timestampMs: 40) }
        try writer.finish()
    }
}

/// Collects skipped-frame reports (called on the reading thread only).
final class SkippedFrames: @unchecked Sendable {
    var items: [VideoFileReader.SkippedFrame] = []
}

@Suite struct DamagedVideoTests {
    /// Every cut of a small clip and seeded byte flips: no crash or hang, the frames that come out
    /// before the damage equal the intact decode's, and a damaged file ends in an error naming it.
    @Test func cutsAndFlipsLoseNothingBeforeTheDamage() throws {
        let stamps = Array(stride(from: 0, to: 6 * 40, by: 40))
        let path = try writeClip("intact.mp4", width: 16, height: 16, timestampsMs: stamps)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let intact = readAll(path)
        #expect(intact.error == nil && intact.frames.count == stamps.count)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let damaged = temporaryPath("damaged.mp4")
        defer { try? FileManager.default.removeItem(atPath: damaged) }

        func check(_ data: [UInt8], _ label: String, cut: Bool) throws {
            try Data(data).write(to: URL(fileURLWithPath: damaged))
            let (frames, error) = readAll(damaged)
            #expect(frames.count <= stamps.count, "\(label)")
            if let error { #expect("\(error)".contains(damaged), "\(label): \(error)") }
            if cut {
                // A cut file must not pass silently as a complete shorter video.
                #expect(error != nil || frames.count == stamps.count, "\(label): \(frames.count) frames and no error")
                // The frames that come out are the intact decode's first frames, with no gap: with B-frames a cut
                // can lose a frame shown before one decoded earlier, and then that later one is held back too.
                #expect(frames.map(\.timestampMs) == Array(stamps.prefix(frames.count)), "\(label): \(frames.map(\.timestampMs))")
                for (frame, whole) in zip(frames, intact.frames) {
                    #expect(whole.image == frame.image, "\(label) frame at \(frame.timestampMs) ms")
                }
            }
        }
        for cut in 0..<bytes.count { try check(Array(bytes[0..<cut]), "cut at \(cut) of \(bytes.count)", cut: true) }
        var generator = XorShift64Star(seed: 11)
        for trial in 0..<60 {
            var copy = bytes
            for _ in 0..<(1 + trial % 4) {
                let i = Int(generator.next() % UInt64(copy.count))
                copy[i] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            }
            try check(copy, "flip trial \(trial)", cut: false)
        }
    }
}

/// A seeded generator for the byte flips (xorshift64*), so failures reproduce.
struct XorShift64Star {
    var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}

/// Resource limit: a stream whose declared frame size is beyond BlazeImage's caps (``Image/maxDimension``
/// per side, ``Image/maxPixelCount`` pixels) is refused when it is opened, before a decoder or a frame
/// buffer exists, with the name and the declared size in the error.
@Suite struct VideoFrameSizeCapTests {
    /// A YUV4MPEG2 stream (text header, raw 4:2:0 frames) declaring `width`×`height`, with only `payload`
    /// bytes of its first frame present.
    static func y4m(width: Int, height: Int, payload: Int) -> [UInt8] {
        Array("YUV4MPEG2 W\(width) H\(height) F25:1 Ip A1:1 C420jpeg\nFRAME\n".utf8) + [UInt8](repeating: 128, count: payload)
    }

    @Test func declaredFrameSizesBeyondTheCapsAreRefusedOnOpening() throws {
        FFmpegLogLevel.fatal.apply()
        // Control: the same tiny stream at an ordinary size opens and decodes, so the refusals below are the caps'.
        let small = try VideoFileReader(data: Self.y4m(width: 16, height: 8, payload: 16 * 8 * 3 / 2), name: "small.y4m")
        #expect(small.info.width == 16 && small.info.height == 8)
        let frame = try #require(try small.nextFrame())
        #expect(frame.image.width == 16 && frame.image.height == 8)

        // One side over 16384; both sides within it but 8200 · 8200 = 67 240 000 pixels over 2^26 = 67 108 864.
        for (width, height) in [(Image.maxDimension + 1, 16), (16, Image.maxDimension + 1), (8200, 8200)] {
            let bytes = Self.y4m(width: width, height: height, payload: 4096)
            #expect(bytes.count < 5000)
            let start = ContinuousClock.now
            do {
                _ = try VideoFileReader(data: bytes, name: "huge.y4m")
                Issue.record("\(width)×\(height) accepted")
            } catch let VideoError.invalidFrameSize(path, w, h) {
                #expect(path == "huge.y4m" && w == width && h == height)
                let message = "\(VideoError.invalidFrameSize(path: path, width: w, height: h))"
                #expect(message.contains("huge.y4m") && message.contains("\(width)×\(height)") && message.contains("\(Image.maxPixelCount)"),
                        "\(message)")
            }
            #expect(ContinuousClock.now - start < .seconds(2), "\(width)×\(height) took too long")
        }
        // The largest square within both caps passes the size check (and then reads what frame data there is).
        let edge = 8192
        #expect(edge * edge <= Image.maxPixelCount)
        #expect(try VideoFileReader(data: Self.y4m(width: edge, height: edge, payload: 4096), name: "edge.y4m").info.width == edge)
    }
}
