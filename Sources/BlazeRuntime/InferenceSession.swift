import BlazeKernels
import BlazeModelFormat
import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a session runs.
public struct RuntimeOptions: Sendable, Equatable {
    /// Threads one inference uses, the calling thread included (1…64): a session's own worker pool of
    /// that size, or the pool passed to ``InferenceSession/init(model:options:workers:)``, whose size must
    /// match. A session changes nothing process-wide: OpenBLAS's thread count and kernel set stay as
    /// the host program left them (a program that owns its process may tune them with
    /// ``BLASKernelSelection``).
    public var threadCount: Int
    /// The graph outputs (by index) the session computes; nil computes all. Nodes that feed none of
    /// them are not planned or run — e.g. the pose landmark model's segmentation head when no mask is
    /// wanted. ``InferenceSession/output(_:)`` of an output left out is empty.
    public var computedOutputs: Set<Int>?
    /// What runs the dense convolutions' matrix products.
    public var convolutionGEMM: ConvolutionGEMM
    /// Which 1×1 convolutions run through the sparse kernel instead of the GEMM (with a packed
    /// ``ConvolutionGEMM`` tile only). Either way the outputs are the same bits; this only changes speed.
    public var sparseConvolution: SparseConvolution
    /// Run the `add` (residual) and `prelu` nodes that follow a convolution inside it, on each block of
    /// outputs as the convolution writes it, instead of as passes of their own. The outputs are the
    /// same bits either way; `false` is for measuring and testing that.
    public var fusesEpilogues: Bool
    /// Run each depthwise convolution over a map of 1 MB or more that falls to one task, with the convolution
    /// that makes its input and the 1×1 convolutions after it, in bands of rows, so that the large map is read
    /// back from cache (``DepthwiseBandRegion``). The outputs are the same bits either way; `false` is for
    /// measuring and testing that.
    public var runsDepthwiseInBands: Bool
    /// Whether planning times its candidates on this machine (``Planning/measured``) or follows fixed rules.
    public var planning: Planning
    /// Tests only: convolutions (1×1 and k×k) with at most eight outputs through the narrow kernel (true) or the
    /// packed GEMM (false), unmeasured; nil as ``planning`` says.
    var narrowForTesting: Bool?
    /// Tests only: the smallest depthwise input map run in bands and the input floats a band adds, in place of
    /// ``DepthwiseBandRegion/minimumMapFloats`` and ``DepthwiseBandRegion/bandFloats``.
    var bandsForTesting: DepthwiseBandRegion.Sizes?

    public init(threadCount: Int = 1, computedOutputs: Set<Int>? = nil,
                convolutionGEMM: ConvolutionGEMM = .automatic, sparseConvolution: SparseConvolution = .measured,
                fusesEpilogues: Bool = true, runsDepthwiseInBands: Bool = true, planning: Planning = .measured) {
        self.threadCount = threadCount
        self.computedOutputs = computedOutputs
        self.convolutionGEMM = convolutionGEMM
        self.sparseConvolution = sparseConvolution
        self.fusesEpilogues = fusesEpilogues
        self.runsDepthwiseInBands = runsDepthwiseInBands
        self.planning = planning
    }

    func validate() throws {
        guard (1...64).contains(threadCount) else {
            throw RuntimeError.invalidOption(name: "threadCount", expected: "1...64", actual: "\(threadCount)")
        }
        if case .cached(let directory) = planning, directory.isEmpty {
            throw RuntimeError.invalidOption(name: "planning", expected: "a plan-cache directory", actual: "an empty path")
        }
        if case .packed(let tile) = convolutionGEMM, !tile.isSupported {
            throw RuntimeError.invalidOption(name: "convolutionGEMM",
                                             expected: "a tile this CPU and build support (\(GEMMTile.allCases.filter(\.isSupported).map(\.rawValue)))",
                                             actual: tile.rawValue)
        }
    }

    /// The packed-GEMM tile the session's convolutions use, nil for `cblas_sgemm`.
    var gemmTile: GEMMTile? {
        switch convolutionGEMM {
        case .automatic: return GEMMTile.best
        case .blas: return nil
        case .packed(let tile): return tile
        }
    }
}

