import BlazeKit
import Foundation
import Testing

/// MediaPipe Tasks 0.10.14 results on five photos, written by `Tools/fixtures/make_pose_reference.py`.
struct PoseReference: Decodable, Sendable, CustomStringConvertible {
    struct Pose: Decodable, Sendable {
        var landmarks: [[Float]]
        var worldLandmarks: [[Float]]
    }

    var image: String
    var width: Int
    var height: Int
    var numPoses: Int
    var poses: [Pose]
    var variant: String = ""

    private enum CodingKeys: String, CodingKey { case image, width, height, numPoses, poses }

    var description: String { "\(variant) \(image)" }

    static let directory = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/pose")

    static func load(_ variant: String) -> [PoseReference] {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("reference_\(variant).jsonl"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            var r = try? JSONDecoder().decode(PoseReference.self, from: Data($0.utf8))
            r?.variant = variant
            return r
        }
    }

    static let all = load("full") + load("lite")
}

@Suite struct PoseLandmarkerParityTests {
    @Test func fixturesArePresent() {
        #expect(PoseReference.all.count == 10)
        #expect(PoseReference.all.contains { $0.poses.isEmpty } && PoseReference.all.contains { !$0.poses.isEmpty })
    }

    /// Same pose count; landmarks within 0.002 of the image size on average (and 0.01 at worst);
    /// world landmarks within 1 cm on average; visibility within 0.02; mask IoU ≥ 0.95 at 0.5.
    @Test(arguments: PoseReference.all)
    func matchesMediaPipe(reference r: PoseReference) throws {
        let options = PoseLandmarkerOptions()
        options.model = r.variant == "full" ? .full : .lite
        options.numPoses = r.numPoses
        options.shouldOutputSegmentationMasks = true
        let landmarker = try PoseLandmarker(options: options)
        let image = try Image(contentsOfPNGFile: PoseReference.directory.appendingPathComponent(r.image).path)
        #expect(image.width == r.width && image.height == r.height)
        let result = try landmarker.detect(image: image)
        try #require(result.landmarks.count == r.poses.count, "\(r): \(result.landmarks.count) poses, MediaPipe found \(r.poses.count)")
        #expect(result.worldLandmarks.count == r.poses.count && result.segmentationMasks.count == r.poses.count)
        for (i, pose) in r.poses.enumerated() {
            let ours = result.landmarks[i], world = result.worldLandmarks[i]
            try #require(ours.count == 33 && world.count == 33)
            var sum: Float = 0, worst: Float = 0, worldSum: Float = 0, visibility: Float = 0
            for k in 0..<33 {
                let dx = abs(ours[k].x - pose.landmarks[k][0]), dy = abs(ours[k].y - pose.landmarks[k][1])
                sum += dx + dy
                worst = max(worst, dx, dy)
                let w = pose.worldLandmarks[k]
                worldSum += ((world[k].x - w[0]) * (world[k].x - w[0]) + (world[k].y - w[1]) * (world[k].y - w[1])
                             + (world[k].z - w[2]) * (world[k].z - w[2])).squareRoot()
                visibility = max(visibility, abs((ours[k].visibility ?? -1) - pose.landmarks[k][3]))
            }
            #expect(sum / 66 <= 0.002, "\(r) pose \(i): mean |Δ| \(sum / 66)")
            #expect(worst <= 0.01, "\(r) pose \(i): max |Δ| \(worst)")
            #expect(worldSum / 33 <= 0.01, "\(r) pose \(i): world mean error \(worldSum / 33) m")
            #expect(visibility <= 0.02, "\(r) pose \(i): visibility max error \(visibility)")

            let stem = (r.image as NSString).deletingPathExtension
            let refMask = try Image(contentsOfPNGFile: PoseReference.directory.appendingPathComponent("\(stem).\(r.variant).mask\(i).png").path)
            let mask = result.segmentationMasks[i]
            try #require(mask.width == image.width && mask.height == image.height)
            var intersection = 0, union = 0
            for p in 0..<(mask.width * mask.height) {
                let a = mask.float32Data[p] >= 0.5, b = refMask.pixels[3 * p] >= 128
                intersection += (a && b) ? 1 : 0
                union += (a || b) ? 1 : 0
            }
            let iou = union == 0 ? 1 : Double(intersection) / Double(union)
            #expect(iou >= 0.95, "\(r) pose \(i): mask IoU \(iou)")
        }
    }

    @Test func resultsAreCodable() throws {
        let landmarker = try PoseLandmarker(options: PoseLandmarkerOptions())
        let image = try Image(contentsOfPNGFile: PoseReference.directory.appendingPathComponent("mpii_052475643.png").path)
        let result = try landmarker.detect(image: image)
        let decoded = try JSONDecoder().decode(PoseLandmarkerResult.self, from: JSONEncoder().encode(result))
        #expect(decoded == result)
        // The landmark named leftWrist is MediaPipe's left wrist (index 15), where MediaPipe puts it.
        #expect(PoseLandmarkName.leftWrist.rawValue == 15 && PoseLandmarkName.allCases.count == 33)
        let reference = try #require(PoseReference.load("full").first { $0.image == "mpii_052475643.png" }?.poses.first)
        let wrist = try #require(result.landmarks.first?[PoseLandmarkName.leftWrist.rawValue])
        let expected = reference.landmarks[15]
        #expect(abs(wrist.x - expected[0]) <= 0.002 && abs(wrist.y - expected[1]) <= 0.002, "left wrist \(wrist) vs \(expected)")
    }
}

