// Every Swift snippet of the Vision body-pose tutorial (/work/shared/seeds/004_e829598802ca7778.txt, "[iOS]
// WWDC2020で紹介されたVision frameworkのbody pose検出を使ってみる"), compiled in Swift 6 mode and run on photos.
//
// Changes to the tutorial's lines: `import Vision` → `import BlazeVision`; `VNImageRequestHandler(cgImage:)` →
// `VNImageRequestHandler(image:)`; in the first snippet `recongnizedPoints` → `recognizedPoints` and the `try` its
// throwing calls need (Vision's methods throw too). The app around the snippets — UIKit's view controller and image
// view, the CGImage frames and their `drawPoints`, the AVFoundation capture delegate — is replaced by the small
// stand-ins below; no line that touches Vision's API is changed. As in UIKit, the view controller is isolated to
// the main actor, which is what lets the tutorial's `DispatchQueue.main.async { self… }` compile in Swift 6; its
// methods are still handed to `VNDetectHumanBodyPoseRequest(completionHandler:)` as they are.
// (RecognizedPointsTests does the same with a plain, non-isolated class.)

import BlazeKit
import BlazeTestSupport
import BlazeVision
import Foundation
import Testing

// MARK: - Stand-ins for the app (UIKit, CoreGraphics, AVFoundation), not part of the tutorial

/// The tutorial's frames are `CGImage`s; a BlazeKit image plays that part (it has `width` and `height` too).
fileprivate typealias CGImage = Image

/// What the app shows: the frame and the points drawn on it.
fileprivate struct UIImage: Sendable {
    let cgImage: CGImage
    var drawnPoints: [CGPoint] = []
    init(cgImage: CGImage) { self.cgImage = cgImage }
}

/// The preview the tutorial updates on the main queue.
@MainActor fileprivate final class UIImageView {
    var image: UIImage?
}

fileprivate extension CGImage {
    /// The tutorial's helper that draws dots on the frame; here it records them.
    func drawPoints(points: [CGPoint]) -> UIImage {
        var image = UIImage(cgImage: self)
        image.drawnPoints = points
        return image
    }
}

@MainActor fileprivate protocol VideoCaptureDelegate: AnyObject {
    func videoCapture(_ videoCapture: VideoCapture, didCaptureFrame image: CGImage?)
}

/// Stands in for the tutorial's `VideoCapture` and its `AVCaptureVideoDataOutputSampleBufferDelegate`: it
/// "captures" the frames it was given, handing each to the delegate on the main actor, as the tutorial's
/// `captureOutput(_:didOutput:from:)` does with `DispatchQueue.main.sync`.
@MainActor fileprivate final class VideoCapture {
    weak var delegate: VideoCaptureDelegate?
    private let frames: [CGImage?]
    init(frames: [CGImage?]) { self.frames = frames }

    func setUpAVCapture(completion: @escaping (Error?) -> Void) { completion(nil) }
    func startCapturing() {
        guard let delegate = delegate else { return }
        for frame in frames { delegate.videoCapture(self, didCaptureFrame: frame) }
    }
}

/// UIKit's base class, as far as the tutorial uses it (main-actor isolated, as UIKit's is).
@MainActor fileprivate class UIViewController {
    func viewDidLoad() {}
}

// MARK: - The tutorial's view controller

