import BlazeImage
import BlazeKit
import Foundation
import Testing

private func fixture(_ path: String) throws -> Image {
    try Image(contentsOfPNGFile: Bundle.module.resourceURL!.appendingPathComponent("Fixtures/\(path)").path)
}

/// Records live-stream callbacks (any thread) behind a lock.
final class StreamRecorder: PoseLandmarkerLiveStreamDelegate, HandLandmarkerLiveStreamDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(timestamp: Int, resultTimestamp: Int?, count: Int?, failed: Bool, onSubmitter: Bool)] = []
    let submitter = Thread.current

    var timestamps: [Int] { lock.withLock { entries.map(\.timestamp) } }
    var all: [(timestamp: Int, resultTimestamp: Int?, count: Int?, failed: Bool, onSubmitter: Bool)] { lock.withLock { entries } }

    private func record(_ t: Int, _ resultT: Int?, _ count: Int?, _ error: (any Error)?) {
        let on = Thread.current == submitter
        lock.withLock { entries.append((t, resultT, count, error != nil, on)) }
    }

    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?) {
        record(timestampInMilliseconds, result?.timestampInMilliseconds, result?.landmarks.count, error)
    }

    func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?) {
        record(timestampInMilliseconds, result?.timestampInMilliseconds, result?.landmarks.count, error)
    }

    /// Waits until a callback for `timestamp` arrived (or `seconds` pass).
    func wait(for timestamp: Int, seconds: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if timestamps.contains(timestamp) { return true }
            usleep(2000)
        }
        return false
    }
}

