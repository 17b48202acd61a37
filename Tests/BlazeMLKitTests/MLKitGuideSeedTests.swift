// Every Swift snippet of ML Kit's iOS pose-detection guide ("Обнаружение поз с помощью ML Kit на iOS", the
// Russian edition; its Swift blocks are headed "Быстрый"), compiled in Swift 6 mode and run on a photo of
// Tests/BlazeKitTests/Fixtures. Each snippet sits in its own function below, between `// Guide:` and
// `// End of guide.` The guide's code is kept as written except for:
//
// Port changes (the ones BlazeKit asks of every port):
//   P1. The guide's snippets carry no import; where an iOS app imports MLKit this file imports BlazeMLKit
//       (and BlazeKit, for `Image`, where an app imports UIKit).
//   P2. Image source. The `UIImage` is a BlazeKit `Image` read with `Image(contentsOfFile:)`
//       (`image.imageOrientation` compiles: BlazeMLKit gives `Image` UIImage's name for its orientation); the camera's
//       `CMSampleBuffer` of `VisionImage(buffer: sampleBuffer)` is a BlazeKit `Image` holding the frame's
//       raw pixels, so that line reads `VisionImage(image: frame)` (BlazeMLKit has no `VisionImage(buffer:)`:
//       Linux has no `CMSampleBuffer`, and any frame becomes an `Image`, e.g. through
//       `Image(pixels:width:height:bytesPerRow:format: .bgra8)`).
//   P3. `UIDeviceOrientation`, `UIDevice.current`, `AVCaptureDevice.Position` and `UIImage.Orientation` are
//       iOS types the guide's `imageOrientation(deviceOrientation:cameraPosition:)` uses; the small stand-ins
//       below (test-local, not part of BlazeMLKit) let that function compile unchanged. `UIImage.Orientation`
//       is BlazeKit's `ImageOrientation`, which has the same eight cases, mirrored ones included.
//
// Obvious typos in the guide, corrected:
//   T1. `let image = VisionImage(image: UIImage)` / `visionImage.orientation = image.imageOrientation`
//       passes the type `UIImage` as the value and names the result `image`, then uses `visionImage`; read as
//       `let visionImage = VisionImage(image: image)`, `image` being the photo.
//   T2. `var results: [Pose]` followed by `guard let detectedPoses = results` (binding a non-optional does not
//       compile): read as `var results: [Pose]?`.
//   T3. In the completion of `process(_:completion:)`, `guard !detectedPoses.isEmpty` on the `[Pose]?` the
//       completion receives (ML Kit's callback type, kept by BlazeMLKit): read as
//       `guard let detectedPoses, !detectedPoses.isEmpty`.
//
// Not changes: the options block declares `let options` twice because it shows two alternatives (one per
// pod), so each alternative is its own function. The guide's placeholders (`// Success. Get pose landmarks
// here.`, `// Error.`, `// No pose detected.`, and the empty end of the landmark loop) are where an app puts
// its own code: the step-4 landmark loop goes at the success placeholders, and lines marked `// test:`
// record what happened there.

import BlazeKit
import BlazeMLKit
import Foundation
import Testing

// MARK: - Stand-ins for the iOS device types (P3)

/// UIKit's `UIDeviceOrientation`: how the device is held.
enum UIDeviceOrientation: CaseIterable, Sendable {
    case unknown, portrait, portraitUpsideDown, landscapeLeft, landscapeRight, faceUp, faceDown
}

/// UIKit's `UIDevice`, only `UIDevice.current.orientation`; a test sets `current` for the code it runs.
struct UIDevice: Sendable {
    var orientation: UIDeviceOrientation
    @TaskLocal static var current = UIDevice(orientation: .unknown)
}

/// AVFoundation's `AVCaptureDevice`, only its `Position`.
enum AVCaptureDevice {
    enum Position: CaseIterable, Sendable { case unspecified, back, front }
}

/// UIKit's `UIImage`, only its `Orientation`, which is BlazeKit's `ImageOrientation`.
enum UIImage {
    typealias Orientation = ImageOrientation
}

// MARK: - The guide's snippets

/// Step 1, the base alternative: "Base pose detector with streaming".
func guideBaseOptions() -> CommonPoseDetectorOptions {
    // Guide:
    // Base pose detector with streaming, when depending on the PoseDetection SDK
    let options = PoseDetectorOptions()
    options.detectorMode = .stream
    // End of guide.
    return options
}

/// Step 1, the accurate alternative: "Accurate pose detector on static images".
func guideAccurateOptions() -> CommonPoseDetectorOptions {
    // Guide:
    // Accurate pose detector on static images, when depending on the
    // PoseDetectionAccurate SDK
    let options = AccuratePoseDetectorOptions()
    options.detectorMode = .singleImage
    // End of guide.
    return options
}