fileprivate class ViewController: UIViewController {
    // The app's own state, which the tutorial's snippets use but do not show.
    let videoCapture: VideoCapture
    var currentFrame: CGImage?
    let previewImageView = UIImageView()
    init(frames: [CGImage?]) { videoCapture = VideoCapture(frames: frames) }

    // 利用者側でのカメラのセットアップです。
    // MARK: Private methods
    override func viewDidLoad() {
        super.viewDidLoad()
        videoCapture.setUpAVCapture(completion: handleSetUpCompletion(_:))
    }

    // ユーザー定義のestimate(from:)でVisionによる画像の分析を行っています。
    private var imageSize = CGSize.zero

    func estimate(from cgImage: CGImage) {
        imageSize = CGSize(width: cgImage.width, height: cgImage.height)
        let requestHandler = VNImageRequestHandler(image: cgImage)
        let request = VNDetectHumanBodyPoseRequest(completionHandler: handleBodyPoseDetection)

        do {
            try requestHandler.perform([request])
        } catch {
            print("Request cannot perform because \(error)")
        }
    }

    // VNDetectHumanBodyPoseRequestに渡しているcompletionHandlerの実装は以下です。
    func handleBodyPoseDetection(request: VNRequest, error: Error?) {
        guard let observations = request.results as? [VNRecognizedPointsObservation] else { return }

        if observations.count == 0 {
            guard let currentFrame = currentFrame else { return }
            let image = UIImage(cgImage: currentFrame)
            DispatchQueue.main.async {
                self.previewImageView.image = image
            }
        } else {
            observations.forEach { processObservation($0) }
        }
    }

    func processObservation(_ observation: VNRecognizedPointsObservation) {
        guard let recognizedPoints =
                try? observation.recognizedPoints(forGroupKey: .all) else {
            return
        }

        let imagePoints: [CGPoint] = recognizedPoints.values.compactMap {
            guard $0.confidence > 0 else { return nil}
            return VNImagePointForNormalizedPoint($0.location, Int(imageSize.width), Int(imageSize.height))
        }

        let image = currentFrame?.drawPoints(points: imagePoints)
        DispatchQueue.main.async {
            self.previewImageView.image = image
        }
    }
}

private extension ViewController {
    func handleSetUpCompletion(_ error: Error?) {
        guard let error = error else {
            videoCapture.delegate = self
            videoCapture.startCapturing()
            return
        }
        print("Error詳細: \(error)")
    }
}

// フレームごとの処理をVisionで利用するコードです。
// MARK: Conform VideoCaptureDelegate
extension ViewController: VideoCaptureDelegate {
    func videoCapture(_ videoCapture: VideoCapture, didCaptureFrame image: CGImage?) {
        guard let image = image else {
            print("Can not captured")
            return
        }
        currentFrame = image
        estimate(from: image)
    }
}

// MARK: - Running it

/// What the preview shows once the main queue has run the tutorial's `DispatchQueue.main.async` updates.
@MainActor fileprivate func shownImage(_ controller: ViewController) async -> UIImage? {
    await withCheckedContinuation { continuation in
        DispatchQueue.main.async { continuation.resume(returning: controller.previewImageView.image) }
    }
}

@Suite(.serialized) struct VisionTutorialSeedTests {
    /// The first snippet ("基本的なAPIの使い方"): all points, the left arm's group and its wrist.
    @available(*, deprecated, message: "the tutorial's snippet uses Vision's iOS 14 keys, deprecated in Apple's SDK and in BlazeVision")
    @Test func theGroupKeySnippetGivesTheLeftArmAndItsWrist() throws {
        let photo = try fixturePhoto("pose/mpii_052475643.png")
        let request = VNDetectHumanBodyPoseRequest()
        try VNImageRequestHandler(image: photo).perform([request])
        let bodyPoseObservation = try #require(request.results?.first as? VNRecognizedPointsObservation)

        let allPoints = try bodyPoseObservation.recognizedPoints(forGroupKey: VNRecognizedPointGroupKeyAll)
        let leftArmPoints = try bodyPoseObservation.recognizedPoints(forGroupKey: VNRecognizedPointGroupKey.bodyLandmarkRegionKeyLeftArm) // 特定のランドマークの入手(左手)
        let leftWristPoint = leftArmPoints[VNRecognizedPointKey.bodyLandmarkKeyLeftWrist] // 左手首のランドマークの入手

        #expect(allPoints.count == 19)
        #expect(Set(leftArmPoints.keys.map(\.rawValue)) == ["left_shoulder_1_joint", "left_forearm_joint", "left_hand_joint"])
        let wrist = try #require(leftWristPoint)
        let options = PoseLandmarkerOptions()
        options.numPoses = 5
        let landmark = try PoseLandmarker(options: options).detect(image: photo).landmarks[0][PoseLandmarkName.leftWrist.rawValue]
        #expect(wrist.x == CGFloat(landmark.x) && wrist.y == 1 - CGFloat(landmark.y))
        #expect(wrist.confidence == landmark.visibility && wrist.confidence > 0.5)
        #expect(wrist === allPoints[.bodyLandmarkKeyLeftWrist])
    }

