// The Swift code of MediaPipe's iOS guides for the Pose Landmarker and the Hand Landmarker, compiled and
// run in Swift 6 language mode. Lines between `// Guide:` and `// End of guide.` are the guides' own, with
// only the changes a port makes:
// - `import MediaPipeTasksVision` becomes `import BlazeKit` (below);
// - the image source: `MPImage(uiImage:)` / `MPImage(pixelBuffer:)` / `MPImage(sampleBuffer:)` become
//   `MPImage(contentsOfFile:)` of a fixture photo.
// The guides take their settings (`numPoses`, `minPoseDetectionConfidence`, …) and `timestamp` from the
// surrounding app; here they are constants and loop variables. `Bundle.main.path(forResource:ofType:)`
// finds no `pose_landmarker.task` in a test runner and returns nil, which selects BlazeKit's built-in
// models (the same networks). Lines marked `// test:` record what happened; they stand where the guides
// leave a placeholder comment.
import BlazeKit
import Foundation
import Testing

// The app's settings, as the guides' sample app keeps them.
private let numPoses = 1
private let minPoseDetectionConfidence: Float = 0.5
private let minPosePresenceConfidence: Float = 0.5
private let minTrackingConfidence: Float = 0.5
private let numHands = 2
private let minHandDetectionConfidence: Float = 0.5
private let minHandPresenceConfidence: Float = 0.5
private let minHandTrackingConfidence: Float = 0.5

private let fixtures = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")
private let posePhoto = fixtures.appendingPathComponent("pose/mpii_052475643.png").path
private let handPhoto = fixtures.appendingPathComponent("hand/panoptic_ex2_2.flv_000040_l.png").path

/// Results a live-stream delegate received, for the test to wait on (the delegate is called on the
/// landmarker's queue).
final class ReceivedResults<Result: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [(timestamp: Int, result: Result?, error: (any Error)?)] = []

    func append(_ result: Result?, _ timestamp: Int, _ error: (any Error)?) {
        condition.lock()
        items.append((timestamp, result, error))
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `count` results arrived or `seconds` passed; returns what arrived.
    func wait(for count: Int, seconds: Double = 120) -> [(timestamp: Int, result: Result?, error: (any Error)?)] {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while items.count < count, condition.wait(until: deadline) {}
        return items
    }
}

// Guide (Pose Landmarker, live stream):
// Class that conforms to the `PoseLandmarkerLiveStreamDelegate` protocol and
// implements the method that the pose landmarker calls once it finishes
// performing pose landmark detection in each input frame.
class PoseLandmarkerResultProcessor: NSObject, PoseLandmarkerLiveStreamDelegate {
  func poseLandmarker(
    _ poseLandmarker: PoseLandmarker,
    didFinishDetection result: PoseLandmarkerResult?,
    timestampInMilliseconds: Int,
    error: Error?) {
    // Process the pose landmarker result or errors here.
    received.append(result, timestampInMilliseconds, error)   // test:
  }
  let received = ReceivedResults<PoseLandmarkerResult>()       // test:
}
// End of guide.

// Guide (Hand Landmarker, live stream):
// Class that conforms to the `HandLandmarkerLiveStreamDelegate` protocol and
// implements the method that the hand landmarker calls once it finishes
// performing landmarks detection in each input frame.
class HandLandmarkerResultProcessor: NSObject, HandLandmarkerLiveStreamDelegate {
  func handLandmarker(
    _ handLandmarker: HandLandmarker,
    didFinishDetection result: HandLandmarkerResult?,
    timestampInMilliseconds: Int,
    error: Error?) {
    // Process the hand landmarker result or errors here.
    received.append(result, timestampInMilliseconds, error)   // test:
  }
  let received = ReceivedResults<HandLandmarkerResult>()       // test:
}
// End of guide.

@Suite struct PoseLandmarkerGuideTests {
    /// The reference: the same photo through a landmarker made without the guide's code.
    static func expected() throws -> PoseLandmarkerResult {
        try PoseLandmarker(options: PoseLandmarkerOptions()).detect(image: Image(contentsOfFile: posePhoto))
    }

