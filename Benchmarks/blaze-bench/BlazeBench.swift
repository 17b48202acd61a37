import ArgumentParser
import BlazeKit
import BlazeKernels
import BlazeImage
import BlazeModelFormat
import BlazeRuntime
import BlazeStages
import CBLAS
import Foundation

@main
struct BlazeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blaze-bench",
        abstract: "Times BlazeKit's models on this machine.",
        subcommands: [ModelsBenchmark.self, PipelineBenchmark.self, LiveStreamBenchmark.self, CropBenchmark.self,
                      KernelBenchmark.self, VideoBenchmark.self, FrameDump.self, PhotoBenchmark.self, HandPhotoBenchmark.self, PoolBenchmark.self])

    /// The benchmark owns its process: OpenBLAS is tuned once, before anything runs (see `ProcessTuning`).
    static func main() {
        ProcessTuning.tuneOpenBLAS()
        main(nil)
    }
}

struct ModelsBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "Warms up, then times each converted model and prints median, min and p90 latency.")

    @Option(help: "Threads per inference (1...64).") var threads = 1
    @Option(help: "Timed runs per model.") var runs = 50
    @Option(help: "Untimed warm-up runs per model.") var warmup = 10
    @Option(name: .customLong("model"), help: "Only this model (repeatable), e.g. pose_landmark_full.")
    var onlyModels: [String] = []
    @Option(help: "Read <name>.bkm files from this directory instead of the built-in models.")
    var modelsDir: String?
    @Flag(help: "Print one JSON object per model per line.") var json = false
    @Flag(help: "Print time per op kind, the slowest nodes of each model, how many regions a run runs and the slowest regions.") var perLayer = false
    @Option(help: "With --per-layer, how many of the slowest nodes to list (each node timed at its best of 11 runs).") var topNodes = 8
    @Option(help: "Convolution GEMM: automatic, blas, or a packed tile (avx512-8x32, fma-6x16).") var gemm = "automatic"
    @Option(help: ArgumentHelp("Kernel instruction set: automatic, avx2 (the 6×16 GEMM tile and 8-channel depthwise, what a "
                               + "CPU without AVX-512 runs) or avx512 (the 8×32 tile and 16-channel depthwise).", valueName: "isa"))
    var isa = "automatic"
    @Option(help: "Sparse 1×1 convolutions: measured, dense or sparse.") var sparse = "measured"
    @Flag(help: "With --per-layer, print every node's kernel and rate instead of the slowest few, and the nodes of each region of several steps.") var allNodes = false
    @Flag(help: "Run add and PReLU nodes as passes of their own, not inside the convolution before them (same outputs).")
    var unfused = false
    @Flag(help: "Plan by fixed rules instead of timing candidate kernels when the session is made (same outputs).")
    var fixedPlan = false
    @Option(help: "Keep the kernel plans in this directory and reuse them on later runs (Planning.cached; same outputs).")
    var planCache: String?
    @Flag(help: "Run each depthwise convolution and the convolutions around it step by step, not in bands of rows (same outputs).")
    var unbanded = false
    @Option(help: ArgumentHelp("Also run each model unbanded, unfused (same outputs) or the same, alternating with the options "
                               + "given run by run in one process, and print both and the median of the paired time ratios: "
                               + "a comparison that holds on a loaded host.", valueName: "variant"))
    var pairedWith: PairedVariant?

    var sparseConvolution: SparseConvolution? {
        switch sparse {
        case "measured": return .measured
        case "dense": return .dense
        case "sparse": return .sparse
        default: return nil
        }
    }

    var convolutionGEMM: ConvolutionGEMM? {
        switch (isa, gemm) {
        case ("avx2", "automatic"): return .packed(.fma6x16)
        case ("avx512", "automatic"): return .packed(.avx512x8x32)
        case ("automatic", "automatic"): return .automatic
        case ("automatic", "blas"): return .blas
        case ("automatic", _): return GEMMTile(rawValue: gemm).map { .packed($0) }
        default: return nil
        }
    }

    func validate() throws {
        guard (1...64).contains(threads) else { throw ValidationError("--threads expected 1...64, found \(threads)") }
        guard runs >= 1 else { throw ValidationError("--runs expected at least 1, found \(runs)") }
        guard warmup >= 0 else { throw ValidationError("--warmup expected at least 0, found \(warmup)") }
        guard !(fixedPlan && planCache != nil) else { throw ValidationError("--fixed-plan times nothing for --plan-cache to keep: give one") }
        guard pairedWith == nil || !perLayer else { throw ValidationError("--paired-with times whole runs: leave out --per-layer") }
        guard sparseConvolution != nil else { throw ValidationError("--sparse expected measured, dense or sparse, found \(sparse)") }
        guard ["automatic", "avx2", "avx512"].contains(isa) else {
            throw ValidationError("--isa expected automatic, avx2 or avx512, found \(isa)")
        }
        guard isa == "automatic" || gemm == "automatic" else {
            throw ValidationError("--isa \(isa) and --gemm \(gemm) both choose the kernels; give one of them")
        }
        guard isa != "avx512" || GEMMTile.avx512x8x32.isSupported else {
            throw ValidationError("--isa avx512: this CPU (or build) has no AVX-512 F/BW/DQ/VL; use --isa avx2")
        }
        guard convolutionGEMM != nil else {
            throw ValidationError("--gemm expected automatic, blas, \(GEMMTile.allCases.map(\.rawValue).joined(separator: ", ")), found \(gemm)")
        }
        let known = Set(BuiltinModel.allCases.map(\.rawValue))
        for m in onlyModels where !known.contains(m) {
            throw ValidationError("--model expected one of \(known.sorted().joined(separator: ", ")), found \(m)")
        }
    }

    func run() throws {
        if !json {
            print(MachineDescription.current)
            print("# BLAS kernels: \(BLASKernelSelection.upgradeIfBeneficial())")
            print("# kernels: --isa \(isa) --gemm \(gemm) (best tile here: \(GEMMTile.best?.rawValue ?? "none, BLAS"))")
        }
        let planning: Planning = fixedPlan ? .fixed : planCache.map { .cached(directory: $0) } ?? .measured
        let models = BuiltinModel.allCases.filter { onlyModels.isEmpty || onlyModels.contains($0.rawValue) }
        for m in models {
            let file = try modelsDir.map { try ModelFile(path: URL(fileURLWithPath: $0).appendingPathComponent(m.fileName).path) }
                ?? m.load()
            let session = try InferenceSession(model: file, options: RuntimeOptions(threadCount: threads, convolutionGEMM: convolutionGEMM!,
                                                                                       sparseConvolution: sparseConvolution!,
                                                                                       fusesEpilogues: !unfused,
                                                                                       runsDepthwiseInBands: !unbanded,
                                                                                       planning: planning))
            let range = file.metadata.input.valueRange
            var state: UInt32 = 0x9E37_79B9
            for i in session.input.indices {
                state ^= state << 13; state ^= state >> 17; state ^= state << 5
                session.input[i] = range[0] + (range[1] - range[0]) * Float(state >> 8) / 16_777_216
            }
            if let pairedWith {
                try runPaired(m, session, pairedWith)
                continue
            }
            // A run may reuse the input's memory for later values: each run gets the input afresh, untimed.
            let input = Array(session.input)
            for _ in 0..<warmup { _ = session.input.update(fromContentsOf: input); session.run() }
            var times: [Double] = []
            times.reserveCapacity(runs)
            for _ in 0..<runs {
                _ = session.input.update(fromContentsOf: input)
                let t0 = DispatchTime.now().uptimeNanoseconds
                session.run()
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
            }
            times.sort()
            let median = times.count % 2 == 1 ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
            let p90 = times[min(times.count - 1, Int((Double(times.count) * 0.9).rounded(.up)) - 1)]
            if json {
                print(#"{"model":"\#(m.rawValue)","threads":\#(threads),"medianMs":\#(fmt(median)),"minMs":\#(fmt(times[0])),"p90Ms":\#(fmt(p90)),"planMs":\#(fmt(session.planSeconds * 1000))}"#)
            } else {
                print("\(m.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0)) threads=\(threads)  median \(fmt(median)) ms  min \(fmt(times[0])) ms  p90 \(fmt(p90)) ms")
            }
            if perLayer {
                let chosen = session.kernelChoices.filter { !$0.isEmpty }
                let cached = chosen.filter { $0.hasPrefix("from a kept plan") }.count
                print("    planned in \(fmt(session.planSeconds * 1000)) ms (\(fixedPlan ? "fixed rules" : "candidate kernels timed at \(chosen.count - cached) nodes, \(cached) taken from a kept plan"))")
                printLayers(session)
                printRegions(session)
            }
        }
    }

    /// How many regions a run runs and, with --all-nodes, the nodes of each region of several steps.
    private func printRegions(_ session: InferenceSession) {
        let shared = zip(session.regionNodes, session.regionKinds).filter { $0.0.count > 1 }
        var kinds: [String: Int] = [:]
        for (_, kind) in shared { kinds[kind, default: 0] += 1 }
        print("    \(session.regionCount) regions per run for \(session.stepNodes.count) steps"
              + kinds.sorted { $0.key < $1.key }.map { ", \($0.value) × \($0.key)" }.joined())
        // Each region at its best of `reps` runs: their sum is a run that nothing else on the machine held up,
        // and the slowest regions say where the time goes inside bands and shared regions.
        let reps = 20
        var best = session.regionProfile()
        for _ in 1..<reps { for (i, t) in session.regionProfile().enumerated() { best[i] = min(best[i], t) } }
        print("    regions at their best of \(reps) runs: \(fmt(best.reduce(0, +) * 1000)) ms in all; the slowest:")
        let kernels = session.kernelNames
        for i in best.indices.sorted(by: { best[$0] > best[$1] }).prefix(topNodes) {
            let nodes = session.regionNodes[i].map { n in
                let k = session.stepNodes.firstIndex(of: n).map { kernels[$0].kernel } ?? ""
                return k.isEmpty ? "\(n)" : "\(n) [\(k)]"
            }
            print("      \(fmt(best[i] * 1000)) ms  \(session.regionKinds[i]): \(nodes.joined(separator: ", "))")
        }
        guard allNodes else { return }
        for (nodes, kind) in shared { print("      \(kind): nodes \(nodes.map(String.init).joined(separator: ", "))") }
    }

    private func printLayers(_ session: InferenceSession) {
        var total: [String: (Double, Int)] = [:]
        var perNode: [(String, String, Double)] = []
        let reps = 10
        for r in 0..<reps {
            for p in session.profile() {
                let key = p.op.rawValue
                total[key, default: (0, 0)].0 += p.seconds / Double(reps)
                if r == 0 { total[key, default: (0, 0)].1 += 1 }
                if r == 0 { perNode.append((p.name, p.op.rawValue, 0)) }
            }
        }
        for (op, v) in total.sorted(by: { $0.value.0 > $1.value.0 }) {
            print("    \(op.padding(toLength: 18, withPad: " ", startingAt: 0)) x\(v.1)  \(fmt(v.0 * 1000)) ms")
        }
        var best = session.profile()
        for _ in 0..<reps {
            for (i, p) in session.profile().enumerated() where p.seconds < best[i].seconds { best[i] = p }
        }
        var slowest = best.enumerated().map { ($0.offset, $0.element) }
        slowest.sort { $0.1.seconds > $1.1.seconds }
        let g = session.model.graph
        let kernels = session.kernelNames, choices = session.kernelChoices
        if allNodes { slowest.sort { $0.0 < $1.0 } }
        for (i, p) in slowest.prefix(allNodes ? slowest.count : topNodes) {
            let n = session.stepNodes[i], node = g.nodes[n]
            let shapes = node.inputs.map { g.values[$0].shape.description }.joined(separator: " ")
            let out = g.values[node.outputs[0]].shape
            let flops = Self.flops(node, in: g)
            let rate = flops > 0 ? "  \(fmt(Double(flops) / p.seconds / 1e9)) GFLOP/s" : ""
            let kernel = kernels[i].kernel.isEmpty ? "" : " [\(kernels[i].kernel)]"
            let why = choices[i].isEmpty ? "" : "  (\(choices[i]))"
            print("      node \(n) \(p.op.rawValue)\(kernel) \(shapes) -> \(out): \(fmt(p.seconds * 1000)) ms\(rate)\(why)")
        }
    }
}

