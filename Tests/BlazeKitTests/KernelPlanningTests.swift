import BlazeImage
import BlazeKit
import BlazeRuntime
import BlazeTestSupport
import Foundation
import Testing

/// `BaseOptions.kernelPlanning`: it reaches every network a task plans, and `.fixed` gives the same bits as
/// `.measured`, the default.
@Suite struct KernelPlanningTests {
    /// The PNG photos of `Fixtures/<directory>` (masks left out), in name order.
    static func photos(_ directory: String) throws -> [Image] {
        let url = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/\(directory)")
        return try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
            .filter { $0.hasSuffix(".png") && !$0.contains(".mask") }
            .map { try Image(contentsOfPNGFile: url.appendingPathComponent($0).path) }
    }

    /// Each pipeline a task may build, with the number of networks it plans at two threads.
    enum Pipeline: String, CaseIterable, CustomStringConvertible {
        case pose, poseAccurate, poseLegacy, hand, handAccurate, handLegacy, holistic

        var description: String { rawValue }

        /// Detector and landmarks; the accurate modes add a single-threaded detector per thread (two); holistic
        /// is the pose's two, two face pairs (detector and mesh: one on the task's threads, one on a thread beside a
        /// hand) and three hand pairs (re-crop and landmarks: one on the task's threads, one per side on a thread each).
        var networksAtTwoThreads: Int {
            switch self {
            case .pose, .poseLegacy, .hand, .handLegacy: return 2
            case .poseAccurate, .handAccurate: return 4
            case .holistic: return 12
            }
        }

        func task(planning: Planning, threads: Int) throws -> AnyObject {
            func configure(_ options: TaskOptions) {
                options.baseOptions.kernelPlanning = planning
                options.baseOptions.threadCount = threads
            }
            switch self {
            case .pose, .poseAccurate, .poseLegacy:
                let options = PoseLandmarkerOptions()
                configure(options)
                options.shouldOutputSegmentationMasks = true
                if self == .poseAccurate { options.accurateMode = PoseAccurateMode() }
                if self == .poseLegacy { options.legacySolution = LegacyPoseSolution() }
                return try PoseLandmarker(options: options)
            case .hand, .handAccurate, .handLegacy:
                let options = HandLandmarkerOptions()
                configure(options)
                if self == .handAccurate { options.accurateMode = HandAccurateMode() }
                if self == .handLegacy { options.legacySolution = LegacyHandSolution() }
                return try HandLandmarker(options: options)
            case .holistic:
                let options = HolisticLandmarkerOptions()
                configure(options)
                return try HolisticLandmarker(options: options)
            }
        }
    }

    /// Every session the task holds was planned as its base options say; none is left at the default. The
    /// exception: Holistic's second one-thread hand reuses the first one's choices (`.reusing`) when they were
    /// timed or cached.
    @Test(arguments: Pipeline.allCases)
    func everyNetworkIsPlannedAsTheBaseOptionsSay(pipeline: Pipeline) throws {
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("blazekit-plans-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        for planning in [Planning.fixed, .measured, .cached(directory: cache.path)] {
            let sessions = reachableObjects(InferenceSession.self, from: try pipeline.task(planning: planning, threads: 2))
            #expect(sessions.count == pipeline.networksAtTwoThreads, "\(pipeline) \(planning): \(sessions.count) sessions")
            let twins = sessions.filter { if case .reusing = $0.options.planning { true } else { false } }
            #expect(twins.count == (pipeline == .holistic && planning != .fixed ? 2 : 0), "\(pipeline) \(planning): \(twins.count) reusing")
            #expect(sessions.allSatisfy { session in session.options.planning == planning || twins.contains { $0 === session } },
                    "\(pipeline) \(planning): \(sessions.map { "\($0.model.path): \($0.options.planning)" })")
        }
    }

    /// Copies, equality and the description carry the option.
    @Test func baseOptionsCarryKernelPlanning() {
        let base = BaseOptions(threadCount: 2, kernelPlanning: .fixed)
        #expect(BaseOptions().kernelPlanning == .measured)
        #expect(base.copy() == base && base.copy().kernelPlanning == .fixed)
        #expect(base != BaseOptions(threadCount: 2))
        #expect(base.description.hasSuffix("kernelPlanning: .fixed)"), "\(base)")
        let options = PoseLandmarkerOptions()
        options.baseOptions.kernelPlanning = .fixed
        #expect(options.copy().baseOptions.kernelPlanning == .fixed)
    }

    /// Pose (two people, masks) on the pose photos and on the frames of a clip (video mode), hands (two) on the
    /// hand photos and holistic (with the mask) on the pose photos: the same bits with either planning, at one
    /// thread and at two.
    @Test(arguments: [1, 2])
    func resultsAreTheSameBits(threads: Int) throws {
        let people = try Self.photos("pose"), frames = try Self.photos("identity"), hands = try Self.photos("hand")
        let measured = try Self.expectSameBits(threads: threads) { base in
            let pose = PoseLandmarkerOptions(), hand = HandLandmarkerOptions(), holistic = HolisticLandmarkerOptions()
            (pose.baseOptions, hand.baseOptions, holistic.baseOptions) = (base, base.copy(), base.copy())
            (pose.numPoses, pose.shouldOutputSegmentationMasks, hand.numHands) = (2, true, 2)
            holistic.shouldOutputPoseSegmentationMasks = true
            let poseImages = try PoseLandmarker(options: pose), handImages = try HandLandmarker(options: hand)
            let holisticImages = try HolisticLandmarker(options: holistic)
            pose.runningMode = .video
            let poseVideo = try PoseLandmarker(options: pose)
            return try people.map { bits(try poseImages.detect(image: $0)) }
                + frames.enumerated().map { bits(try poseVideo.detect(videoFrame: $1, timestampInMilliseconds: 40 * $0)) }
                + hands.map { bits(try handImages.detect(image: $0)) } + people.map { bits(try holisticImages.detect(image: $0)) }
        }
        try #require(measured.count == 31)
        #expect(measured[0..<21].contains { $0.count > 1000 } && measured[21..<26].contains { $0.count > 100 }
                && measured[26...].contains { $0.count > 1000 })
    }

    /// `results` (each input's bits) with `.measured` and with `.fixed` base options of `threads` threads: expects
    /// the same bits input by input, and returns the measured ones.
    static func expectSameBits(threads: Int, _ results: (BaseOptions) throws -> [[UInt64]]) throws -> [[UInt64]] {
        let measured = try results(BaseOptions(threadCount: threads, kernelPlanning: .measured))
        let fixed = try results(BaseOptions(threadCount: threads, kernelPlanning: .fixed))
        #expect(measured.count == fixed.count)
        for (i, (a, b)) in zip(measured, fixed).enumerated() { #expect(a == b, "input \(i) at \(threads) threads") }
        return measured
    }
}
