import BlazeKernels

/// On one thread: a convolution whose output only the depthwise convolution after it reads (a MobileNet block's
/// 1×1 expansion), that depthwise convolution over a large map, and the 1×1 convolutions after it, each reading
/// the one before, run in bands of the depthwise convolution's output rows. Each band computes the input rows
/// it needs that earlier bands did not, into a ring that holds one band's input rows (``ring``), then its
/// output rows, then the 1×1 convolutions on those pixels. The expanded map (up to 3 MB in the hand and pose
/// networks) is never written whole: its rows are read back from cache a moment after they are made.
///
/// On one thread only: with two, each task taking a share of the rows with a ring of its own (computing the
/// rows where shares meet twice) measured no faster than the steps alone (`blaze-bench models --paired-with
/// unbanded --threads 2`: ratios 0.994–1.017 over six networks, Intel Xeon AVX-512; 1.004–1.022 over four, AMD
/// EPYC Zen 3), where the steps already share parallel regions (``DepthwisePointwiseRegion``).
///
/// Each output is computed as the steps compute it alone, from the same inputs, so the bits are the same.
/// The planner keeps every value a region reads live to its end, since a later band still reads what an
/// earlier band's later step might otherwise overwrite (``InferenceSession``).
struct DepthwiseBandRegion: ExecutionStep {
    let producer: Conv2DOp.Step
    let depthwise: DepthwiseConv2DOp.Step
    let pointwise: [Conv2DOp.Step]
    /// Output rows of the depthwise convolution per band.
    let bandRows: Int
    /// Where the producer writes: room for the depthwise convolution's input rows of one band.
    let ring: ScratchBuffer

    /// Depthwise input maps smaller than this many floats (1 MB) are left alone: they stay in L2 anyway, and
    /// the 1×1 convolutions of small maps have large weights, which each band would read again.
    static let minimumMapFloats = 1 << 18
    /// Depthwise input floats a band adds, about: 32 K floats (128 KB), inside L2 with the band's outputs.
    /// `blaze-bench models --paired-with unbanded`, Intel Xeon AVX-512, 1 thread: 16 K, 32 K and 64 K floats
    /// within 1 % of each other.
    static let bandFloats = 1 << 15

    /// The two sizes that decide where bands run and how tall they are.
    struct Sizes: Sendable, Equatable {
        var minimumMapFloats: Int, bandFloats: Int
    }
    static let sizes = Sizes(minimumMapFloats: minimumMapFloats, bandFloats: bandFloats)

    /// Whether `step` runs on one task and computes any range of its output pixels (not rows, not channels).
    static func splitsPixelsOnOneTask(_ step: Conv2DOp.Step) -> Bool {
        step.tasks == 1 && !step.splitsOutputs && !step.isRowSplit
    }

    /// The region over `steps`, a span ``InferenceSession`` found in the graph (the producer, the depthwise
    /// convolution, the 1×1 convolutions after it), or nil when the planned steps cannot run so (split between
    /// tasks, or by rows); `count` is how many steps it takes, fewer than the span when a 1×1 convolution's step
    /// cannot continue it.
    static func longest(_ steps: ArraySlice<any ExecutionStep>, bandFloats: Int) -> (region: DepthwiseBandRegion, count: Int)? {
        guard let producer = steps.first as? Conv2DOp.Step, splitsPixelsOnOneTask(producer) else { return nil }
        var rest = steps.dropFirst()
        guard let d = rest.first as? DepthwiseConv2DOp.Step, d.tasks == 1, UnsafePointer(producer.output) == d.input else { return nil }
        let w = d.window
        rest = rest.dropFirst()
        var chain: [Conv2DOp.Step] = []
        var previous = d.output
        while let first = rest.first,
              let next = DepthwisePointwiseRegion.continues(first, after: previous, tasks: 1,
                                                            height: w.outputHeight, width: w.outputWidth) {
            chain.append(next)
            previous = next.output
            rest = rest.dropFirst()
        }
        let count = 2 + chain.count
        let rows = max(1, min(w.outputHeight, bandFloats / max(1, w.inputWidth * d.channels * w.strideHeight)))
        let ring = ScratchBuffer(floats: ((rows - 1) * w.strideHeight + (w.kernelHeight - 1) * w.dilationHeight + 1)
                                     * w.inputWidth * d.channels)
        return (DepthwiseBandRegion(producer: producer, depthwise: d, pointwise: chain, bandRows: rows, ring: ring), count)
    }

    var kernelName: String {
        ([producer.kernelName, "depthwise"] + pointwise.map(\.kernelName)).joined(separator: "+")
    }

    /// Input rows `0..<n` that the output rows before `end` read.
    func inputRows(before end: Int) -> Int {
        let w = depthwise.window
        return min(w.inputHeight, max(0, (end - 1) * w.strideHeight - w.padTop + (w.kernelHeight - 1) * w.dilationHeight + 1))
    }

    /// The ring holds input rows `low..<ready`: each band moves the rows it shares with the last band to the
    /// ring's start and computes the rest after them. Rows no output reads are not computed.
    func run(pool: WorkerPool) {
        let ring = ring.pointer
        let w = depthwise.window
        let rowFloats = w.inputWidth * depthwise.channels
        var low = 0, ready = 0
        var row = 0
        while row < w.outputHeight {
            let end = min(w.outputHeight, row + bandRows)
            let first = min(w.inputHeight, max(0, row * w.strideHeight - w.padTop))
            let needed = inputRows(before: end)
            if first > low {
                let kept = max(0, ready - first)
                if kept > 0 { ring.update(from: ring + (first - low) * rowFloats, count: kept * rowFloats) }
                low = first
                ready = max(ready, first)
            }
            // The kernels address row r of the map at base + r · rowFloats; rows low..<needed lie in the ring.
            // (Made from the address, since the base itself may lie before the ring's allocation.)
            let base = UnsafeMutablePointer<Float>(bitPattern: UInt(bitPattern: ring) &- UInt(low * rowFloats * 4))!
            if needed > ready {
                var inRing = producer
                inRing.output = base
                inRing.compute(share: (ready * w.inputWidth)..<(needed * w.inputWidth), task: 0)
                ready = needed
            }
            depthwise.reading(UnsafePointer(base)).compute(rows: row..<end)
            for step in pointwise { step.compute(share: (row * w.outputWidth)..<(end * w.outputWidth), task: 0) }
            row = end
        }
    }
}
