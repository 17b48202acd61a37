import BlazeKit
import BlazeTestSupport
import BlazeVision
import Foundation
import Testing

/// This target's own fixtures (Tools/fixtures/make_vision_fixtures.py), copied into the test bundle.
func visionFixture(_ name: String) throws -> URL {
    let directory = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
    return directory.appendingPathComponent(name)
}

/// What Tools/fixtures/make_vision_fixtures.py recorded: the wrists people labelled and what MediaPipe Tasks said.
struct VisionFixtures: Decodable {
    struct Hand: Decodable {
        let categoryName: String
        let wrist: [Double]
        let outsideImage: [Int]
    }
    struct Report: Decodable {
        let hands: [Hand]
    }
    struct Photo: Decodable {
        /// "BlazeVisionTests" (this bundle's Fixtures) or "BlazeKitTests" (read by path).
        let target: String
        let file: String
        let width: Int
        let height: Int
        /// The person's wrists, normalized with the origin at the top-left: "left" and "right".
        let labelledWrists: [String: [Double]]?
        let mediapipe: [String: Report]
    }
    let photos: [Photo]

    static func load() throws -> VisionFixtures {
        try JSONDecoder().decode(VisionFixtures.self, from: Data(contentsOf: visionFixture("vision_fixtures.json")))
    }

    func photo(_ file: String) throws -> (Photo, Image) {
        let photo = try #require(photos.first { $0.file.hasSuffix(file) })
        let image = photo.target == "BlazeVisionTests" ? try Image(contentsOfFile: visionFixture(photo.file).path)
                                                       : try fixturePhoto(photo.file)
        #expect(image.width == photo.width && image.height == photo.height)
        return (photo, image)
    }
}

/// The confidence rule, written out independently of BlazeVision: MediaPipe's drawing cut (0.5) and the image.
func foundByTheRule(_ l: NormalizedLandmark) -> Bool {
    l.visibility! >= 0.5 && l.presence! >= 0.5 && l.x >= 0 && l.x <= 1 && l.y >= 0 && l.y <= 1
}

@Suite(.serialized) struct RecognizedPointsTests {
    func body(_ image: Image) throws -> VNHumanBodyPoseObservation {
        let request = VNDetectHumanBodyPoseRequest()
        try VNImageRequestHandler(image: image).perform([request])
        let people = try #require(request.results as? [VNRecognizedPointsObservation])
        try #require(people.count == 1)
        return try #require(people[0] as? VNHumanBodyPoseObservation)
    }

