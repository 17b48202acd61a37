import BlazeKernels
import BlazeModelFormat
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `conv2d`: with a packed tile (the default), up to 8 outputs through the pixel-major narrow kernel,
/// wider ones through the packed GEMM (1×1 directly, k×k in place with im2col at borders), and 1×1
/// convolutions with mostly-zero weights through the sparse kernel where it is measured faster
/// (``SparseConvolution``); all of them give the same bits. With BLAS, `cblas_sgemm` after im2col.
/// Weights are packed here, once.
enum Conv2DOp: OpPlanner {
    static let kind = OpKind.conv2d

    static func plan(_ b: NodeBinding) throws -> any ExecutionStep {
        try b.requireArity(inputs: 3)
        let x = try b.nhwc(b.inputShapes[0], "input")
        let ws = b.inputShapes[1]
        guard ws.count == 4, ws[3] == x.c else { throw b.error("weight expected OHWI [Cout, KH, KW, \(x.c)], found \(ws)") }
        let outC = ws[0]
        let window = try b.window(kernelHeight: ws[1], kernelWidth: ws[2], inputHeight: x.h, inputWidth: x.w)
        try b.requireShape(b.outputShapes[0], [1, window.outputHeight, window.outputWidth, outC], "output")
        let step = Step(input: try b.activation(0), weights: try b.constant(1, count: ws.reduce(1, *), role: "weight"),
                        bias: try b.constant(2, count: outC, role: "bias"), output: b.outputs[0], window: window,
                        inChannels: x.c, outChannels: outC, clamp: try b.clamp(), variant: .gemm1x1, tasks: 1, pixelBlock: 0, scratch: nil,
                        epilogue: b.epilogue)
        let pixels = window.outputHeight * window.outputWidth
        var s = step
        s.tasks = b.taskCount(flops: 2 * pixels * outC * ws[1] * ws[2] * x.c, units: pixels)
        guard let tile = b.gemmTile else {
            // BLAS: the direct few-output kernel, else im2col + sgemm (1×1: one sgemm).
            if outC <= Step.directOutputChannelLimit, !window.isPointwise {
                s.variant = .directFewOutputs
            } else if !window.isPointwise {
                s.variant = .im2colGEMM
                s.pixelBlock = Conv2DKernel.im2colPixelBlock(window: window, inChannels: x.c)
                let per = Conv2DKernel.im2colWorkspaceFloats(window: window, inChannels: x.c, pixelBlock: s.pixelBlock)
                s.scratch = ScratchBuffer(floats: per * s.tasks)
            }
            return s
        }
        let wide = tile == .avx512x8x32
        if window.isPointwise {
            let count = outC * x.c
            let zeros = UnsafeBufferPointer(start: s.weights, count: count).reduce(0) { $1 == 0 ? $0 + 1 : $0 }
            switch b.sparseConvolution {
            case .sparse: return sparseStep(s, wide: wide)
            case .measured where b.measuresPlan && Double(zeros) >= SparseConvolution.measuredMinimumZeroFraction * Double(count):
                return choose({ sparseStep(s, wide: wide) }, { denseStep(s, tile: tile, wide: wide, inChannels: x.c, threads: b.threadCount) }, b)
            default: break
            }
        }
        if outC <= Step.narrowOutputChannelLimit, b.narrowForTesting == false {
            return packedStep(s, tile: tile, inChannels: x.c, threads: b.threadCount)
        }
        if outC <= Step.narrowOutputChannelLimit, b.measuresPlan, b.narrowForTesting == nil {
            // The pixel-major narrow kernel or the packed GEMM (with most of its tile's columns empty): which is
            // faster depends on the map, the outputs and the host (256 × 256, 8 → 8 on one Intel AVX-512 core: GEMM
            // 0.32 ms, narrow 0.42 ms in `blaze-bench kernels`; at 28 × 28, 24 → 2 the narrow kernel runs at 13 GFLOP/s,
            // the GEMM at 7; on AMD Zen 3 the AVX2 tile's 8-column half beats the narrow kernel at 8 outputs, 1×1 and
            // k×k, and loses at 1 or 2). Both compute each output with the same chain, so either gives the same bits.
            return choose({ denseStep(s, tile: tile, wide: wide, inChannels: x.c, threads: b.threadCount) }, { packedStep(s, tile: tile, inChannels: x.c, threads: b.threadCount) }, b)
        }
        return denseStep(s, tile: tile, wide: wide, inChannels: x.c, threads: b.threadCount)
    }