    @Test func imageMode() throws {
        // Guide (create the task, image):
        let modelPath = Bundle.main.path(forResource: "pose_landmarker",
                                              ofType: "task")
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .image
        options.minPoseDetectionConfidence = minPoseDetectionConfidence
        options.minPosePresenceConfidence = minPosePresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        options.numPoses = numPoses
        let poseLandmarker = try PoseLandmarker(options: options)
        // Guide (prepare the data), image source changed:
        let image = try MPImage(contentsOfFile: posePhoto)
        // Guide (run the task, image):
        let result = try poseLandmarker.detect(image: image)
        // End of guide.
        #expect(modelPath == nil)
        #expect(result.landmarks.count == 1 && result.landmarks[0].count == 33 && result.worldLandmarks[0].count == 33)
        #expect(result == (try Self.expected()))
    }

    @Test func videoMode() throws {
        // Guide (create the task, video):
        let modelPath = Bundle.main.path(forResource: "pose_landmarker",
                                              ofType: "task")
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .video
        options.minPoseDetectionConfidence = minPoseDetectionConfidence
        options.minPosePresenceConfidence = minPosePresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        options.numPoses = numPoses
        let poseLandmarker = try PoseLandmarker(options: options)
        // End of guide.
        let image = try MPImage(contentsOfFile: posePhoto)
        var results: [PoseLandmarkerResult] = []
        for timestamp in stride(from: 0, to: 200, by: 33) {
            // Guide (run the task, video):
            let result = try poseLandmarker.detect(
              videoFrame: image,
              timestampInMilliseconds: timestamp)
            // End of guide.
            results.append(result)
        }
        #expect(results.map(\.timestampInMilliseconds) == Array(stride(from: 0, to: 200, by: 33)))
        #expect(results.allSatisfy { $0.landmarks.count == 1 })
        #expect(poseLandmarker.trackingStatistics == (frames: 7, detectorRuns: 1))
        // The first frame is found by the detector, as in image mode; the smoothing filters start from it
        // (scaling to pixels and back, so within float rounding).
        #expect(maxDifference(results[0].landmarks[0], try Self.expected().landmarks[0]) < 1e-6)
    }

    @Test func liveStream() throws {
        // Guide (create the task, live stream):
        let modelPath = Bundle.main.path(forResource: "pose_landmarker",
                                              ofType: "task")
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream
        options.minPoseDetectionConfidence = minPoseDetectionConfidence
        options.minPosePresenceConfidence = minPosePresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        options.numPoses = numPoses
        // Assign an object of the class to the `poseLandmarkerLiveStreamDelegate`
        // property.
        let processor = PoseLandmarkerResultProcessor()
        options.poseLandmarkerLiveStreamDelegate = processor
        let poseLandmarker = try PoseLandmarker(options: options)
        // End of guide.
        let image = try MPImage(contentsOfFile: posePhoto)
        let timestamp = 1_000
        // Guide (run the task, live stream):
        try poseLandmarker.detectAsync(
          image: image,
          timestampInMilliseconds: timestamp)
        // End of guide.
        let received = processor.received.wait(for: 1)
        try #require(received.count == 1)
        #expect(received[0].timestamp == 1_000 && received[0].error == nil)
        #expect(maxDifference(try #require(received[0].result?.landmarks.first), try Self.expected().landmarks[0]) < 1e-6)
    }

    /// The way Google's iOS sample app uses the API: a service class (a non-final `NSObject` subclass)
    /// adopting the delegate protocol in an extension, `delegate = .GPU` (BlazeKit runs on the CPU and
    /// says so), segmentation masks, and a landmarker unaffected by later changes to its options.
    @Test func sampleAppStyle() throws {
        let service = PoseService()
        try service.start(runningMode: .liveStream)
        try service.landmarker!.detectAsync(image: MPImage(contentsOfFile: posePhoto), timestampInMilliseconds: 5)
        let received = service.received.wait(for: 1)
        try #require(received.count == 1)
        let result = try #require(received[0].result)
        #expect(result.landmarks.count == 1 && result.segmentationMasks.count == 1)
        #expect(result.segmentationMasks.first.map { ($0.width, $0.height) }! == (try Image(contentsOfFile: posePhoto)).size)
        #expect(service.landmarker!.options.baseOptions.delegate == .GPU)
        // Changing the options afterwards reaches neither the landmarker nor its copy.
        service.options.numPoses = 3
        #expect(service.landmarker!.options.numPoses == 1)
    }
}

/// A pose service shaped like the sample app's `PoseLandmarkerService`.
class PoseService: NSObject {
    var landmarker: PoseLandmarker?
    let options = PoseLandmarkerOptions()
    let received = ReceivedResults<PoseLandmarkerResult>()