/// How a session chooses among kernels that compute the same bits at different speeds: for a 1×1 convolution,
/// sparse or dense (with ``SparseConvolution/measured``), and with at most eight outputs, the pixel-major narrow
/// kernel or the packed GEMM.
public enum Planning: Sendable, Hashable {
    /// Time the candidates on this machine, on each node's own shape and the session's threads, when the session
    /// is created, and keep the faster (``InferenceSession/planSeconds`` says how long planning took).
    case measured
    /// Fixed rules, no timing: the same kernels on every machine with a given tile (1×1 convolutions dense unless
    /// ``SparseConvolution/sparse`` is asked for; the narrow kernel for at most eight outputs).
    case fixed
    /// As ``measured``, the first time; the choices (``KernelPlan``) are then kept in `directory`, one file per
    /// model, CPU identity and session options, and later sessions reuse them instead of timing again (plans
    /// faster; the same kernels). Planning throws when the directory cannot be created or written. A missing,
    /// damaged or foreign file is measured again and replaced; since candidates give the same bits, no file can
    /// change a session's outputs. A user cache such as `~/.cache/blazekit/plans` suits it.
    case cached(directory: String)
    /// Another session's choices (its ``InferenceSession/kernelPlan``) for a session of the same model and
    /// options, such as a pipeline's second copy of a network: no timing where the plan names the kernel the
    /// node offers; a node it does not cover is measured. As with ``cached(directory:)``, a plan can only make a
    /// session slower, never different.
    case reusing(KernelPlan)

    /// Whether candidates are timed (or taken from a plan cache) rather than chosen by fixed rules.
    var choosesByTiming: Bool { self != .fixed }
}

/// What runs the matrix products of dense convolutions.
public enum ConvolutionGEMM: Sendable, Equatable {
    /// The widest ``GEMMTile`` this CPU and build support (AVX-512 8×32, else FMA 6×16), else BLAS.
    /// Measured with `blaze-bench models --gemm`: the packed tiles beat OpenBLAS on every Blaze model.
    case automatic
    /// `cblas_sgemm` from OpenBLAS, with bias and clamp in separate passes.
    case blas
    /// This hand-written tile; planning fails when the CPU or build cannot run it. With
    /// `.avx512x8x32` the depthwise convolutions also run in 16-channel AVX-512 blocks.
    case packed(GEMMTile)
}

/// Whether a 1×1 convolution whose weights are mostly zeros runs as a sparse × dense product
/// (only non-zero weights multiplied) or through the dense GEMM. Both compute every output with the
/// same sequence of fused multiply-adds, zero terms aside, and give identical bits.
public enum SparseConvolution: Sendable, Equatable {
    /// When the session is planned, time both kernels on each candidate node's own shape (1×1
    /// convolutions with at least ``measuredMinimumZeroFraction`` zero weights) and keep the faster;
    /// with ``Planning/fixed`` (no timing), the dense GEMM.
    case measured
    /// Every 1×1 convolution through the dense GEMM.
    case dense
    /// Every 1×1 convolution through the sparse kernel, whatever its share of zeros.
    case sparse

    /// The share of zero weights below which ``measured`` does not try the sparse kernel.
    public static let measuredMinimumZeroFraction = 0.4
}

/// A planned, ready-to-run model.
///
/// At creation every node is checked and planned: kernel variants chosen, work split across
/// threads decided, and all activations placed in one arena with lifetime-based reuse. Weights are
/// read in place from the memory-mapped model file. ``run()`` allocates nothing.
///
/// A session is not thread-safe: use one per thread (sessions of the same model may run
/// concurrently on different threads).
public final class InferenceSession: @unchecked Sendable {
    /// The model this session runs.
    public let model: ModelFile
    public let options: RuntimeOptions
    /// Name and shape of the graph input.
    public let inputDescription: TensorDescription
    /// Names and shapes of the graph outputs, in order.
    public let outputDescriptions: [TensorDescription]

