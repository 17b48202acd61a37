import BlazeKernels

/// A depthwise or 1×1 convolution and the 1×1 convolutions after it, each reading the one before, run as
/// one parallel region: task `t` computes its share of the first step's output pixels, then each 1×1 step on exactly those pixels, which it reads from its own
/// cache, with no barrier between. In a MobileNet block the projection, its residual add and the next
/// block's expansion follow the depthwise convolution in one region instead of three. Each output is
/// computed as the steps compute it alone, so the bits are the same. The planner keeps every value a
/// region reads live to its end, so no task's output overwrites what another task still reads.
struct DepthwisePointwiseRegion: ExecutionStep {
    let depthwise: DepthwiseConv2DOp.Step?
    let pointwise: [Conv2DOp.Step]
    let tasks: Int
    let height: Int, width: Int

    /// Whether `step` can continue a region whose previous step wrote `previous` over `tasks` tasks of an
    /// `height × width` map: a 1×1, stride-1 convolution reading it, splitting its pixels the same way.
    static func continues(_ step: any ExecutionStep, after previous: UnsafeMutablePointer<Float>, tasks: Int,
                          height: Int, width: Int) -> Conv2DOp.Step? {
        guard let conv = step as? Conv2DOp.Step, conv.input == UnsafePointer(previous), conv.tasks == tasks,
              !conv.splitsOutputs, !conv.isRowSplit else { return nil }
        let w = conv.window
        guard w.kernelHeight == 1, w.kernelWidth == 1, w.strideHeight == 1, w.strideWidth == 1,
              w.inputHeight == height, w.inputWidth == width, w.outputHeight == height, w.outputWidth == width else { return nil }
        return conv
    }

    /// The longest region starting at `steps[start]` (at most `end` exclusive), or nil when it would hold
    /// fewer than two steps; `count` is how many steps it takes.
    static func longest(_ steps: ArraySlice<any ExecutionStep>) -> (region: DepthwisePointwiseRegion, count: Int)? {
        guard let first = steps.first else { return nil }
        var depthwise: DepthwiseConv2DOp.Step?
        var chain: [Conv2DOp.Step] = []
        let tasks: Int, height: Int, width: Int
        var previous: UnsafeMutablePointer<Float>
        if let d = first as? DepthwiseConv2DOp.Step {
            (depthwise, tasks, height, width, previous) = (d, d.tasks, d.window.outputHeight, d.window.outputWidth, d.output)
        } else if let c = first as? Conv2DOp.Step, !c.splitsOutputs, !c.isRowSplit, c.window.kernelHeight == 1,
                  c.window.kernelWidth == 1, c.window.strideHeight == 1, c.window.strideWidth == 1 {
            chain = [c]
            (tasks, height, width, previous) = (c.tasks, c.window.outputHeight, c.window.outputWidth, c.output)
        } else {
            return nil
        }
        guard tasks > 1 else { return nil }
        for step in steps.dropFirst() {
            guard let next = continues(step, after: previous, tasks: tasks, height: height, width: width) else { break }
            chain.append(next)
            previous = next.output
        }
        let count = (depthwise == nil ? 0 : 1) + chain.count
        guard count >= 2 else { return nil }
        return (DepthwisePointwiseRegion(depthwise: depthwise, pointwise: chain, tasks: tasks, height: height, width: width), count)
    }

    var kernelName: String { ((depthwise == nil ? [] : ["depthwise"]) + pointwise.map(\.kernelName)).joined(separator: "+") }

    func run(pool: WorkerPool) {
        let n = ParallelWork.items(tasks: tasks, threads: pool.threadCount)
        pool.parallelFor(items: n) { i, thread in
            // Pixels, not rows, in whole GEMM tiles: a 7×7 map splits 24 : 25, not 21 : 28.
            let pixels = piece(height * width, tasks: tasks, items: n, item: i,
                               multipleOf: n == tasks ? Self.pixelTile : ParallelWork.piecePixels)
            depthwise?.compute(pixels: pixels)
            // A step has scratch for `tasks` tasks. Cut in pieces (then every thread has a task), the thread picks
            // it; else the item does, as a pool of more threads than tasks may run an item on any of them.
            for step in pointwise { step.compute(share: pixels, task: n == tasks ? i : thread) }
        }
    }

    /// Pixels a task's share is a multiple of: the rows of the AVX-512 GEMM tile.
    static let pixelTile = 8
}
