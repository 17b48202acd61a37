import BlazeKernels
import BlazeModelFormat
import CBLAS
import Foundation

/// How a session runs.
public struct RuntimeOptions: Sendable, Equatable {
    /// Threads one inference uses, the calling thread included (1…64). Each session owns its
    /// worker threads; OpenBLAS's own threading is kept at 1 so that BLAS never nests threads
    /// inside ours.
    public var threadCount: Int
    /// Let BlazeKit switch OpenBLAS to its AVX-512 kernels when OpenBLAS misdetects an AVX-512
    /// CPU as an AVX2 one (see ``BLASKernelSelection``). Done once per process, before the first
    /// session plans; set `false` (or set `OPENBLAS_CORETYPE`) to keep OpenBLAS's own choice.
    public var selectBLASKernels: Bool

    public init(threadCount: Int = 1, selectBLASKernels: Bool = true) {
        self.threadCount = threadCount
        self.selectBLASKernels = selectBLASKernels
    }

    func validate() throws {
        guard (1...64).contains(threadCount) else {
            throw RuntimeError.invalidOption(name: "threadCount", expected: "1...64", actual: "\(threadCount)")
        }
    }
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
    private let outputPointers: [UnsafePointer<Float>]
    private let steps: [any ExecutionStep]
    private let stepNames: [String]
    private let stepKinds: [OpKind]

    /// Loads and plans the model file at `path`.
    public convenience init(path: String, options: RuntimeOptions = RuntimeOptions()) throws {
        try self.init(model: ModelFile(path: path), options: options)
    }

    /// Plans `model`.
    public init(model: ModelFile, options: RuntimeOptions = RuntimeOptions()) throws {
        try options.validate()
        if options.selectBLASKernels { BLASKernelSelection.upgradeIfBeneficial() }
        openblas_set_num_threads(1)
        self.model = model
        self.options = options
        let g = model.graph
        guard g.inputs.count == 1 else {
            throw RuntimeError.modelMismatch(model: model.path, reason: "expected exactly one graph input, found \(g.inputs.count)")
        }
        let inputID = g.inputs[0]
        inputDescription = TensorDescription(name: g.values[inputID].name, shape: g.values[inputID].shape)
        outputDescriptions = g.outputs.map { TensorDescription(name: g.values[$0].name, shape: g.values[$0].shape) }

        // Lifetimes: step index of definition and of last use; input at -1, outputs to the end.
        let end = g.nodes.count
        var first = [Int](repeating: Int.max, count: g.values.count)
        var last = [Int](repeating: -1, count: g.values.count)
        first[inputID] = -1
        last[inputID] = -1
        for (n, node) in g.nodes.enumerated() {
            for o in node.outputs { first[o] = n; last[o] = max(last[o], n) }
            for i in node.inputs where g.values[i].constant == nil { last[i] = max(last[i], n) }
        }
        for o in g.outputs { last[o] = end }
        var intervals: [ArenaPlanner.Interval] = []
        for (id, v) in g.values.enumerated() where v.constant == nil && first[id] != Int.max {
            intervals.append(.init(value: id, floats: v.elementCount, first: first[id], last: last[id]))
        }
        let (offsets, total) = ArenaPlanner.plan(intervals, valueCount: g.values.count)
        arenaFloats = max(total, 16)
        let arenaBuffer = ScratchBuffer(floats: arenaFloats)
        arena = arenaBuffer
        let base = arenaBuffer.pointer
        pool = WorkerPool(threadCount: options.threadCount)

        func pointer(_ id: Int) -> UnsafeMutablePointer<Float> {
            if let c = model.constantData(ofValue: id) { return UnsafeMutablePointer(mutating: c.baseAddress!) }
            return base + offsets[id]!
        }
        let inputBase = pointer(inputID)
        inputPointer = inputBase
        outputPointers = g.outputs.map { UnsafePointer(pointer($0)) }

        var steps: [any ExecutionStep] = []
        for (n, node) in g.nodes.enumerated() {
            guard let planner = OpRegistry.planners[node.op] else {
                throw RuntimeError.invalidNode(index: n, op: node.op.rawValue, name: node.name, reason: "no kernel for this op in this build")
            }
            let binding = NodeBinding(
                index: n, node: node,
                inputShapes: node.inputs.map { g.values[$0].shape },
                outputShapes: node.outputs.map { g.values[$0].shape },
                inputs: node.inputs.map { UnsafePointer(pointer($0)) },
                outputs: node.outputs.map { pointer($0) },
                constants: node.inputs.map { model.constantData(ofValue: $0) },
                threadCount: options.threadCount)
            for o in node.outputs where g.values[o].constant != nil {
                throw binding.error("writes constant value '\(g.values[o].name)'")
            }
            steps.append(try planner.plan(binding))
        }
        self.steps = steps
        stepNames = g.nodes.map(\.name)
        stepKinds = g.nodes.map(\.op)
    }

    /// The input buffer: write the input here, then call ``run()``.
    public var input: UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: inputPointer, count: inputDescription.shape.reduce(1, *))
    }

    /// Output `index` of the last ``run()``; valid until the next run.
    public func output(_ index: Int) -> UnsafeBufferPointer<Float> {
        UnsafeBufferPointer(start: outputPointers[index], count: outputDescriptions[index].shape.reduce(1, *))
    }

    /// Runs the graph on the contents of ``input``. Allocates nothing.
    public func run() {
        for s in steps { s.run(pool: pool) }
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

    /// Bytes of activation memory this session holds.
    public var arenaBytes: Int { arenaFloats * 4 }

    /// Runs once, timing every step: `(node name, op, seconds)` in graph order.
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
}