/// Step 1, getting the detector.
func guideDetector(_ options: CommonPoseDetectorOptions) -> PoseDetector {
    // Guide:
    let poseDetector = PoseDetector.poseDetector(options: options)
    // End of guide.
    return poseDetector
}

/// Step 2 for a photo (T1).
func guideVisionImage(_ image: Image) -> VisionImage {
    // Guide:
    let visionImage = VisionImage(image: image)
    visionImage.orientation = image.imageOrientation
    // End of guide.
    return visionImage
}

// Step 2 for camera frames: the guide's function, unchanged (P3).
// Guide:
func imageOrientation(
  deviceOrientation: UIDeviceOrientation,
  cameraPosition: AVCaptureDevice.Position
) -> UIImage.Orientation {
  switch deviceOrientation {
  case .portrait:
    return cameraPosition == .front ? .leftMirrored : .right
  case .landscapeLeft:
    return cameraPosition == .front ? .downMirrored : .up
  case .portraitUpsideDown:
    return cameraPosition == .front ? .rightMirrored : .left
  case .landscapeRight:
    return cameraPosition == .front ? .upMirrored : .down
  case .faceDown, .faceUp, .unknown:
    return .up
  }
}
// End of guide.

/// Step 2 for a camera frame (P2: `frame` stands for the sample buffer).
func guideVisionImage(frame: Image, cameraPosition: AVCaptureDevice.Position) -> VisionImage {
    // Guide:
    let image = VisionImage(image: frame)
    image.orientation = imageOrientation(
      deviceOrientation: UIDevice.current.orientation,
      cameraPosition: cameraPosition)
    // End of guide.
    return image
}

/// What the guide's code reached, recorded by the `// test:` lines.
struct GuideOutcome: Sendable, Equatable {
    /// The poses at the success placeholder, or nil if the code returned before it.
    var detectedPoses: [Pose]?
    /// The left-ankle positions the landmark loop kept (`inFrameLikelihood > 0.5`).
    var leftAnklePositions: [Vision3DPoint] = []
    /// Whether the error placeholder (async) was reached.
    var reachedError = false
}

/// What the completion of `process(_:completion:)` reached, and whether it ran on the main queue.
struct GuideDelivery: Sendable {
    var outcome: GuideOutcome
    var onMainQueue = isOnMainQueue()
    init(_ outcome: GuideOutcome) { self.outcome = outcome }
}

/// Step 3, synchronous (T2), with step 4 at its success placeholder.
func guideSyncDetection(_ poseDetector: PoseDetector, _ image: VisionImage, _ outcome: inout GuideOutcome) {
    // Guide:
    var results: [Pose]?
    do {
      results = try poseDetector.results(in: image)
    } catch let error {
      print("Failed to detect pose with error: \(error.localizedDescription).")
      return
    }
    guard let detectedPoses = results, !detectedPoses.isEmpty else {
      print("Pose detector returned no results.")
      return
    }

    // Success. Get pose landmarks here.
    outcome.detectedPoses = detectedPoses                                   // test:
    for pose in detectedPoses {
      let leftAnkleLandmark = pose.landmark(ofType: .leftAnkle)
      if leftAnkleLandmark.inFrameLikelihood > 0.5 {
        let position = leftAnkleLandmark.position
        outcome.leftAnklePositions.append(position)                         // test:
      }
    }
    // End of guide.
}

/// Step 3, asynchronous (T3), with step 4 at its success placeholder; `done` receives what was reached.
func guideAsyncDetection(_ poseDetector: PoseDetector, _ image: VisionImage,
                         _ done: @escaping @Sendable (GuideDelivery) -> Void) {
    // Guide:
    poseDetector.process(image) { detectedPoses, error in
      guard error == nil else {
        // Error.
        done(GuideDelivery(GuideOutcome(reachedError: true)))               // test:
        return
      }
      guard let detectedPoses, !detectedPoses.isEmpty else {
        // No pose detected.
        done(GuideDelivery(GuideOutcome()))                                 // test:
        return
      }

      // Success. Get pose landmarks here.
      var outcome = GuideOutcome(detectedPoses: detectedPoses)              // test:
      for pose in detectedPoses {
        let leftAnkleLandmark = pose.landmark(ofType: .leftAnkle)
        if leftAnkleLandmark.inFrameLikelihood > 0.5 {
          let position = leftAnkleLandmark.position
          outcome.leftAnklePositions.append(position)                       // test:
        }
      }
      done(GuideDelivery(outcome))                                          // test:
    }
    // End of guide.
}

// MARK: - Harness