    func start(runningMode: RunningMode) throws {
        options.runningMode = runningMode
        options.baseOptions.delegate = .GPU
        options.shouldOutputSegmentationMasks = true
        if runningMode == .liveStream {
            options.poseLandmarkerLiveStreamDelegate = self
        }
        landmarker = try PoseLandmarker(options: options)
    }
}

extension PoseService: PoseLandmarkerLiveStreamDelegate {
    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?) {
        received.append(result, timestampInMilliseconds, error)
    }
}

/// The largest difference in x, y, z or visibility between two landmark lists of one length.
func maxDifference(_ a: [NormalizedLandmark], _ b: [NormalizedLandmark]) -> Float {
    guard a.count == b.count else { return .infinity }
    return zip(a, b).map { max(abs($0.x - $1.x), abs($0.y - $1.y), abs($0.z - $1.z), abs(($0.visibility ?? 0) - ($1.visibility ?? 0))) }
        .max() ?? 0
}

extension Image {
    /// Width and height, for comparing with a mask's.
    var size: (Int, Int) { (width, height) }
}

@Suite struct HandLandmarkerGuideTests {
    static func expected() throws -> HandLandmarkerResult {
        let options = HandLandmarkerOptions()
        options.numHands = numHands
        return try HandLandmarker(options: options).detect(image: Image(contentsOfFile: handPhoto))
    }

    @Test func imageMode() throws {
        // Guide (create the task, image):
        let modelPath = Bundle.main.path(forResource: "hand_landmarker",
                                              ofType: "task")
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .image
        options.minHandDetectionConfidence = minHandDetectionConfidence
        options.minHandPresenceConfidence = minHandPresenceConfidence
        options.minTrackingConfidence = minHandTrackingConfidence
        options.numHands = numHands
        let handLandmarker = try HandLandmarker(options: options)
        // Guide (prepare the data), image source changed:
        let image = try MPImage(contentsOfFile: handPhoto)
        // Guide (run the task, image):
        let result = try handLandmarker.detect(image: image)
        // End of guide.
        #expect(result.landmarks.count == 2 && result.handedness.count == 2)
        #expect(Set(result.handedness.compactMap { $0.first?.categoryName }) == ["Left", "Right"])
        #expect(result == (try Self.expected()))
    }

    @Test func videoMode() throws {
        // Guide (create the task, video):
        let modelPath = Bundle.main.path(forResource: "hand_landmarker",
                                              ofType: "task")
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .video
        options.minHandDetectionConfidence = minHandDetectionConfidence
        options.minHandPresenceConfidence = minHandPresenceConfidence
        options.minTrackingConfidence = minHandTrackingConfidence
        options.numHands = numHands
        let handLandmarker = try HandLandmarker(options: options)
        // End of guide.
        let image = try MPImage(contentsOfFile: handPhoto)
        var counts: [Int] = []
        for timestamp in [0, 40, 80, 120] {
            // Guide (run the task, video):
            let result = try handLandmarker.detect(
                videoFrame: image,
                timestampInMilliseconds: timestamp)
            // End of guide.
            counts.append(result.landmarks.count)
            if timestamp == 0 { #expect(result.landmarks == (try Self.expected()).landmarks) }
        }
        #expect(counts == [2, 2, 2, 2])
        #expect(handLandmarker.trackingStatistics == (frames: 4, detectorRuns: 1))
    }

    @Test func liveStream() throws {
        // Guide (create the task, live stream):
        let modelPath = Bundle.main.path(
          forResource: "hand_landmarker",
          ofType: "task")
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = .liveStream
        options.minHandDetectionConfidence = minHandDetectionConfidence
        options.minHandPresenceConfidence = minHandPresenceConfidence
        options.minTrackingConfidence = minHandTrackingConfidence
        options.numHands = numHands
        // Assign an object of the class to the `handLandmarkerLiveStreamDelegate`
        // property.
        let processor = HandLandmarkerResultProcessor()
        options.handLandmarkerLiveStreamDelegate = processor
        let handLandmarker = try HandLandmarker(options: options)
        // End of guide.
        let image = try MPImage(contentsOfFile: handPhoto)
        let timestamp = 7
        // Guide (run the task, live stream):
        try handLandmarker.detectAsync(
          image: image,
          timestampInMilliseconds: timestamp)
        // End of guide.
        let received = processor.received.wait(for: 1)
        try #require(received.count == 1)
        #expect(received[0].timestamp == 7 && received[0].error == nil)
        #expect(received[0].result?.landmarks == (try Self.expected()).landmarks)
    }
}