    private let pool: WorkerPool
    private let arena: ScratchBuffer
    private let arenaFloats: Int
    private let inputPointer: UnsafeMutablePointer<Float>
    private let outputPointers: [UnsafePointer<Float>?]
    private let computedOutputIndices: Set<Int>
    private let steps: [any ExecutionStep]
    /// What ``run()`` runs: ``steps`` with each depthwise or 1×1 convolution and the 1×1 convolutions after it
    /// that can share one parallel region as a ``DepthwisePointwiseRegion``, and the one-task steps around a
    /// large depthwise convolution as a ``DepthwiseBandRegion`` (``profile()`` times them apart).
    private let regions: [any ExecutionStep]
    private let stepNames: [String]
    private let stepKinds: [OpKind]
    /// The graph node each step runs, in run order (index into the model graph's `nodes`). A convolution
    /// that absorbs the add, pad, PReLU or ReLU after it (``RuntimeOptions/fusesEpilogues``) is one step, listed under
    /// the convolution's node; nodes no computed output needs have no step.
    public let stepNodes: [Int]
    /// The graph nodes of each region ``run()`` runs, in run order: one node for a step run alone, several for
    /// steps that share a region (see ``regionKinds``).
    public let regionNodes: [[Int]]
    /// Seconds the session took to plan: checking the graph, packing weights, placing the arena and, with
    /// ``Planning/measured``, timing candidate kernels.
    public let planSeconds: Double
    /// The candidates this session's planning chose, node by node (empty with ``Planning/fixed``): what
    /// ``Planning/cached(directory:)`` stores.
    public let kernelPlan: KernelPlan

    /// Loads and plans the model file at `path`.
    public convenience init(path: String, options: RuntimeOptions = RuntimeOptions()) throws {
        try self.init(model: ModelFile(path: path), options: options)
    }