@Suite struct PoseLandmarkerAPITests {
    @Test(arguments: ["numPoses", "minPoseDetectionConfidence", "minPosePresenceConfidence", "minTrackingConfidence",
                      "baseOptions.threadCount"])
    func invalidOptionsAreRejectedAtInit(name: String) {
        let options = PoseLandmarkerOptions()
        switch name {
        case "numPoses": options.numPoses = 0
        case "minPoseDetectionConfidence": options.minPoseDetectionConfidence = 1.5
        case "minPosePresenceConfidence": options.minPosePresenceConfidence = -0.1
        case "minTrackingConfidence": options.minTrackingConfidence = .nan
        default: options.baseOptions.threadCount = 0
        }
        do {
            _ = try PoseLandmarker(options: options)
            Issue.record("\(name): accepted")
        } catch let TaskError.invalidOption(option, _, _) {
            #expect(option == name)
        } catch {
            Issue.record("\(name): unexpected error \(error)")
        }
    }

    @Test func missingModelPathIsAnError() {
        #expect(throws: TaskError.self) { try PoseLandmarker(modelPath: "/nonexistent/pose_landmark_full.bkm") }
    }

    @Test func aDetectorModelIsNotALandmarkModel() throws {
        let detectorPath = try BuiltinModel.poseDetection.url.path
        #expect(throws: RuntimeError.self) { try PoseLandmarker(modelPath: detectorPath) }
    }

    @Test func modelDirectoryWorks() throws {
        let dir = try BuiltinModel.poseLandmarkLite.url.deletingLastPathComponent().path
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = dir
        options.model = .lite
        let fromDirectory = try PoseLandmarker(options: options)
        // The directory's files are the built-in ones, so the results are the built-in lite model's, bit for bit.
        let builtin = PoseLandmarkerOptions()
        builtin.model = .lite
        let image = try Image(contentsOfPNGFile: PoseReference.directory.appendingPathComponent("mpii_052475643.png").path)
        let result = try fromDirectory.detect(image: image)
        #expect(result.landmarks.count == 1)
        #expect(result == (try PoseLandmarker(options: builtin).detect(image: image)))
    }

    @Test func wrongRunningModeIsAnError() throws {
        let options = PoseLandmarkerOptions()
        options.runningMode = .video
        let landmarker = try PoseLandmarker(options: options)
        let image = try Image(rgb: [UInt8](repeating: 0, count: 8 * 8 * 3), width: 8, height: 8)
        #expect(throws: TaskError.runningModeMismatch(method: "detect(image:)", expected: .image, actual: .video)) {
            try landmarker.detect(image: image)
        }
    }

    @Test func mirroredOrientationsAreRejected() throws {
        let landmarker = try PoseLandmarker(options: PoseLandmarkerOptions())
        var image = try Image(rgb: [UInt8](repeating: 90, count: 32 * 24 * 3), width: 32, height: 24)
        for o in [ImageOrientation.upMirrored, .downMirrored, .leftMirrored, .rightMirrored] {
            image.orientation = o
            #expect(throws: (any Error).self) { try landmarker.detect(image: image) }
        }
    }

    @Test func blankAndTinyImagesGiveNoPoses() throws {
        let landmarker = try PoseLandmarker(options: PoseLandmarkerOptions())
        for (w, h) in [(1, 1), (3, 700), (640, 480)] {
            let image = try Image(rgb: [UInt8](repeating: 128, count: w * h * 3), width: w, height: h)
            #expect(try landmarker.detect(image: image).landmarks.isEmpty, "\(w)x\(h)")
        }
    }

    @Test func rotatedInputIsReportedInTheDisplayedImage() throws {
        // The photo rotated by 90° clockwise in its pixels, tagged .left (display needs a 90° turn back, as
        // EXIF orientation 8): the landmarks come back normalized to the displayed (upright) image, as iOS
        // reports them for a UIImage with that orientation, equal to the upright run's.
        let landmarker = try PoseLandmarker(options: PoseLandmarkerOptions())
        let upright = try Image(contentsOfPNGFile: PoseReference.directory.appendingPathComponent("mpii_052475643.png").path)
        let reference = try #require(landmarker.detect(image: upright).landmarks.first)
        var rotatedPixels = [UInt8](repeating: 0, count: upright.pixels.count)
        let (w, h) = (upright.width, upright.height)
        for y in 0..<h { for x in 0..<w { for c in 0..<3 {
            // clockwise: (x, y) -> (h − 1 − y, x) in a h×w image
            rotatedPixels[(x * h + (h - 1 - y)) * 3 + c] = upright.pixels[(y * w + x) * 3 + c]
        } } }
        var rotated = try Image(rgb: rotatedPixels, width: h, height: w)
        rotated.orientation = .left
        let found = try #require(landmarker.detect(image: rotated).landmarks.first)
        #expect(found == reference)
        for orientation in [ImageOrientation.down, .right] {
            var stored = upright
            stored.orientation = orientation == .down ? .down : .left   // stored pixels that display as `upright`
            var image = try stored.oriented()
            image.orientation = orientation
            #expect(try landmarker.detect(image: image).landmarks.first == reference, "\(orientation)")
        }
    }
}

@Suite struct TaskBundleTests {
    @Test func aFileThatIsNotAZipIsRejectedWithItsPath() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-bundle-\(UInt32.random(in: 0...UInt32.max)).task").path
        try Data("not a zip".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            _ = try PoseLandmarker(modelPath: path)
            Issue.record("accepted a non-zip .task file")
        } catch let TaskError.modelNotFound(p, reason) {
            #expect(p == path && reason.contains("not a readable .task bundle"))
        }
    }
}
