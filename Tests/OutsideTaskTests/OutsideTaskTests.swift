import BlazeKit
import Foundation
import Testing

/// A photo of the committed fixtures (Tests/BlazeKitTests/Fixtures), read by path.
private func photo(_ name: String, filePath: String = #filePath) throws -> MPImage {
    let tests = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
    return try MPImage(contentsOfFile: tests.appendingPathComponent("BlazeKitTests/Fixtures/\(name)").path)
}

/// The frames of a short "video": two photos, each held for three frames, 40 ms apart.
private func frames() throws -> [(image: MPImage, timestamp: Int)] {
    let a = try photo("pose/coco_000000040083.png"), b = try photo("hand/onehand10k_1402.png")
    return [a, a, a, b, b, b].enumerated().map { ($1, $0 * 40) }
}

@Suite("A task defined outside BlazeKit")
struct OutsideTaskTests {
    @Test("IMAGE mode gives exactly what the two landmarkers give")
    func imageMode() throws {
        let task = try LandmarkerTask<PoseAndHandsDefinition>(options: PoseAndHandsOptions())
        let pose = try PoseLandmarker(options: PoseLandmarkerOptions())
        let handOptions = HandLandmarkerOptions()
        handOptions.numHands = 2
        let hands = try HandLandmarker(options: handOptions)
        for name in ["pose/coco_000000040083.png", "hand/onehand10k_1402.png"] {
            let image = try photo(name)
            let result = try task.detect(image: image)
            #expect(result == PoseAndHandsResult(pose: try pose.detect(image: image), hands: try hands.detect(image: image)))
        }
        let both = try task.detect(image: try photo("pose/coco_000000040083.png"))
        #expect(both.pose.landmarks.count == 1 && both.pose.landmarks[0].count == 33, "a person in the pose photo")
        let hand = try task.detect(image: try photo("hand/onehand10k_1402.png"))
        #expect(hand.hands.landmarks.count >= 1 && hand.hands.landmarks[0].count == 21, "a hand in the hand photo")
        #expect(throws: TaskError.runningModeMismatch(method: "detect(videoFrame:timestampInMilliseconds:)", expected: .video, actual: .image)) {
            _ = try task.detect(videoFrame: try photo("pose/coco_000000040083.png"), timestampInMilliseconds: 0)
        }
    }

    @Test("VIDEO mode tracks like the two landmarkers, with the shell's timestamp rule")
    func videoMode() throws {
        let options = PoseAndHandsOptions()
        options.runningMode = .video
        options.baseOptions.threadCount = 2
        let task = try LandmarkerTask<PoseAndHandsDefinition>(options: options)
        let poseOptions = PoseLandmarkerOptions()
        poseOptions.runningMode = .video
        let pose = try PoseLandmarker(options: poseOptions)
        let handOptions = HandLandmarkerOptions()
        handOptions.runningMode = .video
        handOptions.numHands = 2
        let hands = try HandLandmarker(options: handOptions)
        for (image, t) in try frames() {
            let result = try task.detect(videoFrame: image, timestampInMilliseconds: t)
            #expect(result.pose == (try pose.detect(videoFrame: image, timestampInMilliseconds: t)), "pose at \(t) ms")
            #expect(result.hands == (try hands.detect(videoFrame: image, timestampInMilliseconds: t)), "hands at \(t) ms")
        }
        #expect(task.trackingStatistics.frames == 6)
        #expect(task.trackingStatistics.detectorRuns < 12, "tracking spares detector runs")
        #expect(throws: TaskError.nonIncreasingTimestamp(method: "detect(videoFrame:timestampInMilliseconds:)", previous: 200, actual: 200)) {
            _ = try task.detect(videoFrame: try photo("pose/coco_000000040083.png"), timestampInMilliseconds: 200)
        }
    }

    @Test("LIVE_STREAM mode delivers every result to the task's own delegate")
    func liveStreamMode() throws {
        final class Collector: PoseAndHandsDelegate, @unchecked Sendable {
            let lock = NSLock()
            let done = DispatchSemaphore(value: 0)
            var received: [(Int, PoseAndHandsResult?)] = []
            func poseAndHands(_ task: LandmarkerTask<PoseAndHandsDefinition>, didFinish result: PoseAndHandsResult?,
                              timestampInMilliseconds: Int, error: (any Error)?) {
                lock.withLock { received.append((timestampInMilliseconds, result)) }
                done.signal()
            }
        }
        let collector = Collector()
        let options = PoseAndHandsOptions()
        options.runningMode = .liveStream
        #expect(throws: TaskError.invalidOption(name: "delegate", expected: "a delegate in running mode .liveStream", actual: "nil")) {
            _ = try LandmarkerTask<PoseAndHandsDefinition>(options: options)
        }
        options.delegate = collector
        let task = try LandmarkerTask<PoseAndHandsDefinition>(options: options)
        let videoOptions = PoseAndHandsOptions()
        videoOptions.runningMode = .video
        let reference = try LandmarkerTask<PoseAndHandsDefinition>(options: videoOptions)
        var expected: [Int: PoseAndHandsResult] = [:]
        for (image, t) in try frames() {
            try task.detectAsync(image: image, timestampInMilliseconds: t)
            #expect(collector.done.wait(timeout: .now() + 60) == .success, "a callback for \(t) ms")
            expected[t] = try reference.detect(videoFrame: image, timestampInMilliseconds: t)
        }
        let received = collector.lock.withLock { collector.received }
        #expect(received.map(\.0) == [0, 40, 80, 120, 160, 200])
        for (t, result) in received { #expect(result == expected[t], "live-stream result at \(t) ms") }
    }
}

