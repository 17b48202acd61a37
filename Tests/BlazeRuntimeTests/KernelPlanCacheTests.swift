import BlazeKernels
import BlazeKit
import BlazeModelFormat
@testable import BlazeRuntime
import Foundation
import Testing

/// Issue #36: plans kept per model, CPU and options in a directory (`Planning.cached`), reused by later sessions
/// without timing, and never able to change a bit of the outputs.
@Suite struct KernelPlanCacheTests {
    /// A fresh directory under the system's temporary one.
    static func emptyDirectory() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("blazekit-plans-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    static func files(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// Every output of `session` on the model's input range filled from a fixed sequence.
    static func outputs(_ session: InferenceSession, _ file: ModelFile) -> [[Float]] {
        let range = file.metadata.input.valueRange
        var x: UInt32 = 0x2468_ACE1
        for i in session.input.indices {
            x ^= x << 13; x ^= x >> 17; x ^= x << 5
            session.input[i] = range[0] + (range[1] - range[0]) * Float(x >> 8) / 16_777_216
        }
        session.run()
        return session.outputDescriptions.indices.map { Array(session.output($0)) }
    }

    static func bits(_ outputs: [[Float]]) -> [[UInt32]] { outputs.map { $0.map(\.bitPattern) } }

    /// `Planning.reusing`: a second session of a model plans from the first one's choices without timing (as
    /// Holistic's second one-thread hand does), and a plan made for another model is measured again where it does
    /// not fit; the outputs are the fixed plan's bits either way.
    @Test func aSessionReusesAnotherSessionsPlan() throws {
        let file = try BuiltinModel.poseDetection.load()
        let first = try InferenceSession(model: file, options: RuntimeOptions())
        #expect(!first.kernelPlan.choices.isEmpty, "pose_detection timed no candidates")
        let twin = try InferenceSession(model: file, options: RuntimeOptions(planning: .reusing(first.kernelPlan)))
        #expect(twin.kernelPlan == first.kernelPlan && twin.kernelNames.map(\.kernel) == first.kernelNames.map(\.kernel))
        let reused = twin.kernelChoices.filter { !$0.isEmpty }
        #expect(reused.count == first.kernelPlan.choices.count && reused.allSatisfy { $0 == "from a kept plan" }, "\(reused)")

        let handPlan = try InferenceSession(model: BuiltinModel.handLandmarkFull.load(), options: RuntimeOptions()).kernelPlan
        let foreign = try InferenceSession(model: file, options: RuntimeOptions(planning: .reusing(handPlan)))
        let fixed = try InferenceSession(model: file, options: RuntimeOptions(planning: .fixed))
        let expected = Self.bits(Self.outputs(fixed, file))
        for session in [first, twin, foreign] { #expect(Self.bits(Self.outputs(session, file)) == expected) }
    }

    /// pose_detection has timed choices of both kinds (sparse or dense 1×1; its 7×7 and 14×14 maps).
    @Test func theFirstSessionStoresItsPlanAndTheNextReusesIt() throws {
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = try BuiltinModel.poseDetection.load()
        let first = try InferenceSession(model: file, options: RuntimeOptions(planning: .cached(directory: directory)))
        #expect(!first.kernelPlan.choices.isEmpty, "pose_detection timed no candidates")
        let stored = Self.files(in: directory)
        #expect(stored.count == 1 && stored[0].hasPrefix("pose_detection-") && stored[0].hasSuffix(".json"), "\(stored)")
        #expect(first.kernelChoices.allSatisfy { $0.isEmpty || $0.hasPrefix("timed") }, "\(first.kernelChoices)")

        let second = try InferenceSession(model: file, options: RuntimeOptions(planning: .cached(directory: directory)))
        #expect(second.kernelPlan == first.kernelPlan)
        #expect(second.kernelNames.map(\.kernel) == first.kernelNames.map(\.kernel))
        let reused = second.kernelChoices.filter { !$0.isEmpty }
        #expect(reused.count == first.kernelPlan.choices.count && reused.allSatisfy { $0 == "from a kept plan" }, "\(reused)")
        #expect(Self.files(in: directory) == stored)

        let fixed = try InferenceSession(model: file, options: RuntimeOptions(planning: .fixed))
        #expect(fixed.kernelPlan.choices.isEmpty)
        let expected = Self.bits(Self.outputs(fixed, file))
        #expect(Self.bits(Self.outputs(first, file)) == expected)
        #expect(Self.bits(Self.outputs(second, file)) == expected)
    }

    /// Another thread count is another plan, in a file of its own.
    @Test func eachThreadCountHasAFileOfItsOwn() throws {
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = try BuiltinModel.poseLandmarkFull.load()
        for threads in [1, 2, 1, 2] {
            _ = try InferenceSession(model: file, options: RuntimeOptions(threadCount: threads, planning: .cached(directory: directory)))
        }
        #expect(Self.files(in: directory).count == 2, "\(Self.files(in: directory))")
    }

    /// A damaged file, a file made for another key, and a file whose choices name kernels the planner no longer
    /// makes are all measured again and replaced; the outputs never change.
    @Test func aBadPlanFileIsMeasuredAgainAndReplaced() throws {
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = try BuiltinModel.poseDetection.load()
        let options = RuntimeOptions(planning: .cached(directory: directory))
        let good = try InferenceSession(model: file, options: options)
        let expected = Self.bits(Self.outputs(good, file))
        let path = directory + "/" + Self.files(in: directory)[0]
        let valid = try #require(FileManager.default.contents(atPath: path))
        let text = try #require(String(data: valid, encoding: .utf8))
        let damaged: [(String, Data)] = [
            ("truncated", valid.prefix(valid.count / 2)),
            ("not JSON", Data("\u{0}\u{1}plan".utf8)),
            ("another key", Data(text.replacingOccurrences(of: "threads: 1", with: "threads: 3").utf8)),
            ("unknown kernels", Data(text.replacingOccurrences(of: "\"kernel\" : \"", with: "\"kernel\" : \"gone-").utf8)),
            ("out-of-range candidates", Data(text.replacingOccurrences(of: "\"candidate\" : 1", with: "\"candidate\" : 7")
                .replacingOccurrences(of: "\"candidate\" : 0", with: "\"candidate\" : -1").utf8)),
        ]
        for (what, data) in damaged {
            #expect(FileManager.default.createFile(atPath: path, contents: data))
            let session = try InferenceSession(model: file, options: options)
            #expect(session.kernelChoices.allSatisfy { $0.isEmpty || $0.hasPrefix("timed") }, "\(what): \(session.kernelChoices)")
            #expect(Self.bits(Self.outputs(session, file)) == expected, "\(what): outputs changed")
            #expect(FileManager.default.contents(atPath: path) != data, "\(what): the file was not replaced")
            let reread = try InferenceSession(model: file, options: options)
            #expect(reread.kernelChoices.filter { !$0.isEmpty }.allSatisfy { $0 == "from a kept plan" }, "\(what): not reused after")
        }
    }

    /// An empty path (which would put the files at the root) is refused before anything is planned.
    @Test func anEmptyDirectoryIsRefused() throws {
        let file = try BuiltinModel.handRecrop.load()
        #expect {
            _ = try InferenceSession(model: file, options: RuntimeOptions(planning: .cached(directory: "")))
        } throws: { error in
            guard case RuntimeError.invalidOption(let name, _, let actual) = error else { return false }
            return name == "planning" && actual == "an empty path"
        }
    }

    /// A directory that cannot be made (a path through a regular file) is refused, named in the error.
    @Test func anUnwritableDirectoryIsNamed() throws {
        let directory = try Self.emptyDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let blocker = directory + "/a-file"
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
        let file = try BuiltinModel.poseDetection.load()
        #expect {
            _ = try InferenceSession(model: file, options: RuntimeOptions(planning: .cached(directory: blocker + "/plans")))
        } throws: { error in
            guard case RuntimeError.invalidOption(let name, _, let actual) = error else { return false }
            return name == "planning" && actual.contains(blocker + "/plans")
        }
    }
}