    /// The dense choice with a packed tile: the pixel-major narrow kernel for at most
    /// ``Step/narrowOutputChannelLimit`` outputs, else the packed GEMM (1×1 directly, k×k through
    /// in-place reads and im2col at borders).
    static func denseStep(_ base: Step, tile: GEMMTile, wide: Bool, inChannels: Int, threads: Int) -> Step {
        var s = base
        let window = s.window, outC = s.outChannels
        if outC <= Step.narrowOutputChannelLimit {
            let packed = PixelConvWeights(weights: s.weights, bias: s.bias, outputs: outC, window: window, inChannels: inChannels,
                                          layout: .narrow, wide: wide)
            s.tasks = min(s.tasks, packed.isPointwise ? window.outputHeight * window.outputWidth : window.outputHeight)
            s.variant = .narrow(packed)
            s.scratch = ScratchBuffer(floats: packed.scratchFloats * s.tasks)
            return s
        }
        return packedStep(s, tile: tile, inChannels: inChannels, threads: threads)
    }

    /// The packed GEMM, whatever the number of outputs: 1×1 directly, k×k through in-place reads and im2col at borders.
    static func packedStep(_ base: Step, tile: GEMMTile, inChannels: Int, threads: Int) -> Step {
        var s = base
        let window = s.window, outC = s.outChannels
        let depth = window.kernelHeight * window.kernelWidth * inChannels
        let packed = PackedGEMMWeights(weights: s.weights, bias: s.bias, outputs: outC, depth: depth, tile: tile,
                                       window: window.isPointwise ? nil : window, inChannels: inChannels)
        // A map of fewer pixels than the tile has rows (face_landmark's 3×3 → 1×1, 288 → 1404 head: 1.6 MB of weights
        // for one pixel; pose_landmark's 2×2 maps) splits its weight panels between the threads, so that each core
        // streams half the weights; its pixels are too few to share.
        let pixels = window.outputHeight * window.outputWidth
        if threads > 1, pixels < tile.rows, packed.panelCount > 1, 2 * pixels * outC * depth >= ParallelWork.minimumFlops {
            s.splitsOutputs = true
            s.tasks = min(threads, packed.panelCount)
        }
        if window.isPointwise {
            s.variant = .packed1x1(packed)
            // Otherwise split by pixels, even on a map of fewer pixels than outputs. Splitting such a map's weight
            // panels instead (each thread streaming half the weights) was faster for one node alone
            // (pose_detection's 7×7, 1152 → 192, when it ran dense: 0.104 → 0.069 ms), but whole networks
            // are faster split by pixels: the depthwise convolutions beside these nodes split rows, so
            // pixel halves keep each thread's activations in its own core's cache. 16 paired rounds at 2
            // threads: hand_landmark_full, hand_landmark_lite, palm_detection_lite, pose_landmark_full and
            // pose_landmark_lite faster in 11–12 of 16, by 1–5 %; palm_detection_full in 9; pose_detection
            // even (Benchmarks/RESULTS.md).
        } else {
            s.variant = .packedIm2col(packed)
            s.pixelBlock = Conv2DKernel.im2colPixelBlock(window: window, inChannels: inChannels, budgetFloats: 1 << 13)
            s.scratch = ScratchBuffer(floats: Conv2DKernel.im2colWorkspaceFloats(window: window, inChannels: inChannels,
                                                                                pixelBlock: s.pixelBlock) * s.tasks)
        }
        return s
    }

    /// The sparse kernel on a 1×1 convolution. A map of fewer pixels than two vector blocks per task is
    /// split between the tasks by output channel instead of by pixel (pose_detection's 7×7 maps: 49
    /// pixels in two 16-pixel-vector tasks left each with a partial block).
    static func sparseStep(_ base: Step, wide: Bool) -> Step {
        var s = base
        let packed = PixelConvWeights(weights: s.weights, bias: s.bias, outputs: s.outChannels, window: s.window,
                                      inChannels: s.inChannels, layout: .sparse, wide: wide)
        let pixels = s.window.outputHeight * s.window.outputWidth
        if s.tasks > 1, pixels < 2 * packed.blockPixels * s.tasks {
            s.splitsOutputs = true
            s.tasks = min(s.tasks, s.outChannels)
        }
        s.variant = .sparse(packed)
        s.scratch = ScratchBuffer(floats: packed.scratchFloats * s.tasks)
        return s
    }