    @available(*, deprecated, message: "checks Vision's iOS 14 keys, deprecated in Apple's SDK and in BlazeVision")
    @Test func theIOS14KeysAreTheJointNamesRawValuesAndReachTheSamePoints() throws {
        let observation = try body(fixturePhoto("pose/mpii_052475643.png"))
        let points: VNRecognizedPointsObservation = observation
        #expect(points.availableKeys.map(\.rawValue) == Joint.allCases.map(\.rawValue))
        #expect(Set(points.availableGroupKeys.map(\.rawValue)) == Set(VNHumanBodyPoseObservation.JointsGroupName.allCases.map(\.rawValue)))
        let keys: [(VNRecognizedPointKey, Joint)] = [
            (.bodyLandmarkKeyNose, .nose), (.bodyLandmarkKeyLeftEye, .leftEye), (.bodyLandmarkKeyRightEye, .rightEye),
            (.bodyLandmarkKeyLeftEar, .leftEar), (.bodyLandmarkKeyRightEar, .rightEar),
            (.bodyLandmarkKeyLeftShoulder, .leftShoulder), (.bodyLandmarkKeyRightShoulder, .rightShoulder),
            (.bodyLandmarkKeyNeck, .neck), (.bodyLandmarkKeyLeftElbow, .leftElbow), (.bodyLandmarkKeyRightElbow, .rightElbow),
            (.bodyLandmarkKeyLeftWrist, .leftWrist), (.bodyLandmarkKeyRightWrist, .rightWrist),
            (.bodyLandmarkKeyLeftHip, .leftHip), (.bodyLandmarkKeyRightHip, .rightHip), (.bodyLandmarkKeyRoot, .root),
            (.bodyLandmarkKeyLeftKnee, .leftKnee), (.bodyLandmarkKeyRightKnee, .rightKnee),
            (.bodyLandmarkKeyLeftAnkle, .leftAnkle), (.bodyLandmarkKeyRightAnkle, .rightAnkle)]
        #expect(Set(keys.map(\.0)).count == 19 && Set(keys.map(\.1)) == Set(Joint.allCases))
        for (key, joint) in keys {
            #expect(key.rawValue == joint.rawValue)
            #expect(try points.recognizedPoint(forKey: key) === observation.recognizedPoint(joint), "\(joint)")
        }
        // Apple's raw values, as Vision's own tables spell them.
        #expect(VNRecognizedPointKey.bodyLandmarkKeyNose.rawValue == "head_joint")
        #expect(VNRecognizedPointKey.bodyLandmarkKeyLeftHip.rawValue == "left_upLeg_joint")
        #expect(VNRecognizedPointGroupKey.bodyLandmarkRegionKeyLeftArm.rawValue == "VNBLKLARM")
        #expect(VNRecognizedPointGroupKeyAll == .all && VNRecognizedPointGroupKey.all.rawValue == "VNIPOAll")

        let groups: [(VNRecognizedPointGroupKey, VNHumanBodyPoseObservation.JointsGroupName)] = [
            (.bodyLandmarkRegionKeyFace, .face), (.bodyLandmarkRegionKeyTorso, .torso),
            (.bodyLandmarkRegionKeyLeftArm, .leftArm), (.bodyLandmarkRegionKeyRightArm, .rightArm),
            (.bodyLandmarkRegionKeyLeftLeg, .leftLeg), (.bodyLandmarkRegionKeyRightLeg, .rightLeg), (.all, .all)]
        for (key, group) in groups {
            #expect(key.rawValue == group.rawValue)
            let byKey = try points.recognizedPoints(forGroupKey: key)
            let byName = try observation.recognizedPoints(group)
            #expect(byKey.count == byName.count && byKey.count == group.jointNames.count, "\(group)")
            for (joint, point) in byName { #expect(byKey[VNRecognizedPointKey(rawValue: joint.rawValue)] === point) }
        }
        #expect(try points.recognizedPoints(forGroupKey: .all).count == 19)
    }

    @available(*, deprecated, message: "checks Vision's iOS 14 keys, deprecated in Apple's SDK and in BlazeVision")
    @Test func handKeysAndGroupsMatchTheHandJointNames() throws {
        let request = VNDetectHumanHandPoseRequest()
        try VNImageRequestHandler(image: fixturePhoto("hand/panoptic_ex2_2.flv_000040_l.png")).perform([request])
        let hands = try #require(request.results as? [VNRecognizedPointsObservation])
        try #require(hands.count == 2)
        let hand = try #require(hands[0] as? VNHumanHandPoseObservation)
        typealias H = VNHumanHandPoseObservation.JointName
        let keys: [VNRecognizedPointKey] = [
            .handLandmarkKeyWrist, .handLandmarkKeyThumbCMC, .handLandmarkKeyThumbMP, .handLandmarkKeyThumbIP,
            .handLandmarkKeyThumbTIP, .handLandmarkKeyIndexMCP, .handLandmarkKeyIndexPIP, .handLandmarkKeyIndexDIP,
            .handLandmarkKeyIndexTIP, .handLandmarkKeyMiddleMCP, .handLandmarkKeyMiddlePIP, .handLandmarkKeyMiddleDIP,
            .handLandmarkKeyMiddleTIP, .handLandmarkKeyRingMCP, .handLandmarkKeyRingPIP, .handLandmarkKeyRingDIP,
            .handLandmarkKeyRingTIP, .handLandmarkKeyLittleMCP, .handLandmarkKeyLittlePIP, .handLandmarkKeyLittleDIP,
            .handLandmarkKeyLittleTIP]
        // In MediaPipe's landmark order, like the joint names.
        #expect(keys.map(\.rawValue) == H.allCases.map(\.rawValue))
        #expect(hand.availableKeys == keys)
        for (key, joint) in zip(keys, H.allCases) { #expect(try hand.recognizedPoint(forKey: key) === hand.recognizedPoint(joint)) }
        #expect(VNRecognizedPointKey.handLandmarkKeyThumbIP.rawValue == "VNHLKTIP" && VNRecognizedPointKey.handLandmarkKeyThumbTIP.rawValue == "VNHLKTTIP")
        let groups: [(VNRecognizedPointGroupKey, VNHumanHandPoseObservation.JointsGroupName)] = [
            (.handLandmarkRegionKeyThumb, .thumb), (.handLandmarkRegionKeyIndexFinger, .indexFinger),
            (.handLandmarkRegionKeyMiddleFinger, .middleFinger), (.handLandmarkRegionKeyRingFinger, .ringFinger),
            (.handLandmarkRegionKeyLittleFinger, .littleFinger), (.all, .all)]
        for (key, group) in groups {
            #expect(key.rawValue == group.rawValue)
            #expect(Set(try hand.recognizedPoints(forGroupKey: key).keys.map(\.rawValue)) == Set(group.jointNames.map(\.rawValue)))
        }
        #expect(Set(hand.availableGroupKeys) == Set(groups.map(\.0)))
    }

    @available(*, deprecated, message: "checks Vision's iOS 14 keys, deprecated in Apple's SDK and in BlazeVision")
    @Test func aKeyTheObservationDoesNotHaveNamesWhatItHas() throws {
        let observation = try body(fixturePhoto("pose/mpii_052475643.png"))
        #expect(throws: VNError.self) { try observation.recognizedPoint(forKey: .handLandmarkKeyWrist) }
        do {
            _ = try observation.recognizedPoints(forGroupKey: .handLandmarkRegionKeyThumb)
            Issue.record("a hand group on a body observation did not throw")
        } catch let error as VNError {
            let text = error.description
            #expect(text.contains("VNHumanBodyPoseObservation") && text.contains("\"VNHLRKT\"") && text.contains("VNBLKLARM"))
        }
    }

    /// Joints cut off by the frame (Panoptic: the legs below the waist) and joints hidden behind the body
    /// (COCO 40083: the far arm) get confidence 0 and keep their estimated location; the rest keep the visibility.
    @Test(arguments: [
        ("pose/panoptic_ex2_2.flv_000040_l.png", [Joint.leftKnee, .rightKnee, .leftAnkle, .rightAnkle], true),
        ("pose/coco_000000040083.png", [Joint.leftElbow, .leftWrist], false),
    ])
    func jointsNotFoundHaveConfidenceZero(file: String, mustDrop: [Joint], outOfFrame: Bool) throws {
        #expect(VNRecognizedPointsObservation.minimumLandmarkScore == 0.5)
        let photo = try fixturePhoto(file)
        let options = PoseLandmarkerOptions()
        options.numPoses = 5
        let expected = try PoseLandmarker(options: options).detect(image: photo)
        try #require(expected.landmarks.count == 1)
        let lm = expected.landmarks[0]
        let observation = try body(photo)
        var dropped: Set<Joint> = []
        for joint in Joint.allCases {
            let parts = joint.blazePoseLandmarks.map { lm[$0.rawValue] }
            let found = parts.allSatisfy(foundByTheRule)
            let p = try observation.recognizedPoint(joint)
            #expect(p.confidence == (found ? parts.map { $0.visibility! }.min()! : 0), "\(joint)")
            let x = parts.map(\.x).reduce(0, +) / Float(parts.count), y = parts.map(\.y).reduce(0, +) / Float(parts.count)
            #expect(abs(p.x - CGFloat(x)) < 1e-6 && abs(p.y - (1 - CGFloat(y))) < 1e-6, "\(joint) keeps its location")
            if !found { dropped.insert(joint) }
        }
        #expect(dropped.isSuperset(of: mustDrop), "dropped \(dropped.map(\.rawValue).sorted())")
        #expect(dropped.count < 19 && dropped.count >= mustDrop.count)
        for joint in mustDrop {
            let p = try observation.recognizedPoint(joint)
            // Below the bottom edge when cut off by the frame (y < 0 with the origin at the lower-left), inside when hidden.
            #expect(outOfFrame ? p.y < 0 : (0...1).contains(p.x) && (0...1).contains(p.y), "\(joint) at \(p)")
        }
    }

    /// OneHand10K 1402 cut at x = 150: the thumb's outer joints and the index tip leave the image on the right.
    @Test func handJointsOutsideTheImageHaveConfidenceZero() throws {
        let fixtures = try VisionFixtures.load()
        let (photo, image) = try fixtures.photo("onehand10k_1402_cut.png")
        let request = VNDetectHumanHandPoseRequest()
        try VNImageRequestHandler(image: image).perform([request])
        let hands = try #require(request.results as? [VNHumanHandPoseObservation])
        try #require(hands.count == 1)
        let hand = hands[0]
        #expect(hand.confidence >= 0.5)
        var outside: [Int] = []
        for joint in VNHumanHandPoseObservation.JointName.allCases {
            let p = try hand.recognizedPoint(joint)
            let inside = (0...1).contains(p.x) && (0...1).contains(p.y)
            #expect(p.confidence == (inside ? hand.confidence : 0), "\(joint) at \(p)")
            if !inside { outside.append(joint.landmarkIndex) }
        }
        // MediaPipe puts landmarks 2, 3, 4 and 8 outside; the thumb tip and IP lie well outside in both.
        #expect(photo.mediapipe["upright"]!.hands[0].outsideImage == [2, 3, 4, 8])
        #expect(Set(outside).isSuperset(of: [3, 4]) && outside.count <= 5, "outside: \(outside)")
        #expect(try hand.recognizedPoint(.thumbTip).x > 1)
    }

    /// A plain (non-final, non-Sendable) class hands one of its methods to the request, as iOS code does.
    @Test func aMethodOfAPlainClassIsACompletionHandler() throws {
        class PoseScreen {
            var jointsShown = 0
            var errors = 0
            func handleBodyPoseDetection(request: VNRequest, error: Error?) {
                if error != nil { errors += 1 }
                guard let observations = request.results as? [VNRecognizedPointsObservation] else { return }
                for observation in observations {
                    jointsShown += (try? observation.recognizedPoints(forGroupKey: .all))?.values.filter { $0.confidence > 0 }.count ?? 0
                }
            }
            func estimate(from image: Image) throws {
                let request = VNDetectHumanBodyPoseRequest(completionHandler: handleBodyPoseDetection)
                try VNImageRequestHandler(image: image).perform([request])
            }
        }
        let screen = PoseScreen()
        try screen.estimate(from: fixturePhoto("pose/mpii_052475643.png"))
        #expect(screen.jointsShown == 19 && screen.errors == 0)
        try screen.estimate(from: fixturePhoto("pose/panoptic_ex2_2.flv_000040_l.png"))
        #expect(screen.jointsShown > 19 && screen.jointsShown < 19 + 15)
    }
}

/// Chirality against people's labels: on unmirrored photos MediaPipe's "Left" is the person's left hand.
@Suite(.serialized) struct ChiralityTests {
    let fixtures: VisionFixtures
    init() throws { fixtures = try VisionFixtures.load() }

    func hands(_ image: Image, orientation: ImageOrientation? = nil) throws -> [VNHumanHandPoseObservation] {
        let request = VNDetectHumanHandPoseRequest()
        try VNImageRequestHandler(image: image, orientation: orientation).perform([request])
        return try #require(request.results as? [VNHumanHandPoseObservation])
    }

    /// The wrist in top-left-origin coordinates.
    func wrist(_ hand: VNHumanHandPoseObservation) throws -> (Double, Double) {
        let p = try hand.recognizedPoint(.wrist)
        return (Double(p.x), 1 - Double(p.y))
    }

    /// The labelled side nearest to `point` (mirrored labels when `mirrored`), required to be clearly the nearer one.
    func nearestLabel(_ point: (Double, Double), _ labels: [String: [Double]], mirrored: Bool) throws -> String {
        func distance(_ side: String) -> Double {
            let l = labels[side]!
            let lx = mirrored ? 1 - l[0] : l[0]
            return ((point.0 - lx) * (point.0 - lx) + (point.1 - l[1]) * (point.1 - l[1])).squareRoot()
        }
        let side = distance("left") < distance("right") ? "left" : "right"
        let other = side == "left" ? "right" : "left"
        try #require(distance(side) < 0.08 && distance(other) > 2 * distance(side), "hand at \(point) is not clearly at a labelled wrist")
        return side
    }

    @Test(arguments: ["mpii_004645041_person.jpg", "panoptic_ex2_2.flv_000040_l.png"])
    func theHandAtThePersonsLabelledLeftWristIsLeft(file: String) throws {
        let (photo, image) = try fixtures.photo(file)
        let labels = try #require(photo.labelledWrists)
        let upright = try hands(image)
        #expect(upright.count == 2)
        for hand in upright {
            let side = try nearestLabel(wrist(hand), labels, mirrored: false)
            #expect(hand.chirality == (side == "left" ? .left : .right), "\(file): hand at the \(side) wrist")
            // MediaPipe Tasks called the hand at that wrist by the same name.
            let w = try wrist(hand)
            let peer = try #require(photo.mediapipe["upright"]!.hands.min { a, b in
                hypot(a.wrist[0] - w.0, a.wrist[1] - w.1) < hypot(b.wrist[0] - w.0, b.wrist[1] - w.1) })
            #expect(peer.categoryName == (side == "left" ? "Left" : "Right"))
        }
        #expect(Set(upright.map(\.chirality)) == [.left, .right])

        // The body request agrees: the hand at VNHumanBodyPoseObservation's right wrist is `.right`.
        let request = VNDetectHumanBodyPoseRequest()
        request.maximumPeopleCount = 1
        try VNImageRequestHandler(image: image).perform([request])
        let person = try #require(request.bodyResults?.first)
        for hand in upright {
            let w = try hand.recognizedPoint(.wrist).location
            func gap(_ joint: Joint) throws -> CGFloat {
                let p = try person.recognizedPoint(joint).location
                return hypot(p.x - w.x, p.y - w.y)
            }
            #expect(hand.chirality == (try gap(.rightWrist) < gap(.leftWrist) ? .right : .left))
        }

        // A horizontally flipped copy (what a mirrored selfie shows) turns every hand into the other one...
        var stored = image
        stored.orientation = .upMirrored
        let flipped = try stored.oriented()
        let mirrored = try hands(flipped)
        #expect(mirrored.count == 2)
        for hand in mirrored {
            let side = try nearestLabel(wrist(hand), labels, mirrored: true)
            #expect(hand.chirality == (side == "left" ? .right : .left), "\(file) flipped: hand at the \(side) wrist")
        }
        // ...and the same flipped pixels with orientation .upMirrored are un-mirrored first: the person's own hands again.
        let unmirrored = try hands(flipped, orientation: .upMirrored)
        #expect(unmirrored.count == 2)
        for hand in unmirrored {
            let side = try nearestLabel(wrist(hand), labels, mirrored: false)
            #expect(hand.chirality == (side == "left" ? .left : .right))
        }
    }
}
