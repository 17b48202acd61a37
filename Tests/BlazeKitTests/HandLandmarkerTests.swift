import BlazeKit
import Foundation
import Testing

/// MediaPipe Tasks 0.10.14 HandLandmarker results on five photos, written by `Tools/fixtures/make_hand_reference.py`.
struct HandReference: Decodable, Sendable, CustomStringConvertible {
    struct Hand: Decodable, Sendable {
        struct Handedness: Decodable, Sendable {
            var index: Int
            var categoryName: String
            var score: Float
        }

        var handedness: Handedness
        var landmarks: [[Float]]
        var worldLandmarks: [[Float]]
    }

    var image: String
    var width: Int
    var height: Int
    var numHands: Int
    var hands: [Hand]
    var variant: String = ""

    private enum CodingKeys: String, CodingKey { case image, width, height, numHands, hands }

    var description: String { "\(variant) \(image)" }

    static let directory = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/hand")

    static func load(_ variant: String) -> [HandReference] {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("reference_\(variant).jsonl"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            var r = try? JSONDecoder().decode(HandReference.self, from: Data($0.utf8))
            r?.variant = variant
            return r
        }
    }

    static let all = load("full") + load("lite")
}

@Suite struct HandLandmarkerParityTests {
    @Test func fixturesArePresent() {
        #expect(HandReference.all.count == 10)
        #expect(HandReference.all.contains { $0.hands.count == 2 } && HandReference.all.contains { $0.hands.isEmpty })
    }

    /// Same hand count and order; the same handedness label (score within 0.02); landmarks within
    /// 0.002 of the image size on average (0.01 at worst); world landmarks within 5 mm on average.
    @Test(arguments: HandReference.all)
    func matchesMediaPipe(reference r: HandReference) throws {
        let options = HandLandmarkerOptions()
        options.model = r.variant == "full" ? .full : .lite
        options.numHands = r.numHands
        let landmarker = try HandLandmarker(options: options)
        let image = try Image(contentsOfPNGFile: HandReference.directory.appendingPathComponent(r.image).path)
        let result = try landmarker.detect(image: image)
        try #require(result.landmarks.count == r.hands.count, "\(r): \(result.landmarks.count) hands, MediaPipe found \(r.hands.count)")
        for (i, hand) in r.hands.enumerated() {
            let category = try #require(result.handedness[i].first)
            #expect(category.categoryName == hand.handedness.categoryName && category.index == hand.handedness.index,
                    "\(r) hand \(i): \(category.categoryName), MediaPipe \(hand.handedness.categoryName)")
            #expect(abs(category.score - hand.handedness.score) <= 0.02)
            let ours = result.landmarks[i], world = result.worldLandmarks[i]
            try #require(ours.count == 21 && world.count == 21)
            var sum: Float = 0, worst: Float = 0, worldSum: Float = 0
            for k in 0..<21 {
                let dx = abs(ours[k].x - hand.landmarks[k][0]), dy = abs(ours[k].y - hand.landmarks[k][1])
                sum += dx + dy
                worst = max(worst, dx, dy)
                let w = hand.worldLandmarks[k]
                worldSum += ((world[k].x - w[0]) * (world[k].x - w[0]) + (world[k].y - w[1]) * (world[k].y - w[1])
                             + (world[k].z - w[2]) * (world[k].z - w[2])).squareRoot()
            }
            #expect(sum / 42 <= 0.002, "\(r) hand \(i): mean |Δ| \(sum / 42)")
            #expect(worst <= 0.01, "\(r) hand \(i): max |Δ| \(worst)")
            #expect(worldSum / 21 <= 0.005, "\(r) hand \(i): world mean error \(worldSum / 21) m")
        }
    }

    @Test func resultsAreCodableAndNamed() throws {
        let landmarker = try HandLandmarker(options: HandLandmarkerOptions())
        let image = try Image(contentsOfPNGFile: HandReference.directory.appendingPathComponent("onehand10k_1402.png").path)
        let result = try landmarker.detect(image: image)
        #expect(try JSONDecoder().decode(HandLandmarkerResult.self, from: JSONEncoder().encode(result)) == result)
        #expect(HandLandmarkName.allCases.count == 21)
        // The landmark named indexFingerTip is MediaPipe's (index 8), where MediaPipe puts it.
        #expect(HandLandmarkName.indexFingerTip.rawValue == 8)
        let reference = try #require(HandReference.load("full").first { $0.image == "onehand10k_1402.png" }?.hands.first)
        let tip = try #require(result.landmarks.first?[HandLandmarkName.indexFingerTip.rawValue])
        #expect(abs(tip.x - reference.landmarks[8][0]) <= 0.002 && abs(tip.y - reference.landmarks[8][1]) <= 0.002,
                "index finger tip \(tip) vs \(reference.landmarks[8])")
    }
}

@Suite struct HandLandmarkerAPITests {
    @Test(arguments: ["numHands", "minHandDetectionConfidence", "minHandPresenceConfidence", "minTrackingConfidence",
                      "baseOptions.threadCount"])
    func invalidOptionsAreRejectedAtInit(name: String) {
        let options = HandLandmarkerOptions()
        switch name {
        case "numHands": options.numHands = -1
        case "minHandDetectionConfidence": options.minHandDetectionConfidence = 2
        case "minHandPresenceConfidence": options.minHandPresenceConfidence = -1
        case "minTrackingConfidence": options.minTrackingConfidence = .infinity
        default: options.baseOptions.threadCount = 65
        }
        do {
            _ = try HandLandmarker(options: options)
            Issue.record("\(name): accepted")
        } catch let TaskError.invalidOption(option, _, _) {
            #expect(option == name)
        } catch {
            Issue.record("\(name): unexpected error \(error)")
        }
    }

    @Test func modelPathErrors() throws {
        #expect(throws: TaskError.self) { try HandLandmarker(modelPath: "/nonexistent/hands") }
        let poseModel = try BuiltinModel.poseLandmarkFull.url.path
        #expect(throws: RuntimeError.self) { try HandLandmarker(modelPath: poseModel) }
    }

    @Test func wrongRunningModeAndMirroredOrientationsAreErrors() throws {
        let options = HandLandmarkerOptions()
        options.runningMode = .liveStream
        let recorder = StreamRecorder()
        options.handLandmarkerLiveStreamDelegate = recorder
        let image = try Image(rgb: [UInt8](repeating: 0, count: 16 * 16 * 3), width: 16, height: 16)
        #expect(throws: TaskError.runningModeMismatch(method: "detect(image:)", expected: .image, actual: .liveStream)) {
            try HandLandmarker(options: options).detect(image: image)
        }
        let landmarker = try HandLandmarker(options: HandLandmarkerOptions())
        var mirrored = image
        mirrored.orientation = .leftMirrored
        #expect(throws: (any Error).self) { try landmarker.detect(image: mirrored) }
    }

    @Test func blankImagesGiveNoHands() throws {
        let landmarker = try HandLandmarker(options: HandLandmarkerOptions())
        for (w, h) in [(1, 1), (640, 480), (2, 900)] {
            let image = try Image(rgb: [UInt8](repeating: 200, count: w * h * 3), width: w, height: h)
            #expect(try landmarker.detect(image: image).landmarks.isEmpty, "\(w)x\(h)")
        }
    }
}