    /// Plans `model`. The session runs its parallel loops on `workers` when given (a pool shared by the
    /// networks of one pipeline, which run one at a time; its `threadCount` must equal
    /// `options.threadCount`), else on a pool of its own.
    public init(model: ModelFile, options: RuntimeOptions = RuntimeOptions(), workers: WorkerPool? = nil) throws {
        let planStart = DispatchTime.now().uptimeNanoseconds
        try options.validate()
        if let workers, workers.threadCount != options.threadCount {
            throw RuntimeError.invalidOption(name: "workers", expected: "a pool of options.threadCount = \(options.threadCount) threads",
                                             actual: "\(workers.threadCount) threads")
        }
        self.model = model
        self.options = options
        let g = model.graph
        guard g.inputs.count == 1 else {
            throw RuntimeError.modelMismatch(model: model.path, reason: "expected exactly one graph input, found \(g.inputs.count)")
        }
        let inputID = g.inputs[0]
        inputDescription = TensorDescription(name: g.values[inputID].name, shape: g.values[inputID].shape)
        outputDescriptions = g.outputs.map { TensorDescription(name: g.values[$0].name, shape: g.values[$0].shape) }
        let computed = options.computedOutputs ?? Set(g.outputs.indices)
        if let bad = computed.first(where: { !g.outputs.indices.contains($0) }) {
            throw RuntimeError.invalidOption(name: "computedOutputs", expected: "output indices in 0..<\(g.outputs.count)", actual: "\(bad)")
        }
        computedOutputIndices = computed
        // Nodes that some computed output depends on, found backwards from those outputs.
        var neededValue = [Bool](repeating: false, count: g.values.count)
        for k in computed { neededValue[g.outputs[k]] = true }
        var neededNode = [Bool](repeating: false, count: g.nodes.count)
        for n in g.nodes.indices.reversed() where g.nodes[n].outputs.contains(where: { neededValue[$0] }) {
            neededNode[n] = true
            for i in g.nodes[n].inputs { neededValue[i] = true }
        }

        // The steps: needed nodes in graph order, a convolution with the add and PReLU it absorbs reading the
        // residual too and writing the last absorbed node's output; on one thread, band producers then move
        // (``delayBandProducers``).
        let fusion = options.fusesEpilogues ? EpilogueFusion(graph: g, neededNode: neededNode) : EpilogueFusion()
        var planned: [PlannedStep] = g.nodes.indices.compactMap { n in
            guard neededNode[n], !fusion.absorbed.contains(n) else { return nil }
            let node = g.nodes[n]
            guard let group = fusion.groups[n] else { return (n, node.inputs, node.outputs) }
            return (n, node.inputs + [group.add?.residual, group.prelu?.alpha].compactMap { $0 }, [group.output])
        }

        let bandSizes = options.bandsForTesting ?? DepthwiseBandRegion.sizes
        let runsInBands = options.runsDepthwiseInBands && options.threadCount == 1
        if runsInBands { Self.delayBandProducers(&planned, graph: g, computed: computed, minimumMapFloats: bandSizes.minimumMapFloats) }

        // Lifetimes: step index of definition and of last use; input at -1, outputs to the end.
        let end = planned.count
        var first = [Int](repeating: Int.max, count: g.values.count)
        var last = [Int](repeating: -1, count: g.values.count)
        first[inputID] = -1
        last[inputID] = -1
        for (position, step) in planned.enumerated() {
            for o in step.outputs { first[o] = position; last[o] = max(last[o], position) }
            for i in step.inputs where g.values[i].constant == nil { last[i] = max(last[i], position) }
        }
        for k in computed { last[g.outputs[k]] = end }
        // A depthwise or 1×1 convolution and the 1×1 convolutions after it, each reading the one before, may
        // run as one region (``DepthwisePointwiseRegion``): what any of them reads stays live to the region's
        // end, since one task may still read it while another writes a later output.
        func isPointwise(_ step: PlannedStep) -> Bool {
            let node = g.nodes[step.node]
            guard node.op == .conv2d, node.inputs.count > 1 else { return false }
            let w = g.values[node.inputs[1]].shape, x = g.values[node.inputs[0]].shape, y = g.values[step.outputs[0]].shape
            return w.count == 4 && w[1] == 1 && w[2] == 1 && x.count == 4 && y.count == 4 && x[1] == y[1] && x[2] == y[2]
        }
        func keepInputsLive(_ region: ClosedRange<Int>) {
            guard region.count > 1 else { return }
            for step in planned[region] {
                for i in step.inputs where g.values[i].constant == nil { last[i] = max(last[i], region.upperBound) }
            }
        }
        var start = 0
        while start < planned.count {
            let head = planned[start]
            var end = start
            if g.nodes[head.node].op == .depthwiseConv2d || isPointwise(head) {
                while end + 1 < planned.count, isPointwise(planned[end + 1]), planned[end + 1].inputs.first == planned[end].outputs.first {
                    end += 1
                }
            }
            keepInputsLive(start...end)
            start = end + 1
        }
        // Likewise, on one thread, a convolution whose output only the depthwise convolution after it reads, that
        // depthwise convolution over a large map, and the 1×1 convolutions after it run in bands
        // (``DepthwiseBandRegion``). They are found here, once: lifetimes grow only where a band region runs,
        // since a larger arena alone costs a few per cent, and the steps then run in bands only within these
        // spans. A 1×1 convolution whose output a depthwise convolution reads next starts the next band region.
        let readers = Self.readers(planned, graph: g, computed: computed)
        let onlyNextReads = planned.indices.map { k in
            planned[k].outputs.count == 1 && k + 1 < planned.count && readers[planned[k].outputs[0]] == [k + 1]
        }
        func isDepthwise(_ k: Int, reading producer: Int) -> Bool {
            k < planned.count && g.nodes[planned[k].node].op == .depthwiseConv2d
                && planned[k].inputs.first == planned[producer].outputs.first
        }
        func startsBandRegion(_ k: Int) -> Bool {
            guard runsInBands, g.nodes[planned[k].node].op == .conv2d, onlyNextReads[k], isDepthwise(k + 1, reading: k) else { return false }
            return g.values[planned[k].outputs[0]].elementCount >= bandSizes.minimumMapFloats
        }
        // Where each band region ends (planned index), by where it starts: the regions ``run()`` runs in bands.
        var bandRegionEnds = [Int?](repeating: nil, count: planned.count)
        start = 0
        while start < planned.count {
            guard startsBandRegion(start) else { start += 1; continue }
            var end = start + 1
            while end + 1 < planned.count, isPointwise(planned[end + 1]), planned[end + 1].inputs.first == planned[end].outputs.first,
                  !isDepthwise(end + 2, reading: end + 1) {
                end += 1
            }
            keepInputsLive(start...end)
            bandRegionEnds[start] = end
            start = end + 1
        }
        var intervals: [ArenaPlanner.Interval] = []
        for (id, v) in g.values.enumerated() where v.constant == nil && first[id] != Int.max {
            intervals.append(.init(value: id, floats: v.elementCount, first: first[id], last: last[id]))
        }
        let (offsets, total) = ArenaPlanner.plan(intervals, valueCount: g.values.count)
        arenaFloats = max(total, 16)
        let arenaBuffer = ScratchBuffer(floats: arenaFloats)
        arena = arenaBuffer
        let base = arenaBuffer.pointer
        pool = workers ?? WorkerPool(threadCount: options.threadCount)

        func pointer(_ id: Int) -> UnsafeMutablePointer<Float> {
            if let c = model.constantData(ofValue: id) { return UnsafeMutablePointer(mutating: c.baseAddress!) }
            return base + offsets[id]!
        }
        let inputBase = pointer(inputID)
        inputPointer = inputBase
        outputPointers = g.outputs.enumerated().map { k, id in computed.contains(k) ? UnsafePointer(pointer(id)) : nil }

        let planFile: KernelPlanFile? = if case .cached(let directory) = options.planning {
            KernelPlanFile(directory: directory, model: model, options: options)
        } else { nil }
        let stored = planFile?.load()
        let given: KernelPlan? = if case .reusing(let plan) = options.planning { plan } else { stored }
        let recorded = Dictionary((given?.choices ?? []).map { ($0.node, $0) }, uniquingKeysWith: { first, _ in first })
        var steps: [any ExecutionStep] = []
        var stepNodes: [Int] = []
        for step in planned {
            let n = step.node, node = g.nodes[n]
            guard let planner = OpRegistry.planners[node.op] else {
                throw RuntimeError.invalidNode(index: n, op: node.op.rawValue, name: node.name, reason: "no kernel for this op in this build")
            }
            let binding = NodeBinding(
                index: n, node: node,
                inputShapes: node.inputs.map { g.values[$0].shape },
                outputShapes: step.outputs.map { g.values[$0].shape },
                inputs: node.inputs.map { UnsafePointer(pointer($0)) },
                outputs: step.outputs.map { pointer($0) },
                constants: node.inputs.map { model.constantData(ofValue: $0) },
                threadCount: options.threadCount, gemmTile: options.gemmTile, sparseConvolution: options.sparseConvolution,
                measuresPlan: options.planning.choosesByTiming, recordedChoice: recorded[n], narrowForTesting: options.narrowForTesting,
                epilogue: try fusion.groups[n].map { group in
                    ConvolutionEpilogue(residual: group.add.map { UnsafePointer(pointer($0.residual)) },
                                        residualClamp: try group.add.map { add in
                                            let b = try g.nodes[add.node].activation(nodeIndex: add.node).bounds
                                            return ClampBounds(min: b.min, max: b.max)
                                        } ?? .none,
                                        residualChannels: group.pad?.residualChannels ?? 0,
                                        preluAlpha: group.prelu.map { UnsafePointer(pointer($0.alpha)) },
                                        relu: group.relu != nil)
                }, pool: pool)
            for o in step.outputs where g.values[o].constant != nil {
                throw binding.error("writes constant value '\(g.values[o].name)'")
            }
            steps.append(try planner.plan(binding))
            stepNodes.append(n)
        }
        self.steps = steps
        var regions: [any ExecutionStep] = []
        var regionNodes: [[Int]] = []
        var i = 0
        while i < steps.count {
            let (region, count): (any ExecutionStep, Int)
            if let end = bandRegionEnds[i], let band = DepthwiseBandRegion.longest(steps[i...end], bandFloats: bandSizes.bandFloats) {
                (region, count) = band
            } else if let shared = DepthwisePointwiseRegion.longest(steps[i...]) {
                (region, count) = shared
            } else {
                (region, count) = (steps[i], 1)
            }
            regions.append(region)
            regionNodes.append(Array(stepNodes[i..<(i + count)]))
            i += count
        }
        self.regions = regions
        self.regionNodes = regionNodes
        kernelPlan = KernelPlan(choices: zip(stepNodes, steps).compactMap { node, step in
            guard let conv = step as? Conv2DOp.Step, let candidate = conv.candidate else { return nil }
            return KernelPlan.Choice(node: node, candidate: candidate, kernel: conv.baseKernelName)
        })
        if let planFile, kernelPlan != stored { try planFile.store(kernelPlan) }
        planSeconds = Double(DispatchTime.now().uptimeNanoseconds - planStart) * 1e-9
        self.stepNodes = stepNodes
        stepNames = stepNodes.map { g.nodes[$0].name }
        stepKinds = stepNodes.map { g.nodes[$0].op }
    }