extension ModelsBenchmark {
    /// Multiply-adds × 2 of a conv, depthwise or fully connected node; 0 for other ops.
    static func flops(_ node: Node, in g: Graph) -> Int {
        let out = g.values[node.outputs[0]].elementCount
        switch node.op {
        case .conv2d:
            let w = g.values[node.inputs[1]].shape
            return 2 * out * w[1] * w[2] * w[3]
        case .depthwiseConv2d:
            let w = g.values[node.inputs[1]].shape
            return 2 * out * w[w.count - 3] * w[w.count - 2]
        case .fullyConnected:
            return 2 * out * g.values[node.inputs[1]].shape[1]
        default:
            return 0
        }
    }
}

func fmt(_ v: Double) -> String { String(format: "%.3f", v) }

enum MachineDescription {
    static var current: String {
        let cpu = CPUFeatures.modelName.isEmpty ? "unknown CPU" : CPUFeatures.modelName
        let blas = openblas_get_config().map { String(cString: $0) } ?? "unknown"
        return "# \(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, OpenBLAS \(blas)"
    }
}

struct PipelineBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Times PoseLandmarker and HandLandmarker on 640×480 photos (image mode) and sequences (video mode).",
        discussion: """
            pose_image: the centre 640×480 of --image (default Benchmarks/photos/mpii_052475643.png, 854×480, one pose found). \
            hand_image: --hand-image (default Benchmarks/photos/onehand10k_1402.png, 226×339, one hand) scaled to 640×480. \
            pose_video / hand_video: per-frame latency of detect(videoFrame:) while tracking one pose / one hand through a \
            --frames-long 640×480 sequence of the same photo, panned and zoomed frame by frame (PanZoomSequence), played \
            forwards and backwards at 30 fps timestamps; the detector runs only on the first frame.
            """)

    @Option(help: "Threads per inference (1...64); repeatable.") var threads: [Int] = [1, 2]
    @Option(help: "Timed runs.") var runs = 50
    @Option(help: "Untimed warm-up runs.") var warmup = 10
    @Option(help: "A PNG with one person, at least 640×480.") var image = "Benchmarks/photos/mpii_052475643.png"
    @Option(help: "A PNG with one hand, scaled to 640×480.") var handImage = "Benchmarks/photos/onehand10k_1402.png"
    @Option(help: "full or lite.") var model = "full"
    @Option(help: "pose, hand, or both.") var task = "both"
    @Option(help: "image, video, or both.") var mode = "both"
    @Option(help: "Frames in the video-mode sequence.") var frames = 60
    @Flag(help: "Print one JSON object per thread count.") var json = false

    func run() throws {
        let source = try Image(contentsOfPNGFile: image)
        guard source.width >= 640, source.height >= 480 else {
            throw ValidationError("--image expected at least 640×480, found \(source.width)×\(source.height)")
        }
        let x0 = (source.width - 640) / 2, y0 = (source.height - 480) / 2
        var rgb = [UInt8]()
        rgb.reserveCapacity(640 * 480 * 3)
        for y in y0..<(y0 + 480) {
            let row = (y * source.width + x0) * 3
            rgb += source.pixels[row..<(row + 640 * 3)]
        }
        let photo = try Image(rgb: rgb, width: 640, height: 480)
        if !json { print(MachineDescription.current) }
        if task != "hand" { try benchmarkPose(photo) }
        if task != "pose" { try benchmarkHand() }
    }

    func validate() throws {
        guard ["pose", "hand", "both"].contains(task) else { throw ValidationError("--task expects pose, hand or both, got \(task)") }
        guard ["image", "video", "both"].contains(mode) else { throw ValidationError("--mode expects image, video or both, got \(mode)") }
        guard ["full", "lite"].contains(model) else { throw ValidationError("--model expects full or lite, got \(model)") }
        guard frames >= 2 else { throw ValidationError("--frames expects at least 2, got \(frames)") }
    }

    /// `frames` frames of a slow pan and zoom over `photo`, at 640×480.
    func sequence(of photo: Image, endCenter: SIMD2<Float>) throws -> [Image] {
        let camera = PanZoomSequence(source: photo, width: 640, height: 480, frameCount: frames,
                                     startCenter: SIMD2(0.5, 0.5), endCenter: endCenter, startZoom: 1, endZoom: 1.25)
        return try (0..<frames).map { try camera.frame($0) }
    }

    /// Times each frame of `clip` played forwards then backwards (so the motion stays continuous) in video
    /// mode; `detect` gets the frame and its timestamp and returns the number of tracked items.
    func timeVideo(_ name: String, threads t: Int, clip: [Image], statistics: () -> (frames: Int, detectorRuns: Int),
                   detect: (Image, Int) throws -> Int) throws {
        let order = Array(clip.indices) + Array(clip.indices.reversed().dropFirst().dropLast())
        var timestamp = 0
        var times: [Double] = []
        let total = warmup + runs
        var frame = 0
        while frame < total {
            for i in order where frame < total {
                let t0 = DispatchTime.now().uptimeNanoseconds
                let found = try detect(clip[i], timestamp)
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
                guard found == 1 else { throw ValidationError("\(name): expected one tracked item on frame \(frame), found \(found)") }
                if frame >= warmup { times.append(elapsed) }
                timestamp += 33
                frame += 1
            }
        }
        report(name, threads: t, times, detectorRuns: statistics().detectorRuns)
    }

    func report(_ name: String, threads t: Int, _ times: [Double], detectorRuns: Int? = nil) {
        let times = times.sorted()
        let median = times[times.count / 2], p90 = times[min(times.count - 1, times.count * 9 / 10)]
        if json {
            let counts = detectorRuns.map { #","frames":\#(warmup + runs),"detectorRuns":\#($0)"# } ?? ""
            print(#"{"pipeline":"\#(name)","model":"\#(model)","threads":\#(t),"medianMs":\#(fmt(median)),"minMs":\#(fmt(times[0])),"p90Ms":\#(fmt(p90))\#(counts)}"#)
        } else {
            let counts = detectorRuns.map { "  detector ran on \($0) of \(warmup + runs) frames" } ?? ""
            print("\(name) (\(model)) threads=\(t)  median \(fmt(median)) ms  min \(fmt(times[0])) ms  p90 \(fmt(p90)) ms\(counts)")
        }
    }

    func time(_ body: () throws -> Void) rethrows -> [Double] {
        for _ in 0..<warmup { try body() }
        var times: [Double] = []
        for _ in 0..<runs {
            let t0 = DispatchTime.now().uptimeNanoseconds
            try body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
        }
        return times
    }

    func benchmarkHand() throws {
        let source = try Image(contentsOfPNGFile: handImage)
        var rgb = [UInt8](repeating: 0, count: 640 * 480 * 3)
        let w = Float(source.width), h = Float(source.height)
        let scale = PerspectiveTransform(sourceQuad: [SIMD2(0, 0), SIMD2(w, 0), SIMD2(w, h), SIMD2(0, h)],
                                         destinationQuad: [SIMD2(0, 0), SIMD2(640, 0), SIMD2(640, 480), SIMD2(0, 480)])
        rgb.withUnsafeMutableBufferPointer {
            warpPerspectiveRGB(source, transform: scale, width: 640, height: 480, border: .replicate, into: $0.baseAddress!)
        }
        let photo = try Image(rgb: rgb, width: 640, height: 480)
        let clip = mode == "image" ? [] : try sequence(of: photo, endCenter: SIMD2(0.45, 0.55))
        for t in threads {
            let options = HandLandmarkerOptions()
            options.model = model == "lite" ? .lite : .full
            options.baseOptions.threadCount = t
            if mode != "video" {
                let landmarker = try HandLandmarker(options: options)
                let hands = try landmarker.detect(image: photo).landmarks.count
                guard hands == 1 else { throw ValidationError("expected one hand in the benchmark photo, found \(hands)") }
                report("hand_image", threads: t, try time { _ = try landmarker.detect(image: photo) })
            }
            if mode != "image" {
                options.runningMode = .video
                let landmarker = try HandLandmarker(options: options)
                try timeVideo("hand_video", threads: t, clip: clip, statistics: { landmarker.trackingStatistics }) {
                    try landmarker.detect(videoFrame: $0, timestampInMilliseconds: $1).landmarks.count
                }
            }
        }
    }

    func benchmarkPose(_ photo: Image) throws {
        let clip = mode == "image" ? [] : try sequence(of: photo, endCenter: SIMD2(0.52, 0.45))
        for t in threads {
            let options = PoseLandmarkerOptions()
            options.model = model == "lite" ? .lite : .full
            options.baseOptions.threadCount = t
            if mode != "video" {
                let landmarker = try PoseLandmarker(options: options)
                let poses = try landmarker.detect(image: photo).landmarks.count
                guard poses == 1 else { throw ValidationError("expected one person in the benchmark photo, found \(poses)") }
                report("pose_image", threads: t, try time { _ = try landmarker.detect(image: photo) })
            }
            if mode != "image" {
                options.runningMode = .video
                let landmarker = try PoseLandmarker(options: options)
                try timeVideo("pose_video", threads: t, clip: clip, statistics: { landmarker.trackingStatistics }) {
                    try landmarker.detect(videoFrame: $0, timestampInMilliseconds: $1).landmarks.count
                }
            }
        }
    }
}
