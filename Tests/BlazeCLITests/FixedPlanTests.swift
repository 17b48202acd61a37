import BlazeKit
import BlazeRuntime
import BlazeTestSupport
import Foundation
import Testing
@testable import blaze

/// `--fixed-plan` and `--plan-cache` (every landmark command): they reach the task's base options, and the lines
/// are the same bytes as without them.
@Suite struct FixedPlanTests {
    /// The flag, parsed by each command, sets the base options' kernel planning (and `--threads` their threads);
    /// `blaze body`'s Vision request plans its networks with it.
    @Test func theFlagSetsTheBaseOptions() throws {
        let commands: [(String, InputOptions)] = [
            ("pose", try PoseCommand.parse(["--fixed-plan", "--threads", "2", "x.png"]).input),
            ("hand", try HandCommand.parse(["--fixed-plan", "--threads", "2", "x.png"]).input),
            ("holistic", try HolisticCommand.parse(["--fixed-plan", "--threads", "2", "x.png"]).input),
            ("body", try BodyCommand.parse(["--fixed-plan", "--threads", "2", "x.png"]).input),
        ]
        for (name, input) in commands {
            let options = PoseLandmarkerOptions()
            #expect(LandmarkerCommandOptions.apply(model: "lite", to: options, input: input) == "lite")
            #expect(options.baseOptions.kernelPlanning == .fixed && options.baseOptions.threadCount == 2, "\(name): \(options.baseOptions)")
        }
        let measured = PoseLandmarkerOptions()
        _ = LandmarkerCommandOptions.apply(model: "full", to: measured, input: try PoseCommand.parse(["x.png"]).input)
        #expect(measured.baseOptions.kernelPlanning == .measured)

        let body = BodyPoseOptions()
        commands[3].1.apply(to: body.baseOptions)
        let sessions = reachableObjects(InferenceSession.self, from: try BodyPosePipeline(options: body))
        #expect(sessions.count == 2 && sessions.allSatisfy { $0.options.planning == .fixed }, "\(sessions.map(\.options))")
    }

    /// pose (photos and a clip), hand, holistic and body: standard output with `--fixed-plan` is the same bytes
    /// as without, at one thread and at two.
    @Test func linesAreTheSameBytesWithAndWithoutTheFlag() throws {
        let directory = try makeTemporaryDirectory("fixed-plan")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("pan.mp4").path
        try writePanClip(to: clip)
        let people = fixturePhotos.appendingPathComponent("pose").path, hands = fixturePhotos.appendingPathComponent("hand").path
        let runs: [[String]] = [["pose", "--num-poses", "2", people, clip], ["hand", "--num-hands", "2", hands],
                                ["holistic", people], ["body", people]]
        for run in runs {
            for threads in ["1", "2"] {
                let arguments = [run[0], "--quiet", "--threads", threads] + run.dropFirst()
                let measured = try blaze(arguments), fixed = try blaze(arguments + ["--fixed-plan"])
                #expect(measured.status == 0 && fixed.status == 0, "\(arguments): \(measured.stderr) \(fixed.stderr)")
                #expect(measured.lines.count >= 5 && fixed.stdout == measured.stdout,
                        "\(arguments): \(fixed.lines.count) lines with --fixed-plan, \(measured.lines.count) without")
            }
        }
    }

    /// `--plan-cache DIR` sets `.cached(directory:)`; beside `--fixed-plan`, or with an empty path, it is refused.
    @Test func thePlanCacheOptionSetsTheBaseOptions() throws {
        let options = PoseLandmarkerOptions()
        _ = LandmarkerCommandOptions.apply(model: "full", to: options,
                                          input: try HolisticCommand.parse(["--plan-cache", "/tmp/plans", "x.png"]).input)
        #expect(options.baseOptions.kernelPlanning == .cached(directory: "/tmp/plans"))
        for bad in [["--fixed-plan", "--plan-cache", "/tmp/plans", "x.png"], ["--plan-cache", "", "x.png"]] {
            #expect(throws: (any Error).self, "\(bad)") { _ = try PoseCommand.parse(bad) }
        }
    }

    /// holistic over photos with `--plan-cache`: the first run fills the directory, the second reuses it, and both
    /// print the bytes a run without it prints.
    @Test func aPlanCacheFillsOnceAndChangesNoLine() throws {
        let directory = try makeTemporaryDirectory("plan-cache")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = directory.appendingPathComponent("plans").path
        let arguments = ["holistic", "--quiet", "--threads", "2", fixturePhotos.appendingPathComponent("pose").path]
        let plain = try blaze(arguments)
        let first = try blaze(arguments + ["--plan-cache", cache])
        let stored = try FileManager.default.contentsOfDirectory(atPath: cache).sorted()
        let second = try blaze(arguments + ["--plan-cache", cache])
        #expect(plain.status == 0 && first.status == 0 && second.status == 0, "\(first.stderr) \(second.stderr)")
        #expect(plain.lines.count >= 5 && first.stdout == plain.stdout && second.stdout == plain.stdout)
        // pose detector and landmarks, and hand re-crop, hand landmarks, face detector and face mesh on two threads
        // and (beside each other) on one.
        #expect(stored.count >= 6 && stored.allSatisfy { $0.hasSuffix(".json") }, "\(stored)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache).sorted() == stored)
    }
}