    /// Moves each convolution whose output only a later depthwise convolution reads, over a map of at least
    /// `minimumMapFloats`, to just before that reader, so that the two can start a ``DepthwiseBandRegion``. In
    /// hand_landmark a stride-2 block's expansion comes before the max pool of its shortcut, which reads the
    /// expansion's input: run in graph order, the expansion's 3.2 MB map would be written whole and read back.
    /// The steps it passes do not read its output (the depthwise convolution is its one reader), so every value is
    /// still computed from the same inputs, and the bits are the same.
    static func delayBandProducers(_ planned: inout [PlannedStep], graph g: Graph,
                                   computed: Set<Int>, minimumMapFloats: Int) {
        let readers = Self.readers(planned, graph: g, computed: computed)
        var moves: [(producer: Int, reader: Int)] = []
        for (k, step) in planned.enumerated() where g.nodes[step.node].op == .conv2d && step.outputs.count == 1 {
            let o = step.outputs[0]
            guard readers[o].count == 1, let j = readers[o].first, j > k + 1, j < planned.count,
                  g.nodes[planned[j].node].op == .depthwiseConv2d, planned[j].inputs.first == o,
                  g.values[o].elementCount >= minimumMapFloats else { continue }
            moves.append((step.node, planned[j].node))
        }
        // Positions found afresh for each move, as an earlier move may have shifted them.
        for (producer, reader) in moves {
            guard let from = planned.firstIndex(where: { $0.node == producer }) else { continue }
            let step = planned.remove(at: from)
            let to = planned.firstIndex(where: { $0.node == reader })!
            planned.insert(step, at: to)
        }
    }

