import BlazeKernels
import BlazeModelFormat

/// One planned node: kernel variant chosen, pointers resolved, work split decided. `run`
/// allocates nothing.
protocol ExecutionStep {
    func run(pool: WorkerPool)
    /// Which kernel the planner chose, for ``InferenceSession/kernelNames``; empty for ops with one kernel.
    var kernelName: String { get }
    /// Why: the candidates' times where the planner measured them (``Planning/measured``), for
    /// ``InferenceSession/kernelChoices``; empty where a fixed rule chose.
    var kernelChoice: String { get }
}

extension ExecutionStep {
    var kernelName: String { "" }
    var kernelChoice: String { "" }
}

/// What an op's planner sees of its node: attributes, shapes, resolved buffers and constants.
struct NodeBinding {
    let index: Int
    let node: Node
    let inputShapes: [[Int]]
    let outputShapes: [[Int]]
    let inputs: [UnsafePointer<Float>]
    let outputs: [UnsafeMutablePointer<Float>]
    /// The constant data of each input, nil for activations.
    let constants: [UnsafeBufferPointer<Float>?]
    let threadCount: Int
    /// The packed-GEMM tile for dense convolutions, nil for BLAS.
    let gemmTile: GEMMTile?
    /// Which 1×1 convolutions go sparse.
    var sparseConvolution: SparseConvolution = .measured
    /// Whether planners may time candidate kernels (``Planning/measured``); else they follow fixed rules.
    var measuresPlan = true
    /// This node's choice in the session's stored ``KernelPlan`` (``Planning/cached(directory:)``), if any.
    var recordedChoice: KernelPlan.Choice? = nil
    /// Tests only: see ``RuntimeOptions/narrowForTesting``.
    var narrowForTesting: Bool? = nil
    /// The add and PReLU a convolution absorbs (``EpilogueFusion``); nil for every other node.
    var epilogue: ConvolutionEpilogue? = nil
    /// The session's threads, for planners that time candidate kernels as they would run.
    var pool: WorkerPool? = nil

    func error(_ reason: String) -> RuntimeError {
        .invalidNode(index: index, op: node.op.rawValue, name: node.name, reason: reason)
    }

    func requireArity(inputs n: Int, outputs m: Int = 1) throws {
        guard inputShapes.count == n, outputShapes.count == m else {
            throw error("expected \(n) inputs and \(m) outputs, found \(inputShapes.count) and \(outputShapes.count)")
        }
    }

    /// Input `i` as a constant of exactly `count` floats.
    func constant(_ i: Int, count: Int, role: String) throws -> UnsafePointer<Float> {
        guard let c = constants[i] else { throw error("\(role) (input \(i)) must be a constant") }
        guard c.count == count else { throw error("\(role) expected \(count) values, found \(c.count)") }
        return c.baseAddress!
    }

    /// Input `i` as an activation (not a constant).
    func activation(_ i: Int) throws -> UnsafePointer<Float> {
        guard constants[i] == nil else { throw error("input \(i) must be an activation, found a constant") }
        return inputs[i]
    }

    func requireShape(_ actual: [Int], _ expected: [Int], _ what: String) throws {
        guard actual == expected else { throw error("\(what) shape expected \(expected), found \(actual)") }
    }

    func int(_ key: String) throws -> Int { try node.int(key, nodeIndex: index) }
    func ints(_ key: String, count: Int) throws -> [Int] { try node.ints(key, count: count, nodeIndex: index) }
    func clamp() throws -> ClampBounds {
        let b = try node.activation(nodeIndex: index).bounds
        return ClampBounds(min: b.min, max: b.max)
    }

    /// `[1,H,W,C]` of activation input `i`.
    func nhwc(_ shape: [Int], _ what: String) throws -> (h: Int, w: Int, c: Int) {
        guard shape.count == 4, shape[0] == 1 else { throw error("\(what) expected NHWC with batch 1, found \(shape)") }
        return (shape[1], shape[2], shape[3])
    }

    /// The sliding window from `strides`, `dilations` and `pads` [top, left, bottom, right].
    func window(kernelHeight: Int, kernelWidth: Int, inputHeight: Int, inputWidth: Int) throws -> SpatialWindow {
        let s = try ints("strides", count: 2)
        let d = node.attributes["dilations"] == nil ? [1, 1] : try ints("dilations", count: 2)
        let p = try ints("pads", count: 4)
        guard s.allSatisfy({ $0 >= 1 && $0 <= 16 }), d.allSatisfy({ $0 >= 1 && $0 <= 16 }),
              p.allSatisfy({ $0 >= 0 && $0 <= 64 }), kernelHeight >= 1, kernelWidth >= 1 else {
            throw error("window expected strides/dilations in 1...16 and pads in 0...64, found strides \(s), dilations \(d), pads \(p)")
        }
        let w = SpatialWindow(inputHeight: inputHeight, inputWidth: inputWidth, kernelHeight: kernelHeight, kernelWidth: kernelWidth,
                              strideHeight: s[0], strideWidth: s[1], dilationHeight: d[0], dilationWidth: d[1],
                              padTop: p[0], padLeft: p[1], padBottom: p[2], padRight: p[3])
        guard w.outputHeight >= 1, w.outputWidth >= 1 else { throw error("window \(w) has an empty output") }
        return w
    }

