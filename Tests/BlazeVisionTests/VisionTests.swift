import BlazeKit
import BlazeRuntime
import BlazeTestSupport
import BlazeVision
import Foundation
import Testing

typealias Joint = VNHumanBodyPoseObservation.JointName

@Suite(.serialized) struct BodyPoseTests {
    let photo: Image
    let expected: PoseLandmarkerResult

    init() throws {
        photo = try fixturePhoto("pose/mpii_052475643.png")
        let options = PoseLandmarkerOptions()
        options.numPoses = 5
        expected = try PoseLandmarker(options: options).detect(image: photo)
    }

    func observations(_ image: Image, orientation: ImageOrientation? = nil) throws -> [VNHumanBodyPoseObservation] {
        let request = VNDetectHumanBodyPoseRequest()
        try VNImageRequestHandler(image: image, orientation: orientation).perform([request])
        return try #require(request.results as? [VNHumanBodyPoseObservation])
    }

    @Test func nineteenJointsFromTheLandmarksWithTheOriginAtTheLowerLeft() throws {
        let body = try observations(photo)
        try #require(body.count == expected.landmarks.count && body.count == 1)
        let lm = expected.landmarks[0]
        #expect(body[0].availableJointNames.count == 19)
        #expect(Set(body[0].availableJointNames) == Set(Joint.allCases))
        let single: [Joint: PoseLandmarkName] = [.nose: .nose, .leftEye: .leftEye, .rightEye: .rightEye, .leftEar: .leftEar,
                                                 .rightEar: .rightEar, .leftShoulder: .leftShoulder, .rightShoulder: .rightShoulder,
                                                 .leftElbow: .leftElbow, .rightElbow: .rightElbow, .leftWrist: .leftWrist,
                                                 .rightWrist: .rightWrist, .leftHip: .leftHip, .rightHip: .rightHip,
                                                 .leftKnee: .leftKnee, .rightKnee: .rightKnee, .leftAnkle: .leftAnkle, .rightAnkle: .rightAnkle]
        // Every joint of this photo is in frame and visible, so every confidence is the visibility itself.
        for (joint, name) in single {
            let p = try body[0].recognizedPoint(joint)
            let l = lm[name.rawValue]
            #expect(p.x == CGFloat(l.x) && p.y == 1 - CGFloat(l.y), "\(joint)")
            #expect(l.visibility! >= 0.5 && l.presence! >= 0.5)
            #expect(p.confidence == l.visibility, "\(joint)")
            #expect(p.identifier == joint.rawValue)
        }
        for (joint, a, b) in [(Joint.neck, PoseLandmarkName.leftShoulder, PoseLandmarkName.rightShoulder), (.root, .leftHip, .rightHip)] {
            let p = try body[0].recognizedPoint(joint)
            let la = lm[a.rawValue], lb = lm[b.rawValue]
            #expect(abs(p.x - CGFloat((la.x + lb.x) / 2)) < 1e-6 && abs(p.y - (1 - CGFloat((la.y + lb.y) / 2))) < 1e-6)
            #expect(p.confidence == min(la.visibility!, lb.visibility!))
        }
        #expect(body[0].confidence == Joint.allCases.map { try! body[0].recognizedPoint($0).confidence }.reduce(0, +) / 19)
        // The head is above the ankles: larger y with the origin at the bottom.
        #expect(try body[0].recognizedPoint(.nose).y > body[0].recognizedPoint(.leftAnkle).y)
    }