    /// The positions in `planned` of the steps that read each value, once per step, ascending; a computed graph
    /// output is also read at `planned.count`, after every step.
    static func readers(_ planned: [PlannedStep], graph g: Graph, computed: Set<Int>) -> [[Int]] {
        var readers = [[Int]](repeating: [], count: g.values.count)
        for (k, step) in planned.enumerated() { for i in Set(step.inputs) { readers[i].append(k) } }
        for k in computed.sorted() where readers[g.outputs[k]].last != planned.count { readers[g.outputs[k]].append(planned.count) }
        return readers
    }

    /// A step as the planner orders it: its graph node, the values it reads (a fused residual and PReLU slopes
    /// included) and the values it writes.
    typealias PlannedStep = (node: Int, inputs: [Int], outputs: [Int])

    /// How many parallel regions ``run()`` runs: the steps, less those that share a region
    /// (``DepthwisePointwiseRegion``, ``DepthwiseBandRegion``).
    public var regionCount: Int { regions.count }

    /// What each region of ``regionNodes`` is: `step`, `shared parallel region` (``DepthwisePointwiseRegion``)
    /// or `bands through a ring` (``DepthwiseBandRegion``).
    public var regionKinds: [String] {
        regions.map { r in
            switch r {
            case is DepthwiseBandRegion: "bands through a ring"
            case is DepthwisePointwiseRegion: "shared parallel region"
            default: "step"
            }
        }
    }

