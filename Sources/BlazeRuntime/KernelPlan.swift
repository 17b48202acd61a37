import BlazeKernels
import BlazeModelFormat
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The kernel choices a measured plan made: for each node where candidate kernels were timed, which one won.
/// ``InferenceSession/kernelPlan`` gives a session's; ``Planning/cached(directory:)`` keeps them on disk and
/// plans the next session of the same model, host and options from them instead of timing again.
///
/// Candidates only ever compute the same bits (``Planning``), so a plan decides speed, never results: a plan
/// from another machine, an older build or a damaged file can make a session slower, not different.
public struct KernelPlan: Codable, Sendable, Hashable {
    /// One timed node: its index in the model graph, the winning candidate (0 or 1, in the order the op's planner
    /// offers them) and that kernel's name, which must match for the choice to be reused.
    public struct Choice: Codable, Sendable, Hashable {
        public let node: Int, candidate: Int, kernel: String
    }

    public let choices: [Choice]
}

/// A ``KernelPlan`` file in a plan-cache directory: one per model, CPU identity and session options, named by a
/// hash of all three and holding them in full, so a file for anything else is never used.
struct KernelPlanFile {
    /// Raised when the file's layout changes; older files are then measured again and replaced.
    static let formatVersion = 1
    let directory: String
    let key: String
    /// `<directory>/<model name>-<16 hex digits of the key's FNV-1a hash>.json`.
    let path: String

    init(directory: String, model: ModelFile, options: RuntimeOptions) {
        self.directory = directory
        let m = model.metadata
        let outputs = (options.computedOutputs.map { $0.sorted() } ?? Array(model.graph.outputs.indices)).map(String.init)
        key = ["BlazeKit kernel plan \(Self.formatVersion)",
               "cpu: \(CPUFeatures.identity)",
               "model: \(m.name) \(m.sourceSHA256) converter \(m.converterVersion) nodes \(model.graph.nodes.count)",
               "threads: \(options.threadCount)",
               "gemm: \(options.gemmTile?.rawValue ?? "blas")",
               "sparse: \(options.sparseConvolution)",
               "fused epilogues: \(options.fusesEpilogues)",
               "outputs: \(outputs.joined(separator: ","))"].joined(separator: "\n")
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        let name = String(m.name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" }.prefix(64))
        path = directory + "/" + name + "-" + String(repeating: "0", count: 16 - hex.count) + hex + ".json"
    }

    private struct Stored: Codable {
        var key: String
        var plan: KernelPlan
    }

    /// The stored plan, or nil when there is none, it cannot be read or parsed, or it was made for another key.
    func load() -> KernelPlan? {
        guard let data = FileManager.default.contents(atPath: path),
              let stored = try? JSONDecoder().decode(Stored.self, from: data), stored.key == key else { return nil }
        return stored.plan
    }

    /// Writes `plan` through a file of this process's own, renamed into place, so that a reader never sees half a
    /// file and two sessions storing at once leave one whole plan.
    /// - Throws: `RuntimeError.invalidOption` naming the directory when it cannot be created or written.
    func store(_ plan: KernelPlan) throws {
        func failure(_ what: String) -> RuntimeError {
            .invalidOption(name: "planning", expected: "a plan-cache directory this process can write",
                           actual: "\(directory) (\(what))")
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw failure("cannot create it: \(error)")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(Stored(key: key, plan: plan)) else { throw failure("cannot encode the plan") }
        let target = path
        let temporary = target + ".\(getpid()).\(UInt64.random(in: 0...UInt64.max)).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data) else { throw failure("cannot write \(temporary)") }
        guard rename(temporary, target) == 0 else {
            unlink(temporary)
            throw failure("cannot rename \(temporary) to \(target)")
        }
    }
}