/// A tag on the main queue. `Thread.isMainThread` cannot tell whether code runs on the main queue: on
/// Linux, once the main thread has called `dispatchMain()` (as an `async` main does, and so does the test
/// runner) the main queue is drained by a worker thread.
private let mainQueueTag: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// Whether the caller runs on the main queue.
func isOnMainQueue() -> Bool { DispatchQueue.getSpecific(key: mainQueueTag) == true }

/// A photo of Tests/BlazeKitTests/Fixtures, read by path with `Image(contentsOfFile:)` (P2).
func seedPhoto(_ name: String = "pose/mpii_052475643.png", filePath: String = #filePath) throws -> Image {
    let tests = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
    return try Image(contentsOfFile: tests.appendingPathComponent("BlazeKitTests/Fixtures/\(name)").path)
}

/// Resumes a continuation once, from whichever of several threads comes first.
final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T?, Never>?   // guarded by `lock`
    init(_ continuation: CheckedContinuation<T?, Never>) { self.continuation = continuation }
    func resume(_ value: T?) {
        let taken = lock.withLock { () -> CheckedContinuation<T?, Never>? in
            defer { continuation = nil }
            return continuation
        }
        taken?.resume(returning: value)
    }
}

/// Waits until `start` hands a value to its callback, or `seconds` pass (then `nil`), suspending rather
/// than blocking: a main-queue callback can run while a `@MainActor` caller waits here, and a callback
/// that never comes fails the test instead of hanging `swift test`. `start` runs at once, in the caller's
/// isolation.
func waitForCallback<T: Sendable>(isolation: isolated (any Actor)? = #isolation, seconds: Double,
                                  _ start: (@escaping @Sendable (T) -> Void) -> Void) async -> T? {
    await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<T?, Never>) in
        let once = ResumeOnce(continuation)
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { once.resume(nil) }
        start { once.resume($0) }
    }
}

/// The two option alternatives of step 1 and the BlazePose model each stands for.
enum GuideVariant: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case base, accurate
    var options: CommonPoseDetectorOptions { self == .base ? guideBaseOptions() : guideAccurateOptions() }
    var model: PoseLandmarkerModel { self == .base ? .lite : .full }
    var testDescription: String { rawValue }
}

@Suite(.serialized) struct MLKitGuideSeedTests {
    let photo: Image
    /// The same photo through BlazeKit's `PoseLandmarker` in image mode, per model: what BlazeMLKit maps.
    func landmarkerAnkle(_ model: PoseLandmarkerModel) throws -> (position: Vision3DPoint, presence: Float) {
        let o = PoseLandmarkerOptions()
        o.model = model
        let landmarks = try PoseLandmarker(options: o).detect(image: photo).landmarks
        try #require(landmarks.count == 1)
        let ankle = landmarks[0][PoseLandmarkName.leftAnkle.rawValue]
        return (Vision3DPoint(x: CGFloat(ankle.x) * CGFloat(photo.width), y: CGFloat(ankle.y) * CGFloat(photo.height),
                              z: CGFloat(ankle.z) * CGFloat(photo.width)), ankle.presence ?? -1)
    }

    init() throws { photo = try seedPhoto() }

    @Test func theOptionsSnippetsSetTheModeOnAClass() {
        #expect(guideBaseOptions() is PoseDetectorOptions)
        #expect(guideBaseOptions().detectorMode == .stream)
        #expect(guideAccurateOptions() is AccuratePoseDetectorOptions)
        #expect(guideAccurateOptions().detectorMode == .singleImage)
        #expect(guideDetector(guideBaseOptions()).mode == .stream)
        #expect(guideDetector(guideAccurateOptions()).mode == .singleImage)
    }

    @Test(arguments: GuideVariant.allCases)
    func theSyncPathFindsThePersonAndTheLeftAnkle(_ variant: GuideVariant) throws {
        let poseDetector = guideDetector(variant.options)
        var outcome = GuideOutcome()
        guideSyncDetection(poseDetector, guideVisionImage(photo), &outcome)

        let poses = try #require(outcome.detectedPoses, "the guide's code did not reach its success placeholder")
        #expect(poses.count == 1)
        try #require(outcome.leftAnklePositions.count == 1, "the left ankle was not kept as in frame")
        let found = outcome.leftAnklePositions[0]
        let expected = try landmarkerAnkle(variant.model)
        #expect(expected.presence > 0.5)
        switch variant {
        case .accurate:
            // Single-image mode is PoseLandmarker's image mode on the same pixels: the same numbers.
            #expect(found == expected.position)
        case .base:
            // Stream mode is its video mode; the first frame may be smoothed, so allow 1 % of the width.
            #expect(abs(found.x - expected.position.x) < 0.01 * CGFloat(photo.width), "\(found) vs \(expected.position)")
            #expect(abs(found.y - expected.position.y) < 0.01 * CGFloat(photo.width), "\(found) vs \(expected.position)")
        }
        // The person stands in the photo: the ankle is inside it, in its lower half.
        #expect(found.x > 0 && found.x < CGFloat(photo.width))
        #expect(found.y > CGFloat(photo.height) / 2 && found.y < CGFloat(photo.height))
    }