    /// The input buffer: write the input here, then call ``run()``.
    public var input: UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: inputPointer, count: inputDescription.shape.reduce(1, *))
    }

    /// Output `index` of the last ``run()``; valid until the next run. Empty for an output that
    /// ``RuntimeOptions/computedOutputs`` leaves out.
    public func output(_ index: Int) -> UnsafeBufferPointer<Float> {
        guard let p = outputPointers[index] else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: p, count: outputDescriptions[index].shape.reduce(1, *))
    }

    /// Whether output `index` is computed (see ``RuntimeOptions/computedOutputs``).
    public func computes(output index: Int) -> Bool { computedOutputIndices.contains(index) }

    /// Runs the graph on the contents of ``input``. Allocates nothing.
    public func run() {
        for r in regions { r.run(pool: pool) }
    }

    /// Copies `values` into the input, runs, and returns copies of all outputs.
    public func run(_ values: [Float]) throws -> [[Float]] {
        let n = inputDescription.shape.reduce(1, *)
        guard values.count == n else {
            throw RuntimeError.invalidInput(name: inputDescription.name, expected: "\(n) floats for shape \(inputDescription.shape)",
                                            actual: "\(values.count)")
        }
        values.withUnsafeBufferPointer { inputPointer.update(from: $0.baseAddress!, count: n) }
        run()
        return outputDescriptions.indices.map { Array(output($0)) }
    }

    /// Runs `body(i)` for `i` in `0..<count` on this session's threads, e.g. to prepare its input.
    /// Like ``run()``, not to be called concurrently on one session.
    public func parallelFor(_ count: Int, _ body: (Int) -> Void) {
        pool.parallelFor(count, body)
    }

    /// Work this session's worker threads take up while they have no part of a run to do, such as decoding
    /// the next frames of a video; nil removes it. See `WorkerPool.setIdleWork(_:)`.
    public func setIdleWork(_ work: (@Sendable () -> Bool)?) {
        pool.setIdleWork(work)
    }

    /// Bytes of activation memory this session holds.
    public var arenaBytes: Int { arenaFloats * 4 }

    /// The kernel the planner chose for each planned node, in run order (``stepNodes``): `(node name, op, kernel)`,
    /// e.g. `sparse-16px` or `gemm-fma-6x16` for a convolution; empty for ops with a single kernel.
    public var kernelNames: [(name: String, op: OpKind, kernel: String)] {
        steps.indices.map { (stepNames[$0], stepKinds[$0], steps[$0].kernelName) }
    }

    /// Tests only: the steps (indices into ``kernelNames``) whose tasks share output channels rather than pixels.
    var stepsSplittingOutputs: [Int] {
        steps.indices.filter { (steps[$0] as? Conv2DOp.Step)?.splitsOutputs == true }
    }

    /// Why each step's kernel was chosen, in the order of ``kernelNames``: where the planner timed candidates
    /// (``Planning/measured``), their best times on this machine, e.g. `timed: sparse-16px 21 µs, gemm-avx512-8x32 34 µs`;
    /// empty where a fixed rule chose (one kernel for the op and shape, or ``Planning/fixed``).
    public var kernelChoices: [String] { steps.map(\.kernelChoice) }

    /// Runs once, timing every step: `(node name, op, seconds)` in run order (``stepNodes``).
    public func profile() -> [(name: String, op: OpKind, seconds: Double)] {
        var result: [(String, OpKind, Double)] = []
        result.reserveCapacity(steps.count)
        for (i, s) in steps.enumerated() {
            let t0 = DispatchTime.now().uptimeNanoseconds
            s.run(pool: pool)
            let t1 = DispatchTime.now().uptimeNanoseconds
            result.append((stepNames[i], stepKinds[i], Double(t1 - t0) * 1e-9))
        }
        return result
    }

    /// Runs once as ``run()`` does, region by region (bands and shared regions whole), timing each region:
    /// seconds in the order of ``regionNodes``. Unlike ``profile()``, this times what a run really runs.
    public func regionProfile() -> [Double] {
        regions.map { r in
            let t0 = DispatchTime.now().uptimeNanoseconds
            r.run(pool: pool)
            return Double(DispatchTime.now().uptimeNanoseconds - t0) * 1e-9
        }
    }
}