    /// Number of parallel tasks for work of `flops` split into at most `units` pieces (one below
    /// ``ParallelWork/minimumFlops``).
    func taskCount(flops: Int, units: Int) -> Int {
        guard threadCount > 1, flops >= ParallelWork.minimumFlops else { return 1 }
        return max(1, min(threadCount, units))
    }
}

enum ParallelWork {
    /// Items a step of `tasks` tasks deals out on a pool of `threads` threads: four a task when every thread
    /// has a task, so that a thread that starts late or runs slow hands its last pieces to the others
    /// (``WorkerPool/parallelFor(items:_:)``); else one a task. Paired at 2 threads on the AMD EPYC VM, against
    /// one item a task: face_landmark 0.92–0.99, palm_detection_full 0.94–0.99, face_detection_short_range
    /// 0.95–1.00, pose_landmark_full 0.98–0.99, hand_landmark_lite 0.99–1.02, hand_landmark_full 1.01–1.02.
    static func items(tasks: Int, threads: Int) -> Int {
        tasks > 1 && tasks == threads ? 4 * tasks : tasks
    }

    /// Pixels a piece of pixels is a multiple of: whole tiles of both GEMM tiles (6 and 8 rows).
    static let piecePixels = 24

    /// Below this much work a step runs on one thread: the handoff to another thread costs more than it saves
    /// (blaze-bench, 2 threads, with one item a task: hand_landmark_lite 3.27 ms at a 40 kFLOP threshold, 2.85 ms at
    /// 200 k, 3.03 ms at 1 M). With the pool's runs and pieces a handoff costs less: paired at 2 threads on the AMD
    /// EPYC VM, 100 k against 200 k, face_detection_short_range 0.974–0.988, face_landmark 0.969–1.000, hand_recrop
    /// 0.973–0.996 (four sets each), the larger networks 0.993–1.013; 400 k was worse (hand_recrop 1.086).
    static let minimumFlops = 100_000
}

extension WorkerPool {
    /// Calls `body` on each piece of `0..<count` that a step of `tasks` tasks deals out: one a task, or four a task when
    /// every thread has a task (``ParallelWork/items(tasks:threads:)``, ``piece(_:tasks:items:item:multipleOf:)``), so
    /// that a slow thread's last pieces go to the others. Empty pieces are skipped. The depthwise, add, ReLU, PReLU,
    /// max-pool, pad and resize steps split this way; paired at 2 threads on the AMD EPYC VM against one piece a task
    /// for all but the depthwise step: pose_landmark_full 0.991–0.992, pose_landmark_lite 0.989–0.998,
    /// palm_detection_lite 0.991–0.997, face_landmark 0.992–0.993, palm_detection_full and face_detection 0.999–1.006.
    func forEachPiece(of count: Int, tasks: Int, _ body: (Range<Int>) -> Void) {
        let n = ParallelWork.items(tasks: tasks, threads: threadCount)
        parallelFor(n) { i in
            let r = piece(count, tasks: tasks, items: n, item: i, multipleOf: 1)
            if !r.isEmpty { body(r) }
        }
    }

    /// ``forEachPiece(of:tasks:_:)`` over `count` floats in whole 8-float vectors, the last item taking the
    /// tail of fewer than eight.
    func forEachVectorPiece(of count: Int, tasks: Int, _ body: (Range<Int>) -> Void) {
        let vectors = count / 8
        let n = ParallelWork.items(tasks: tasks, threads: threadCount)
        parallelFor(n) { i in
            let r = piece(vectors, tasks: tasks, items: n, item: i, multipleOf: 1)
            let range = (r.lowerBound * 8)..<(i == n - 1 ? count : r.upperBound * 8)
            if !range.isEmpty { body(range) }
        }
    }
}

/// The `task`-th of `tasks` near-equal parts of `0..<count`.
@inline(__always)
func partition(_ count: Int, _ tasks: Int, _ task: Int) -> Range<Int> {
    (count * task / tasks)..<(count * (task + 1) / tasks)
}

/// The `task`-th of `tasks` near-equal parts of `0..<count` whose boundaries are multiples of `multiple`
/// (rounded to the nearest), so that each part holds whole GEMM tiles but its last.
@inline(__always)
func partition(_ count: Int, _ tasks: Int, _ task: Int, multipleOf multiple: Int) -> Range<Int> {
    func boundary(_ k: Int) -> Int {
        k == tasks ? count : min(count, (count * k / tasks + multiple / 2) / multiple * multiple)
    }
    return boundary(task)..<boundary(task + 1)
}

/// Item `item` of `items` over `0..<count`, `items / tasks` pieces a task: task `item / (items / tasks)`'s part
/// (``partition(_:_:_:multipleOf:)``), cut in pieces that halve toward its end (½, ¼, … of the part, the last two
/// equal), so that the pieces a thread takes from another's end, the last ones run, are the smallest. Paired at 2
/// threads against equal pieces: 0.979–0.996 over eight networks (face_detection_short_range once 1.024, then 0.984).
func piece(_ count: Int, tasks: Int, items: Int, item: Int, multipleOf multiple: Int) -> Range<Int> {
    let per = items / tasks
    let part = partition(count, tasks, item / per, multipleOf: multiple)
    if per == 1 { return part }
    let j = item % per
    func boundary(_ k: Int) -> Int {
        if k == 0 { return part.lowerBound }
        if k == per { return part.upperBound }
        let n = part.count - part.count >> k
        return part.lowerBound + min(part.count, (n + multiple / 2) / multiple * multiple)
    }
    return boundary(j)..<boundary(j + 1)
}

