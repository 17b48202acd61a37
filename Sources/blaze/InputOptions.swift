import ArgumentParser
import BlazeKit
import Foundation

/// Options every landmark subcommand shares: what to read, how to time it, where results go, and the threads
/// and kernel planning of the networks.
struct InputOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("Photos (PNG, JPEG) and videos (anything FFmpeg reads: MP4, MOV, MKV, WebM, AVI, …), "
                                 + "or directories of them (searched one level deep, in name order). "
                                 + "Files are recognized by their content, not their name."))
    var inputs: [String] = []

    @Option(help: ArgumentHelp("Also read input paths from this file, one per line ('-' for standard input; "
                               + "blank lines and lines starting with # are ignored).", valueName: "FILE"))
    var inputsFrom: String?

    @Option(help: ArgumentHelp("Process only the I-th (from 0) of N contiguous slices of the inputs sorted by path. "
                               + "auto/N takes I from JOB_COMPLETION_INDEX (Kubernetes Indexed Job), SLURM_ARRAY_TASK_ID "
                               + "(minus SLURM_ARRAY_TASK_MIN) or AWS_BATCH_JOB_ARRAY_INDEX.", valueName: "I/N|auto/N"))
    var shard: String?

    @Option(help: ArgumentHelp("Write each input's lines to DIR/<file name>.jsonl (written under a temporary name, "
                               + "then renamed) instead of standard output.", valueName: "DIR"))
    var outputDir: String?

    @Flag(help: "With --output-dir: skip inputs whose output file already exists (a rerun after a crash redoes only what was lost).")
    var resume = false

    @Flag(help: "No progress line on standard error.")
    var quiet = false

    @Flag(help: ArgumentHelp("After each video, print on standard error its frames, seconds and frames per second, timed from "
                             + "opening the file to its last line (making the landmarker is not counted)."))
    var timing = false

    @Option(help: "Threads per inference (1...64).")
    var threads = 1

    @Flag(help: ArgumentHelp("Plan kernels by fixed rules instead of timing candidates when the networks load "
                             + "(same outputs; faster startup)."))
    var fixedPlan = false

    @Option(help: ArgumentHelp("Keep the kernels' timings in this directory (e.g. ~/.cache/blazekit/plans), one file per "
                               + "network, CPU and thread count, and reuse them in later runs instead of timing again "
                               + "(same outputs; faster startup after the first run).", valueName: "directory"))
    var planCache: String?

    /// Sets `base`'s thread count (`--threads`) and kernel planning (`--fixed-plan`, `--plan-cache`).
    func apply(to base: BaseOptions) {
        base.threadCount = threads
        base.kernelPlanning = fixedPlan ? .fixed : planCache.map { .cached(directory: $0) } ?? .measured
    }

    @Option(help: ArgumentHelp("Which threads decode a video's frames ahead: reader-thread (a thread of the reader's own, "
                               + "with FFmpeg's decoding threads), idle-workers (one FFmpeg thread, run by the inference's "
                               + "worker threads between their parallel loops; needs --threads 2 or more) or auto: "
                               + "idle-workers when --threads is at least 2 and at least the processors available, "
                               + "where a decoder of its own would compete with the inference for the cores. The "
                               + "results are the same.", valueName: "auto|reader-thread|idle-workers"))
    var decodeAhead: DecodeAhead = .auto

    enum DecodeAhead: String, ExpressibleByArgument, CaseIterable {
        case auto, readerThread = "reader-thread", idleWorkers = "idle-workers"
    }

    /// Whether video frames are decoded in the inference workers' idle time (`--decode-ahead`).
    var decodesOnIdleWorkers: Bool {
        switch decodeAhead {
        case .auto: return threads >= 2 && threads >= ProcessInfo.processInfo.activeProcessorCount
        case .readerThread: return false
        case .idleWorkers: return true
        }
    }

    @Flag(help: "Treat the inputs as the frames of one video, in order: track from frame to frame (needs --fps).")
    var video = false

    @Option(help: "Frame rate of --video input; frame i gets the timestamp round(i·1000/fps) ms.")
    var fps: Double?

    @Option(help: ArgumentHelp("Read raw RGB24 frames of this size from standard input instead of files.",
                               valueName: "WIDTHxHEIGHT"))
    var raw: String?

    mutating func validate() throws {
        if fixedPlan, planCache != nil {
            throw ValidationError("--fixed-plan times nothing, so there is nothing for --plan-cache to keep: give one of them")
        }
        if let planCache, planCache.isEmpty { throw ValidationError("--plan-cache needs a directory, got an empty path") }
        if video {
            guard let fps else { throw ValidationError("--video needs --fps") }
            guard fps.isFinite, fps > 0 else { throw ValidationError("--fps must be a positive number, got \(fps)") }
            guard shard == nil, outputDir == nil else {
                throw ValidationError("--video treats all inputs as one video's frames; --shard and --output-dir split inputs apart")
            }
        } else if fps != nil {
            throw ValidationError("--fps is only used with --video (video files carry their own timestamps)")
        }
        if raw != nil {
            _ = try rawSize()
            guard inputs.isEmpty, inputsFrom == nil, shard == nil, outputDir == nil else {
                throw ValidationError("--raw reads standard input; do not also name inputs, --inputs-from, --shard or --output-dir")
            }
        } else if inputs.isEmpty, inputsFrom == nil {
            throw ValidationError("name at least one photo, video or directory, use --inputs-from FILE, or --raw WIDTHxHEIGHT")
        }
        if decodeAhead == .idleWorkers, threads < 2 {
            throw ValidationError("--decode-ahead idle-workers needs --threads 2 or more: with \(threads) the inference has no worker threads")
        }
        if resume, outputDir == nil { throw ValidationError("--resume needs --output-dir (it skips inputs whose output file exists)") }
        if let shard { _ = try InputSelection.Shard.parse(shard, environment: ProcessInfo.processInfo.environment) }
    }

    /// The `--raw` frame size.
    func rawSize() throws -> (width: Int, height: Int) {
        let parts = (raw ?? "").lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= 16384, h <= 16384 else {
            throw ValidationError("--raw expects WIDTHxHEIGHT with sides in 1...16384, got '\(raw ?? "")'")
        }
        return (w, h)
    }

    /// The selected input files (empty with `--raw`).
    func files() throws -> [String] {
        let shard = try self.shard.map { try InputSelection.Shard.parse($0, environment: ProcessInfo.processInfo.environment) }
        return try InputSelection.files(arguments: inputs, inputsFrom: inputsFrom, shard: shard)
    }
}