    /// The candidate the session's stored plan names for this node (``Planning/cached(directory:)``) when that is
    /// still the kernel its planner makes, so that only it is packed; else ``faster(_:_:pool:)`` of the two.
    static func choose(_ a: () -> Step, _ b: () -> Step, _ binding: NodeBinding) -> Step {
        if let recorded = binding.recordedChoice, recorded.candidate == 0 || recorded.candidate == 1 {
            var step = recorded.candidate == 0 ? a() : b()
            if step.baseKernelName == recorded.kernel {
                step.candidate = recorded.candidate
                step.kernelChoice = "from a kept plan"
                return step
            }
        }
        return faster(a(), b(), pool: binding.pool)
    }

    /// Whichever of two steps `a` and `b` of one convolution (sparse or dense 1×1; narrow or packed GEMM, 1×1 or k×k) runs the node faster on
    /// this machine, timed on a scratch input of small values, in alternation, best of three runs after a
    /// warm-up. A map of at most ``timingPixels`` pixels runs whole, as planned, on the session's `pool` when it has several
    /// threads (how the work is split and the threads' shared caches decide: pose_detection's 14×14,
    /// 1152 → 192 node is faster sparse on one thread and dense on two; timing it on one thread cost
    /// pose_detection 7–10 % at 2 threads); a larger map is timed on one thread over its first
    /// ``timingPixels`` pixels, or a k×k convolution's first output rows of about as many pixels (a slice keeps
    /// planning quick; both kernels cost the same per pixel throughout). The two give identical outputs, so the choice may differ between sessions and
    /// machines without changing results.
    static func faster(_ a: Step, _ b: Step, pool: WorkerPool? = nil) -> Step {
        let w = a.window
        let all = w.outputHeight * w.outputWidth
        // A k×k convolution is timed over whole output rows (the narrow kernel's units), from the first, on an
        // input map of its whole size (a kernel may read ahead within the map).
        let rows = w.isPointwise ? 0 : min(w.outputHeight, max(1, timingPixels / w.outputWidth))
        let pixels = w.isPointwise ? min(all, timingPixels) : rows * w.outputWidth
        let inputFloats = (w.isPointwise ? pixels : w.inputHeight * w.inputWidth) * a.inChannels
        // A whole small map runs as planned, on the session's threads: its split (pixels or outputs) and
        // the threads' shared caches decide, not one thread's speed.
        let whole = pixels == all && (pool?.threadCount ?? 1) > 1
        let input = UnsafeMutablePointer<Float>.allocate(capacity: inputFloats)
        let output = UnsafeMutablePointer<Float>.allocate(capacity: pixels * a.outChannels)
        defer { input.deallocate(); output.deallocate() }
        var state: UInt32 = 0x2545_F491
        for i in 0..<inputFloats {
            state ^= state << 13; state ^= state >> 17; state ^= state << 5
            input[i] = Float(state >> 8) / 16_777_216 - 0.5
        }
        output.initialize(repeating: 0, count: pixels * a.outChannels)
        let trial = [a, b].map { step -> Step in
            var t = step
            t.input = UnsafePointer(input)
            t.output = output
            t.epilogue = nil
            return t
        }
        var best = [UInt64.max, UInt64.max]
        for round in 0..<4 {
            for (i, t) in trial.enumerated() {
                let t0 = DispatchTime.now().uptimeNanoseconds
                if whole, let pool { t.run(pool: pool) } else { t.compute(units: 0..<(t.isRowSplit ? rows : pixels), task: 0) }
                let elapsed = DispatchTime.now().uptimeNanoseconds - t0
                if round > 0 { best[i] = min(best[i], elapsed) }   // round 0 warms caches and code
            }
        }
        var winner = best[0] <= best[1] ? a : b
        winner.candidate = best[0] <= best[1] ? 0 : 1
        let times = zip(trial, best).map { t, ns in "\(t.baseKernelName) \(Int((Double(ns) / 1000).rounded())) µs" }
        winner.kernelChoice = "timed\(whole ? " on \(pool?.threadCount ?? 1) threads" : pixels < all ? " on \(pixels) of \(all) pixels" : ""): "
            + times.joined(separator: ", ")
        return winner
    }

    /// Pixels of a node that ``faster(_:_:)`` times.
    static let timingPixels = 2048