    @Test func jointGroupsHaveVisionsMembership() throws {
        let body = try observations(photo)[0]
        let groups: [VNHumanBodyPoseObservation.JointsGroupName: Set<Joint>] = [
            .face: [.nose, .leftEye, .rightEye, .leftEar, .rightEar],
            .torso: [.leftShoulder, .rightShoulder, .neck, .leftHip, .rightHip, .root],
            .leftArm: [.leftShoulder, .leftElbow, .leftWrist], .rightArm: [.rightShoulder, .rightElbow, .rightWrist],
            .leftLeg: [.leftHip, .leftKnee, .leftAnkle], .rightLeg: [.rightHip, .rightKnee, .rightAnkle],
            .all: Set(Joint.allCases)]
        for (group, members) in groups {
            let points = try body.recognizedPoints(group)
            #expect(Set(points.keys) == members, "\(group)")
            for (joint, point) in points { #expect(point === (try body.recognizedPoint(joint))) }
        }
        #expect(body.availableJointsGroupNames.count == 7)
    }

    @Test func pixelHelpersScaleWithoutFlipping() {
        let p = VNImagePointForNormalizedPoint(CGPoint(x: 0.25, y: 0.75), 640, 480)
        #expect(p == CGPoint(x: 160, y: 360))
        #expect(VNNormalizedPointForImagePoint(p, 640, 480) == CGPoint(x: 0.25, y: 0.75))
    }

    @Test func orientationsIncludingMirroredAreReportedInTheUprightImage() throws {
        let upright = try observations(photo)[0]
        for (stored, shown) in [(ImageOrientation.left, ImageOrientation.right), (.upMirrored, .upMirrored), (.leftMirrored, .leftMirrored)] {
            var image = photo
            image.orientation = stored
            let pixels = try image.oriented()          // pixels that display as `photo` under `shown`
            let turned = try observations(pixels, orientation: shown)
            try #require(turned.count == 1)
            for joint in Joint.allCases {
                #expect(try turned[0].recognizedPoint(joint).location == upright.recognizedPoint(joint).location, "\(shown) \(joint)")
            }
        }
    }

    @Test func threeDimensionalJointsInMetresAroundTheRoot() throws {
        let body = try observations(photo)[0]
        let root = try body.recognizedPoint3D(.root)
        #expect(abs(root.x) < 0.05 && abs(root.y) < 0.05 && abs(root.z) < 0.05)
        let w = expected.worldLandmarks[0][PoseLandmarkName.nose.rawValue]
        let nose = try body.recognizedPoint3D(.nose)
        #expect(nose.x == w.x && nose.y == -w.y && nose.z == -w.z)
        #expect(nose.y > 0.3)   // the head is well above the hips, y pointing up
    }

    @Test func nobodyGivesNoObservationsAndTheCompletionHandlerRuns() throws {
        let grey = try Image(rgb: [UInt8](repeating: 90, count: 200 * 150 * 3), width: 200, height: 150)
        let called = Flag()
        let request = VNDetectHumanBodyPoseRequest { request, error in
            called.set(error == nil && (request.results?.isEmpty ?? false))
        }
        try VNImageRequestHandler(image: grey).perform([request])
        #expect(called.value)
        #expect(request.results?.count == 0)
    }

    /// With BlazeKit's accurate mode the request finds both people of the photo pasted at half size into a
    /// wide grey frame, where MediaPipe's detector (the default) finds no one.
    @Test func accurateModeFindsSmallPeople() throws {
        let frame = try pastedHalved(photo, at: (x: 1200, y: 600))
        #expect(try observations(frame).isEmpty)
        let request = VNDetectHumanBodyPoseRequest()
        request.accurateMode = PoseAccurateMode()
        try VNImageRequestHandler(image: frame).perform([request])
        let found = try #require(request.results as? [VNHumanBodyPoseObservation])
        #expect(found.count == 2)
        for body in found {
            // Vision's normalized points, origin at the lower left: the photo (854×480, halved) covers x 1200–1627, y 600–840.
            let nose = try body.recognizedPoint(.nose)
            #expect(nose.location.x * 1920 > 1200 && nose.location.x * 1920 < 1627, "nose at \(nose.location)")
            #expect((1 - nose.location.y) * 1080 > 600 && (1 - nose.location.y) * 1080 < 840, "nose at \(nose.location)")
        }
    }

    /// The README's port of Apple's body-pose sample, compiled and run.
    @Test func readmeSnippetRuns() throws {
        let image = photo
        let imageSize = CGSize(width: image.width, height: image.height)
        let collected = Points()

        func processObservation(_ observation: VNHumanBodyPoseObservation) {
            guard let recognizedPoints = try? observation.recognizedPoints(.torso) else { return }
            let torsoJointNames: [VNHumanBodyPoseObservation.JointName] = [.neck, .rightShoulder, .rightHip, .root, .leftHip, .leftShoulder]
            let imagePoints: [CGPoint] = torsoJointNames.compactMap {
                guard let point = recognizedPoints[$0], point.confidence > 0 else { return nil }
                return VNImagePointForNormalizedPoint(point.location, Int(imageSize.width), Int(imageSize.height))
            }
            collected.append(imagePoints)
        }
        func bodyPoseHandler(request: VNRequest, error: Error?) {
            guard let observations = request.results as? [VNHumanBodyPoseObservation] else { return }
            observations.forEach { processObservation($0) }
        }

        let requestHandler = VNImageRequestHandler(image: image)
        let request = VNDetectHumanBodyPoseRequest(completionHandler: bodyPoseHandler)
        do {
            try requestHandler.perform([request])
        } catch {
            print("Unable to perform the request: \(error).")
        }
        #expect(collected.points.count == 6)
        #expect(collected.points.allSatisfy { $0.x > 0 && $0.x < imageSize.width && $0.y > 0 && $0.y < imageSize.height })
    }
}

@Suite(.serialized) struct HandPoseTests {
    /// With BlazeKit's accurate mode the hand request finds the photo's right hand pasted at half size (93 px)
    /// into a wide grey frame, where MediaPipe's palm detector (the default) finds none.
    @Test func accurateModeFindsASmallHand() throws {
        let frame = try pastedHalved(try fixturePhoto("hand/onehand10k_1402.png"), at: (x: 1300, y: 700))
        let plain = VNDetectHumanHandPoseRequest()
        try VNImageRequestHandler(image: frame).perform([plain])
        #expect(plain.results?.isEmpty == true)
        let request = VNDetectHumanHandPoseRequest()
        request.accurateMode = HandAccurateMode()
        try VNImageRequestHandler(image: frame).perform([request])
        let hands = try #require(request.results as? [VNHumanHandPoseObservation])
        try #require(hands.count == 1)
        // The photo (226×339, halved) covers x 1300–1413, y 700–869; Vision's origin is at the lower left.
        let wrist = try hands[0].recognizedPoint(.wrist)
        #expect(wrist.location.x * 1920 > 1300 && wrist.location.x * 1920 < 1413, "wrist at \(wrist.location)")
        #expect((1 - wrist.location.y) * 1080 > 700 && (1 - wrist.location.y) * 1080 < 869, "wrist at \(wrist.location)")
    }

