import BlazeKernels

/// A depthwise convolution and the 1×1 convolution that reads its output, run as one parallel region: task
/// `t` computes its share of the depthwise output rows, then the pointwise outputs of exactly those pixels,
/// which it reads from its own cache, with no barrier between the two. One region instead of two per
/// MobileNet block; each output is computed as the two steps compute it alone, so the bits are the same.
struct DepthwisePointwiseRegion: ExecutionStep {
    let depthwise: DepthwiseConv2DOp.Step
    let pointwise: Conv2DOp.Step

    /// The pair as one region, or nil when it cannot be one: the 1×1 convolution must read the depthwise
    /// output, keep its map, split pixels into as many tasks (more than one), and write outside the
    /// depthwise input (which other tasks may still be reading).
    init?(_ first: any ExecutionStep, _ second: any ExecutionStep) {
        guard let depthwise = first as? DepthwiseConv2DOp.Step, let pointwise = second as? Conv2DOp.Step else { return nil }
        let d = depthwise.window, p = pointwise.window
        guard pointwise.input == UnsafePointer(depthwise.output), depthwise.tasks > 1, pointwise.tasks == depthwise.tasks,
              !pointwise.splitsOutputs, !pointwise.isRowSplit,
              p.kernelHeight == 1, p.kernelWidth == 1, p.strideHeight == 1, p.strideWidth == 1,
              p.inputHeight == d.outputHeight, p.inputWidth == d.outputWidth,
              p.outputHeight == d.outputHeight, p.outputWidth == d.outputWidth else { return nil }
        let inputStart = UnsafeRawPointer(depthwise.input)
        let inputEnd = inputStart + d.inputHeight * d.inputWidth * depthwise.channels * MemoryLayout<Float>.size
        let outputStart = UnsafeRawPointer(pointwise.output)
        let outputEnd = outputStart + p.outputHeight * p.outputWidth * pointwise.outChannels * MemoryLayout<Float>.size
        guard outputEnd <= inputStart || inputEnd <= outputStart else { return nil }
        self.depthwise = depthwise
        self.pointwise = pointwise
    }

    var kernelName: String { "depthwise+" + pointwise.kernelName }

    func run(pool: WorkerPool) {
        let rows = depthwise.window.outputHeight, width = depthwise.window.outputWidth
        pool.parallelFor(depthwise.tasks) { t in
            let share = partition(rows, depthwise.tasks, t)
            depthwise.compute(rows: share)
            pointwise.compute(share: (share.lowerBound * width)..<(share.upperBound * width), task: t)
        }
    }
}