    struct Step: ExecutionStep {
        var input: UnsafePointer<Float>
        let weights: UnsafePointer<Float>, bias: UnsafePointer<Float>
        var output: UnsafeMutablePointer<Float>
        let window: SpatialWindow
        let inChannels: Int, outChannels: Int
        let clamp: ClampBounds
        var variant: Variant
        var tasks: Int, pixelBlock: Int
        var scratch: ScratchBuffer?
        /// Tasks share the output channels, each over every pixel (the sparse kernel on small maps, the packed
        /// GEMM on maps of fewer pixels than its tile's rows), instead of sharing the pixels.
        var splitsOutputs = false
        /// The residual add, PReLU or ReLU fused after this convolution (see ``ConvolutionEpilogue``), nil if none.
        var epilogue: ConvolutionEpilogue?
        /// The candidates' times when ``Conv2DOp/faster(_:_:pool:)`` chose this step; empty for a fixed rule.
        var kernelChoice = ""
        /// Which of two timed candidates this is (0 or 1), for ``KernelPlan``; nil for a fixed rule.
        var candidate: Int?

        enum Variant {
            case gemm1x1, im2colGEMM, directFewOutputs, packed1x1(PackedGEMMWeights), packedIm2col(PackedGEMMWeights)
            case narrow(PixelConvWeights), sparse(PixelConvWeights)
        }

        /// With BLAS, up to this many output channels a k×k conv runs direct instead of im2col + GEMM
        /// (pose_landmark's 3×3, 8→1 mask head: 2.9 ms via im2col, see Benchmarks/RESULTS.md).
        static let directOutputChannelLimit = 4
        /// With a packed tile, up to this many output channels run through the pixel-major
        /// ``NarrowConv2DKernel`` instead of a GEMM whose 16- or 32-wide tile they would mostly leave empty.
        static let narrowOutputChannelLimit = 8

        var kernelName: String {
            guard let e = epilogue else { return baseKernelName }
            return baseKernelName + (e.residual == nil ? "" : e.residualChannels == 0 ? "+add" : "+pad+add")
                + (e.preluAlpha != nil ? "+prelu" : "") + (e.relu ? "+relu" : "")
        }

        var baseKernelName: String {
            switch variant {
            case .gemm1x1: return "blas-1x1"
            case .im2colGEMM: return "blas-im2col"
            case .directFewOutputs: return "direct-few-outputs"
            case .packed1x1(let w): return "gemm-\(w.tile.rawValue)"
            case .packedIm2col(let w): return "gemm-im2col-\(w.tile.rawValue)"
            case .narrow(let w): return "narrow-\(w.lanes)px"
            case .sparse(let w): return "sparse-\(w.lanes)px"
            }
        }

        func run(pool: WorkerPool) {
            if tasks == 1 { return runTask(0) }
            let n = ParallelWork.items(tasks: tasks, threads: pool.threadCount)
            guard n > tasks, !splitsOutputs else { return pool.parallelFor(tasks) { t in runTask(t) } }
            // Pieces of the pixels in whole GEMM tiles (or of the rows). Every thread has a task, so the thread, not
            // the piece, picks the scratch.
            let units = isRowSplit ? window.outputHeight : window.outputHeight * window.outputWidth
            let tile = isRowSplit ? 1 : ParallelWork.piecePixels
            pool.parallelFor(items: n) { i, thread in
                compute(share: piece(units, tasks: tasks, items: n, item: i, multipleOf: tile), task: thread)
            }
        }

        /// Task `t` of `tasks`: its share of the output pixels (rows for the narrow k×k kernel, output
        /// channels when ``splitsOutputs``), followed by the ``epilogue`` on each block the kernel wrote,
        /// in blocks of about ``epilogueBlockFloats`` outputs so that the epilogue reads them from cache.
        func runTask(_ t: Int) {
            if splitsOutputs {
                let channels = computeOutputShare(t)
                epilogue?.apply(output, pixels: 0..<(window.outputHeight * window.outputWidth), channels: channels,
                                stride: outChannels)
                return
            }
            let units = isRowSplit ? window.outputHeight : window.outputHeight * window.outputWidth
            compute(share: partition(units, tasks, t), task: t)
        }