    /// The app end to end: a captured frame goes through `estimate(from:)`, the completion handler and
    /// `processObservation`, and the preview shows a dot for every joint with confidence > 0, in pixels with
    /// Vision's lower-left origin. The MPII photo shows the whole person: 19 dots. On the Panoptic photo the legs
    /// are cut off by the frame and are not drawn, while the head, shoulders, neck and arms (12 joints) are.
    @Test(.timeLimit(.minutes(2)), arguments: [("pose/mpii_052475643.png", 19...19), ("pose/panoptic_ex2_2.flv_000040_l.png", 12...15)])
    @MainActor func theAppDrawsTheJointsVisionWouldReport(file: String, dots: ClosedRange<Int>) async throws {
        let photo = try fixturePhoto(file)
        let controller = ViewController(frames: [photo])
        controller.viewDidLoad()
        let shown = try #require(await shownImage(controller))

        // The points the confidence rule keeps, worked out from the landmarks.
        let options = PoseLandmarkerOptions()
        options.numPoses = 5
        let landmarks = try PoseLandmarker(options: options).detect(image: photo).landmarks
        try #require(landmarks.count == 1)
        let expected: [CGPoint] = Joint.allCases.compactMap { joint in
            let parts = joint.blazePoseLandmarks.map { landmarks[0][$0.rawValue] }
            guard parts.allSatisfy(foundByTheRule) else { return nil }
            let x = parts.map(\.x).reduce(0, +) / Float(parts.count), y = parts.map(\.y).reduce(0, +) / Float(parts.count)
            return CGPoint(x: CGFloat(x) * CGFloat(photo.width), y: (1 - CGFloat(y)) * CGFloat(photo.height))
        }
        func sorted(_ points: [CGPoint]) -> [CGPoint] { points.sorted { ($0.x, $0.y) < ($1.x, $1.y) } }
        #expect(shown.cgImage.width == photo.width && shown.cgImage.height == photo.height)
        #expect(shown.drawnPoints.count == expected.count)
        for (a, b) in zip(sorted(shown.drawnPoints), sorted(expected)) {
            #expect(abs(a.x - b.x) < 1e-3 && abs(a.y - b.y) < 1e-3, "\(a) vs \(b)")
        }
        #expect(dots.contains(shown.drawnPoints.count), "\(shown.drawnPoints.count) dots")
        #expect(shown.drawnPoints.allSatisfy { $0.x >= 0 && $0.x <= CGFloat(photo.width) && $0.y >= 0 && $0.y <= CGFloat(photo.height) })
    }

    /// No person: the handler's `observations.count == 0` branch shows the bare frame.
    @Test(.timeLimit(.minutes(1))) @MainActor func aFrameWithoutAPersonIsShownWithoutDots() async throws {
        let grey = try Image(rgb: [UInt8](repeating: 90, count: 200 * 150 * 3), width: 200, height: 150)
        let controller = ViewController(frames: [nil, grey])
        controller.viewDidLoad()
        let shown = try #require(await shownImage(controller))
        #expect(shown.drawnPoints.isEmpty && shown.cgImage.width == 200)
        #expect(controller.currentFrame?.height == 150)
    }
}