    @Test func twoHandsByDefaultWithMediaPipesHandednessAndTwentyOneJoints() throws {
        let photo = try fixturePhoto("hand/panoptic_ex2_2.flv_000040_l.png")
        let request = VNDetectHumanHandPoseRequest()
        #expect(request.maximumHandCount == 2)
        try VNImageRequestHandler(image: photo).perform([request])
        let hands = try #require(request.results as? [VNHumanHandPoseObservation])
        let options = HandLandmarkerOptions()
        options.numHands = 2
        let expected = try HandLandmarker(options: options).detect(image: photo)
        try #require(hands.count == 2 && expected.landmarks.count == 2)
        for (i, hand) in hands.enumerated() {
            let label = expected.handedness[i][0].categoryName
            #expect(hand.chirality == (label == "Left" ? .left : .right))
            #expect(hand.availableJointNames.count == 21)
            for joint in VNHumanHandPoseObservation.JointName.allCases {
                let p = try hand.recognizedPoint(joint)
                let l = expected.landmarks[i][joint.landmarkIndex]
                #expect(p.x == CGFloat(l.x) && p.y == 1 - CGFloat(l.y))
                #expect(p.confidence > 0.5 && p.confidence == l.presence)
            }
            #expect(try hand.recognizedPoint(.wrist).location == hand.recognizedPoint(.wrist).location)
        }
        #expect(VNHumanHandPoseObservation.JointName.allCases.map(\.landmarkIndex) == Array(0..<21))
        #expect(VNHumanHandPoseObservation.JointName.indexTip.landmarkIndex == HandLandmarkName.indexFingerTip.rawValue)
    }

    @Test func fingerGroupsAndTheHandCountLimit() throws {
        let photo = try fixturePhoto("hand/panoptic_ex2_2.flv_000040_l.png")
        let request = VNDetectHumanHandPoseRequest()
        request.maximumHandCount = 1
        try VNImageRequestHandler(image: photo).perform([request])
        let hands = try #require(request.results as? [VNHumanHandPoseObservation])
        #expect(hands.count == 1)
        let thumb = try hands[0].recognizedPoints(.thumb)
        #expect(Set(thumb.keys) == [.thumbCMC, .thumbMP, .thumbIP, .thumbTip])
        #expect(Set(try hands[0].recognizedPoints(.littleFinger).keys) == [.littleMCP, .littlePIP, .littleDIP, .littleTip])
        #expect(try hands[0].recognizedPoints(.all).count == 21)
        #expect(try hands[0].recognizedPoints(.indexFinger).keys.contains(.wrist) == false)
    }
}

/// Thread-safe holders for completion handlers.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var v = false
    var value: Bool { lock.withLock { v } }
    func set(_ x: Bool) { lock.withLock { v = x } }
}

final class Points: @unchecked Sendable {
    private let lock = NSLock()
    private var p: [CGPoint] = []
    var points: [CGPoint] { lock.withLock { p } }
    func append(_ x: [CGPoint]) { lock.withLock { p += x } }
}

/// BlazeKit's kernel planning on Vision's requests: the landmarker behind a request is planned as the request
/// says, and made again when it changes.
@Suite struct RequestKernelPlanningTests {
    @Test func bothRequestsPlanTheirNetworksAsTheySay() throws {
        let photo = try fixturePhoto("pose/mpii_052475643.png")
        let body = VNDetectHumanBodyPoseRequest(), hand = VNDetectHumanHandPoseRequest()
        for planning in [Planning.fixed, .measured] {
            body.kernelPlanning = planning
            hand.kernelPlanning = planning
            try VNImageRequestHandler(image: photo).perform([body, hand])
            for (name, request) in [("body", body as AnyObject), ("hand", hand)] {
                let sessions = reachableObjects(InferenceSession.self, from: request)
                #expect(sessions.count == 2 && sessions.allSatisfy { $0.options.planning == planning },
                        "\(name) \(planning): \(sessions.map(\.options))")
            }
        }
    }
}