        /// Output units `share` (pixels, or rows for the narrow k×k kernel) with task `t`'s scratch, each block
        /// followed by the ``epilogue``. Any split of the units gives the same bits.
        func compute(share: Range<Int>, task t: Int) {
            let rowsAreUnits = isRowSplit
            guard let epilogue else { return compute(units: share, task: t) }
            let perUnit = rowsAreUnits ? window.outputWidth * outChannels : outChannels
            let block = max(1, Self.epilogueBlockFloats / perUnit)
            var start = share.lowerBound
            while start < share.upperBound {
                let end = min(share.upperBound, start + block)
                compute(units: start..<end, task: t)
                let pixels = rowsAreUnits ? (start * window.outputWidth)..<(end * window.outputWidth) : start..<end
                epilogue.apply(output, pixels: pixels, channels: 0..<outChannels, stride: outChannels)
                start = end
            }
        }

        /// Outputs per epilogue block: 16 K floats (64 KB), within L2 next to the kernel's own working set.
        static let epilogueBlockFloats = 1 << 14

        /// Whether tasks split output rows (the narrow k×k kernel) rather than pixels.
        var isRowSplit: Bool {
            if case .narrow(let packed) = variant, !packed.isPointwise { return true }
            return false
        }

        /// Task `t`'s output channels, all pixels (``splitsOutputs``: the sparse kernel on a map of fewer
        /// pixels than two vector blocks per task, or the packed GEMM's weight panels on a map of fewer
        /// pixels than its tile's rows); returns those channels.
        func computeOutputShare(_ t: Int) -> Range<Int> {
            let pixels = window.outputHeight * window.outputWidth
            switch variant {
            case .sparse(let packed):
                let channels = partition(outChannels, tasks, t)
                SparseConv1x1Kernel.run(input: input, weights: packed, output: output, pixels: 0..<pixels,
                                        outputs: channels, clamp: clamp, scratch: scratch!.pointer + t * packed.scratchFloats)
                return channels
            case .packed1x1(let packed), .packedIm2col(let packed):
                let panels = partition(packed.panelCount, tasks, t)
                compute(units: 0..<pixels, task: t, panels: panels)
                return (panels.lowerBound * packed.tile.columns)..<min(outChannels, panels.upperBound * packed.tile.columns)
            default:
                preconditionFailure("Conv2DOp: \(kernelName) does not split output channels")
            }
        }

        /// The kernel on output pixels `units` (output rows for the narrow k×k kernel), with task `task`'s
        /// scratch; no epilogue. With `panels` (the packed GEMM only), only those weight panels' output columns.
        func compute(units: Range<Int>, task t: Int, panels: Range<Int>? = nil) {
            assert(t >= 0 && t < tasks, "Conv2DOp: scratch of task \(t) asked for, the step has \(tasks)")
            switch variant {
            case .directFewOutputs:
                Conv2DKernel.directFewOutputs(input: input, weights: weights, bias: bias, output: output, window: window,
                                              inChannels: inChannels, outChannels: outChannels, clamp: clamp, pixels: units)
            case .im2colGEMM:
                let per = Conv2DKernel.im2colWorkspaceFloats(window: window, inChannels: inChannels, pixelBlock: pixelBlock)
                Conv2DKernel.im2colGEMM(input: input, weights: weights, bias: bias, output: output, window: window,
                                        inChannels: inChannels, outChannels: outChannels, clamp: clamp,
                                        pixels: units, pixelBlock: pixelBlock, workspace: scratch!.pointer + t * per)
            case .packed1x1(let packed):
                Conv2DKernel.packed1x1(input: input, weights: packed, output: output, pixels: units, clamp: clamp, panels: panels)
            case .packedIm2col(let packed):
                let per = Conv2DKernel.im2colWorkspaceFloats(window: window, inChannels: inChannels, pixelBlock: pixelBlock)
                Conv2DKernel.im2colPacked(input: input, weights: packed, output: output, window: window,
                                          inChannels: inChannels, clamp: clamp, pixels: units,
                                          pixelBlock: pixelBlock, workspace: scratch!.pointer + t * per, panels: panels)
            case .narrow(let packed):
                NarrowConv2DKernel.run(input: input, weights: packed, output: output, rows: units,
                                       clamp: clamp, scratch: scratch!.pointer + t * packed.scratchFloats)
            case .sparse(let packed):
                SparseConv1x1Kernel.run(input: input, weights: packed, output: output, pixels: units,
                                        clamp: clamp, scratch: scratch!.pointer + t * packed.scratchFloats)
            case .gemm1x1:
                Conv2DKernel.gemm1x1(input: input, weights: weights, bias: bias, output: output, pixels: units,
                                     inChannels: inChannels, outChannels: outChannels, clamp: clamp)
            }
        }
    }
}