    @Test func theSyncPathReturnsBeforeTheSuccessPlaceholderWhenNobodyIsThere() throws {
        let grey = try Image(rgb: [UInt8](repeating: 128, count: 320 * 240 * 3), width: 320, height: 240)
        var outcome = GuideOutcome()
        guideSyncDetection(guideDetector(guideAccurateOptions()), guideVisionImage(grey), &outcome)
        #expect(outcome == GuideOutcome())
    }

    @Test func theSyncPathReturnsOnAnError() {
        let options = guideBaseOptions()
        options.threadCount = 0   // rejected by the landmarker: every call throws
        var outcome = GuideOutcome()
        guideSyncDetection(guideDetector(options), guideVisionImage(photo), &outcome)
        #expect(outcome == GuideOutcome())
    }

    @Test(arguments: GuideVariant.allCases) @MainActor
    func theAsyncPathCallsBackOnTheMainQueueWithTheSyncResult(_ variant: GuideVariant) async throws {
        // Fresh detectors for both, so in stream mode each sees the photo as its first frame.
        var sync = GuideOutcome()
        guideSyncDetection(guideDetector(variant.options), guideVisionImage(photo), &sync)
        try #require(sync.detectedPoses?.count == 1)

        let poseDetector = guideDetector(variant.options)
        let image = guideVisionImage(photo)
        let delivered = await waitForCallback(seconds: 600) { done in guideAsyncDetection(poseDetector, image, done) }
        let delivery = try #require(delivered, "the completion was not called within 600 s")
        #expect(delivery.onMainQueue)
        #expect(delivery.outcome == sync)
    }

    @Test @MainActor func theAsyncPathReachesTheErrorPlaceholder() async throws {
        let options = guideAccurateOptions()
        options.threadCount = 65
        let poseDetector = guideDetector(options)
        let image = guideVisionImage(photo)
        let delivered = await waitForCallback(seconds: 600) { done in guideAsyncDetection(poseDetector, image, done) }
        let delivery = try #require(delivered, "the completion was not called within 600 s")
        #expect(delivery.onMainQueue)
        #expect(delivery.outcome == GuideOutcome(reachedError: true))
    }

    @Test func theOrientationFunctionGivesAllEightOrientationsAndTheDetectorHandlesEach() throws {
        // The guide's function maps the device and camera to every orientation, the four mirrored ones
        // (front camera) included.
        var returned: Set<ImageOrientation> = []
        for device in UIDeviceOrientation.allCases {
            for camera in AVCaptureDevice.Position.allCases {
                returned.insert(imageOrientation(deviceOrientation: device, cameraPosition: camera))
            }
        }
        #expect(returned == Set(ImageOrientation.allCases))

        // Each (device, camera) pair: a camera frame whose raw pixels display as the photo under the
        // orientation the function returns; the detector must find exactly the pose of the upright photo.
        let poseDetector = guideDetector(guideAccurateOptions())
        let upright = try poseDetector.results(in: VisionImage(image: photo))
        try #require(upright.count == 1)
        for device in UIDeviceOrientation.allCases {
            for camera in AVCaptureDevice.Position.allCases {
                let orientation = imageOrientation(deviceOrientation: device, cameraPosition: camera)
                var frame = try stored(photo, displayedWith: orientation)
                frame.orientation = .up   // a raw camera buffer carries no orientation of its own
                if orientation != .up { #expect(frame.pixels != photo.pixels) }
                let image = UIDevice.$current.withValue(UIDevice(orientation: device)) {
                    guideVisionImage(frame: frame, cameraPosition: camera)
                }
                #expect(image.orientation == orientation)
                #expect(try poseDetector.results(in: image) == upright, "\(device), \(camera): \(orientation)")
            }
        }
    }

    @Test func thePhotoSnippetUsesThePhotosOwnOrientation() throws {
        // A photo stored turned (as a JPEG whose EXIF tag says `right`): the snippet's
        // `visionImage.orientation = image.imageOrientation` makes the detector see it upright.
        let poseDetector = guideDetector(guideAccurateOptions())
        let upright = try poseDetector.results(in: VisionImage(image: photo))
        let turned = try stored(photo, displayedWith: .right)
        #expect(turned.imageOrientation == .right && turned.width == photo.height)
        let visionImage = guideVisionImage(turned)
        #expect(visionImage.orientation == .right)
        #expect(try poseDetector.results(in: visionImage) == upright)
    }
}