@Suite(.serialized) struct RunningModeTests {
    @Test func eachMethodNeedsItsRunningMode() throws {
        let photo = try fixture("pose/mpii_052475643.png")
        let recorder = StreamRecorder()
        for mode in RunningMode.allCases {
            let options = PoseLandmarkerOptions()
            options.runningMode = mode
            if mode == .liveStream { options.poseLandmarkerLiveStreamDelegate = recorder }
            let landmarker = try PoseLandmarker(options: options)
            if mode != .image {
                #expect(throws: TaskError.runningModeMismatch(method: "detect(image:)", expected: .image, actual: mode)) {
                    try landmarker.detect(image: photo)
                }
            }
            if mode != .video {
                #expect(throws: TaskError.runningModeMismatch(method: "detect(videoFrame:timestampInMilliseconds:)", expected: .video,
                                                              actual: mode)) {
                    try landmarker.detect(videoFrame: photo, timestampInMilliseconds: 0)
                }
            }
            if mode != .liveStream {
                #expect(throws: TaskError.runningModeMismatch(method: "detectAsync(image:timestampInMilliseconds:)",
                                                              expected: .liveStream, actual: mode)) {
                    try landmarker.detectAsync(image: photo, timestampInMilliseconds: 0)
                }
            }
        }
        let hand = HandLandmarkerOptions()
        hand.runningMode = .video
        let hands = try HandLandmarker(options: hand)
        #expect(throws: TaskError.runningModeMismatch(method: "detect(image:)", expected: .image, actual: .video)) {
            try hands.detect(image: photo)
        }
    }

    @Test func liveStreamNeedsADelegateAndOtherModesRefuseOne() throws {
        let recorder = StreamRecorder()
        let pose = PoseLandmarkerOptions()
        pose.runningMode = .liveStream
        #expect(throws: TaskError.invalidOption(name: "poseLandmarkerLiveStreamDelegate",
                                                expected: "a delegate in running mode .liveStream", actual: "nil")) {
            try pose.validate()
        }
        pose.runningMode = .video
        pose.poseLandmarkerLiveStreamDelegate = recorder
        #expect(throws: TaskError.invalidOption(name: "poseLandmarkerLiveStreamDelegate",
                                                expected: "nil in running mode .video", actual: "a delegate")) {
            try PoseLandmarker(options: pose)
        }
        let hand = HandLandmarkerOptions()
        hand.runningMode = .liveStream
        #expect(throws: TaskError.invalidOption(name: "handLandmarkerLiveStreamDelegate",
                                                expected: "a delegate in running mode .liveStream", actual: "nil")) {
            try HandLandmarker(options: hand)
        }
        hand.handLandmarkerLiveStreamDelegate = recorder
        try hand.validate()
    }

    @Test func timestampsMustIncreaseStrictly() throws {
        let photo = try fixture("hand/onehand10k_1402.png")
        let options = HandLandmarkerOptions()
        options.runningMode = .video
        let landmarker = try HandLandmarker(options: options)
        let first = try landmarker.detect(videoFrame: photo, timestampInMilliseconds: 100)
        #expect(first.timestampInMilliseconds == 100)
        for bad in [100, 99, -5] {
            #expect(throws: TaskError.nonIncreasingTimestamp(method: "detect(videoFrame:timestampInMilliseconds:)", previous: 100,
                                                             actual: bad)) {
                try landmarker.detect(videoFrame: photo, timestampInMilliseconds: bad)
            }
        }
        let message = "\(TaskError.nonIncreasingTimestamp(method: "m", previous: 100, actual: 99))"
        #expect(message.contains("100") && message.contains("99"))

        let recorder = StreamRecorder()
        let live = HandLandmarkerOptions()
        live.runningMode = .liveStream
        live.handLandmarkerLiveStreamDelegate = recorder
        let stream = try HandLandmarker(options: live)
        try stream.detectAsync(image: photo, timestampInMilliseconds: 7)
        #expect(throws: TaskError.nonIncreasingTimestamp(method: "detectAsync(image:timestampInMilliseconds:)", previous: 7, actual: 7)) {
            try stream.detectAsync(image: photo, timestampInMilliseconds: 7)
        }
        #expect(recorder.wait(for: 7))
    }

    /// A real sequence: a fixture photo panned and zoomed over 6 frames.
    @Test func videoTracksThePoseAndRunsTheDetectorOnce() throws {
        let camera = PanZoomSequence(source: try fixture("pose/mpii_052475643.png"), width: 480, height: 360, frameCount: 6,
                                     startCenter: SIMD2(0.5, 0.5), endCenter: SIMD2(0.53, 0.47), startZoom: 1, endZoom: 1.3)
        let frames = try (0..<camera.frameCount).map { try camera.frame($0) }
        for numPoses in [1, 2] {
            let options = PoseLandmarkerOptions()
            options.numPoses = numPoses
            let still = try PoseLandmarker(options: options)
            options.runningMode = .video
            let video = try PoseLandmarker(options: options)
            var expectedRuns = 0
            var previousCount = 0
            for (i, frame) in frames.enumerated() {
                if previousCount < numPoses { expectedRuns += 1 }
                let tracked = try video.detect(videoFrame: frame, timestampInMilliseconds: i * 40)
                previousCount = tracked.landmarks.count
                let single = try still.detect(image: frame)
                // This photo also holds a faint second detection, found with numPoses 2 in both modes.
                try #require(!tracked.landmarks.isEmpty && !single.landmarks.isEmpty, "frame \(i)")
                if numPoses == 1 { #expect(tracked.landmarks.count == 1 && single.landmarks.count == 1) }
                #expect(tracked.timestampInMilliseconds == i * 40)
                // Tracking crops around the previous frame's landmarks and (one pose) smooths them, so the
                // answer differs from a fresh detection of the same person by a few pixels at most.
                let distances = single.landmarks.map { other in
                    zip(tracked.landmarks[0], other).map { abs($0.x - $1.x) + abs($0.y - $1.y) }.reduce(0, +) / Float(2 * other.count)
                }
                #expect(distances.min()! < 0.01, "frame \(i), numPoses \(numPoses): \(distances)")
                // IDs (BlazeKit's addition) only in video mode, one per pose; the person keeps ID 1.
                #expect(single.ids.isEmpty && tracked.ids.count == tracked.landmarks.count && tracked.ids[0] == 1, "frame \(i)")
            }
            let stats = video.trackingStatistics
            #expect(stats.frames == frames.count)
            // The detector runs on a frame only when the previous one gave fewer than numPoses poses: with one
            // pose just on the first frame.
            #expect(stats.detectorRuns == expectedRuns)
            if numPoses == 1 { #expect(stats.detectorRuns == 1) }
        }
    }

    @Test func videoTracksAHandAndAnEmptyFrameGivesAnEmptyResult() throws {
        let camera = PanZoomSequence(source: try fixture("hand/onehand10k_1402.png"), width: 320, height: 400, frameCount: 6,
                                     endCenter: SIMD2(0.48, 0.52), endZoom: 1.15)
        let options = HandLandmarkerOptions()
        options.runningMode = .video
        let video = try HandLandmarker(options: options)
        for i in 0..<camera.frameCount {
            let result = try video.detect(videoFrame: camera.frame(i), timestampInMilliseconds: 1000 + i * 33)
            #expect(result.landmarks.count == 1 && result.handedness[0][0].categoryName == "Right", "frame \(i)")
            #expect(result.ids == [1], "frame \(i)")
        }
        #expect(video.trackingStatistics.detectorRuns == 1)
        let grey = try Image(rgb: [UInt8](repeating: 128, count: 320 * 400 * 3), width: 320, height: 400)
        let empty = try video.detect(videoFrame: grey, timestampInMilliseconds: 2000)
        #expect(empty.landmarks.isEmpty && empty.timestampInMilliseconds == 2000)
        // The grey frame was cropped at the tracked region (no detector), the hand was lost there, so the
        // next frame runs the detector again.
        #expect(video.trackingStatistics.detectorRuns == 1)
        let found = try video.detect(videoFrame: camera.frame(0), timestampInMilliseconds: 2033)
        #expect(video.trackingStatistics.detectorRuns == 2 && found.landmarks.count == 1)
        // One frame unseen is within the absence window: the hand keeps its ID. After a reset it gets a new
        // one, never ID 1 again.
        #expect(empty.ids.isEmpty && found.ids == [1])
        video.resetTracking()
        #expect(try video.detect(videoFrame: camera.frame(1), timestampInMilliseconds: 2066).ids == [2])
    }

    @Test func identityOptionsOutOfRangeAreNamedAtCreation() throws {
        let options = HandLandmarkerOptions()
        options.identity.minSimilarity = 2
        #expect(throws: TaskError.invalidOption(name: "identity.minSimilarity", expected: "a value in [0, 1]", actual: "2.0")) {
            try HandLandmarker(options: options)
        }
        let pose = PoseLandmarkerOptions()
        pose.identity.maxAbsentFrames = -3
        #expect(throws: TaskError.invalidOption(name: "identity.maxAbsentFrames", expected: "≥ 0", actual: "-3")) {
            try PoseLandmarker(options: pose)
        }
        // The options are copied with the rest.
        #expect(options.copy().identity == options.identity)
    }

    @Test func liveStreamAnswersInOrderDropsWhileBusyAndReturnsAtOnce() throws {
        let photo = try fixture("pose/mpii_052475643.png")
        let grey = try Image(rgb: [UInt8](repeating: 128, count: 64 * 48 * 3), width: 64, height: 48)
        let recorder = StreamRecorder()
        let options = PoseLandmarkerOptions()
        options.runningMode = .liveStream
        options.poseLandmarkerLiveStreamDelegate = recorder
        let landmarker = try PoseLandmarker(options: options)
        let start = Date()
        for i in 0..<30 { try landmarker.detectAsync(image: i == 29 ? grey : photo, timestampInMilliseconds: i * 10) }
        let submitting = Date().timeIntervalSince(start)
        #expect(recorder.wait(for: 290))
        usleep(200_000)
        let calls = recorder.all
        #expect(submitting < 0.5, "30 submissions took \(submitting) s")
        #expect(calls.count < 30 && calls.count >= 2, "\(calls.count) callbacks")          // frames were dropped
        #expect(zip(calls, calls.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })  // in order
        #expect(calls.allSatisfy { !$0.failed && $0.resultTimestamp == $0.timestamp && !$0.onSubmitter })
        #expect(calls.first?.timestamp == 0)                                                // the first frame starts at once
        #expect(calls.last?.timestamp == 290 && calls.last?.count == 0)                     // nothing found: an empty result
        #expect(calls.dropLast().allSatisfy { $0.count == 1 })
    }

    @Test func releasingTheLandmarkerOrTheDelegateWithFramesInFlightIsSafe() throws {
        let photo = try fixture("hand/onehand10k_1402.png")
        var recorder: StreamRecorder? = StreamRecorder()
        let weakRecorder = WeakBox(recorder!)
        let options = HandLandmarkerOptions()
        options.runningMode = .liveStream
        options.handLandmarkerLiveStreamDelegate = recorder
        var landmarker: HandLandmarker? = try HandLandmarker(options: options)
        for i in 0..<5 { try landmarker!.detectAsync(image: photo, timestampInMilliseconds: i) }
        recorder = nil                 // the delegate goes first: no call may reach it
        #expect(weakRecorder.value == nil)
        usleep(300_000)
        landmarker = nil

        let keeper = StreamRecorder()
        options.handLandmarkerLiveStreamDelegate = keeper
        var second: HandLandmarker? = try HandLandmarker(options: options)
        for i in 0..<5 { try second!.detectAsync(image: photo, timestampInMilliseconds: i) }
        let released = Date()
        second = nil                   // the landmarker goes while frames are queued: it waits for the frame in
                                       // flight (no inference outlives it), drops the queued ones, no deadlock
        #expect(Date().timeIntervalSince(released) < 20)
        usleep(300_000)
        let settled = keeper.all.count
        usleep(300_000)
        #expect(keeper.all.count == settled && settled <= 1)
    }
}

final class WeakBox<T: AnyObject>: @unchecked Sendable {
    weak var value: T?
    init(_ value: T) { self.value = value }
}
