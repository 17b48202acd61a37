import BlazeKernelsAVX512

/// A convolution's weights packed for the pixel-major kernels (``NarrowConv2DKernel``,
/// ``SparseConv1x1Kernel``): output channels in groups of `groupWidth`, and for each group and
/// kernel row the list of live entries `(kx, c)` — those where a weight of the group is non-zero —
/// with their weights and where each entry's values lie in the planar (channel-major) input rows
/// the kernels build.
public final class PixelConvWeights: @unchecked Sendable {
    /// How the output channels are grouped.
    public enum Layout: Sendable {
        /// All outputs (1…8) in one group, padded to 1, 2, 4 or 8; every live tap of every output in
        /// one list. For convolutions with few outputs.
        case narrow
        /// One group per output channel, each with the list of its own non-zero weights (a CSR
        /// matrix). For 1×1 convolutions whose weights are mostly zeros.
        case sparse
    }

    /// Output channels `N`.
    public let outputs: Int
    /// Input channels `C`.
    public let inChannels: Int
    /// The convolution's geometry; the weights are packed for it and only run on it.
    public let window: SpatialWindow
    /// Sixteen pixels per vector (AVX-512, `PixelTile16`) instead of eight (`PixelTile8`).
    public let wide: Bool
    /// Outputs computed together from one entry list (1, 2, 4 or 8; 1 for `.sparse`).
    public let groupWidth: Int
    /// Groups of outputs, each with its own entry lists.
    public let groupCount: Int
    /// Vectors of pixels per tile call.
    public let vectors: Int
    /// Live entries over `groupCount · KH·KW·C`.
    public let liveFraction: Double
    /// Floats of scratch one task needs (see ``NarrowConv2DKernel/run(input:weights:output:rows:clamp:scratch:)``).
    public let scratchFloats: Int
    /// Pixels per vector.
    public var lanes: Int { wide ? 16 : 8 }
    /// Output pixels per tile call.
    public var blockPixels: Int { lanes * vectors }
    /// Whether the kernel walks flat pixel blocks (1×1, stride 1, unpadded) instead of output rows.
    public var isPointwise: Bool { window.isPointwise }

    /// Floats between successive (channel, phase) rows of a planar input row (pointwise: of a block).
    let rowStride: Int
    /// Phases of a planar row: the horizontal stride (pointwise: 1).
    let phases: Int
    /// Output width rounded up to whole blocks (pointwise: one block).
    let paddedWidth: Int
    /// Pair `(g·KH + ky)`: the entries of group `g`, kernel row `ky`.
    let segments: UnsafeMutablePointer<Int>
    let offsets: UnsafeMutablePointer<Int32>
    let values: UnsafeMutablePointer<Float>
    /// `groupCount · groupWidth` floats, zero for padding outputs.
    let bias: UnsafeMutablePointer<Float>

    /// Packs OHWI `weights` (`[outputs, KH, KW, inChannels]`) and `bias` for `window`.
    /// `wide` needs a CPU with AVX-512 (``CPUFeatures/hasAVX512``); `.narrow` needs at most 8 outputs.
    public init(weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, outputs: Int, window: SpatialWindow,
                inChannels: Int, layout: Layout, wide: Bool) {
        precondition(outputs >= 1 && inChannels >= 1, "PixelConvWeights: outputs \(outputs), inChannels \(inChannels)")
        precondition(layout == .sparse || outputs <= 8, "PixelConvWeights: .narrow expected at most 8 outputs, found \(outputs)")
        precondition(!wide || CPUFeatures.hasAVX512, "PixelConvWeights: wide needs AVX-512")
        self.outputs = outputs
        self.inChannels = inChannels
        self.window = window
        self.wide = wide
        let lanes = wide ? 16 : 8
        // Vectors per call: eight accumulators (`G·P` = 8), but no more vectors than the row
        // (pointwise: all pixels) needs.
        let span = window.isPointwise ? window.outputHeight * window.outputWidth : window.outputWidth
        var needed = 1
        while needed < 8, needed * lanes < span { needed *= 2 }
        switch layout {
        case .narrow:
            groupWidth = outputs == 1 ? 1 : outputs == 2 ? 2 : outputs <= 4 ? 4 : 8
            groupCount = 1
            vectors = min(8 / groupWidth, needed)
        case .sparse:
            groupWidth = 1
            groupCount = outputs
            vectors = needed
        }
        let block = lanes * vectors
        let kh = window.kernelHeight, kw = window.kernelWidth, c = inChannels
        if window.isPointwise {
            // Pixels are transposed in chunks of several tile calls' worth, to spread the cost of the
            // calls and loops around the transposes: up to 64 pixels while a chunk's planar copy
            // stays within 16 KiB (of L1).
            phases = 1
            paddedWidth = max(block, min(64, 4096 / c) / block * block)
            rowStride = paddedWidth
            scratchFloats = c * paddedWidth + groupCount * groupWidth * paddedWidth
        } else {
            phases = window.strideWidth
            paddedWidth = (window.outputWidth + block - 1) / block * block
            rowStride = paddedWidth + (kw - 1) * window.dilationWidth / window.strideWidth
            let ringRows = (kh - 1) * window.dilationHeight + 1
            scratchFloats = ringRows * c * phases * rowStride + groupCount * groupWidth * paddedWidth
        }
        precondition(c * phases * rowStride < Int(Int32.max), "PixelConvWeights: planar row too large")

        let depth = kh * kw * c
        var offs: [Int32] = [], vals: [Float] = []
        segments = .allocate(capacity: 2 * groupCount * kh)
        for g in 0..<groupCount {
            let outs = (g * groupWidth)..<min(outputs, (g + 1) * groupWidth)
            for ky in 0..<kh {
                segments[2 * (g * kh + ky)] = offs.count
                for kx in 0..<kw {
                    let phase = kx * window.dilationWidth % phases, shift = kx * window.dilationWidth / phases
                    for ch in 0..<c {
                        let k = (ky * kw + kx) * c + ch
                        guard outs.contains(where: { weights[$0 * depth + k] != 0 }) else { continue }
                        offs.append(Int32((ch * phases + phase) * rowStride + shift))
                        for j in 0..<groupWidth { vals.append(outs.contains(g * groupWidth + j) ? weights[(g * groupWidth + j) * depth + k] : 0) }
                    }
                }
                segments[2 * (g * kh + ky) + 1] = offs.count
            }
        }
        liveFraction = Double(offs.count) / Double(groupCount * depth)
        offsets = .allocate(capacity: max(offs.count, 1))
        offsets.initialize(repeating: 0, count: max(offs.count, 1))
        offsets.update(from: offs, count: offs.count)
        values = .allocate(capacity: max(vals.count, 1))
        values.initialize(repeating: 0, count: max(vals.count, 1))
        values.update(from: vals, count: vals.count)
        self.bias = .allocate(capacity: groupCount * groupWidth)
        self.bias.initialize(repeating: 0, count: groupCount * groupWidth)
        self.bias.update(from: bias, count: outputs)
    }

    deinit {
        segments.deallocate()
        offsets.deallocate()
        values.deallocate()
        bias.deallocate()
    }

    /// One tile call: group `g`, kernel rows `rows` (bases at `bases[0..<rows.count]`), into `tile`.
    @inline(__always)
    func runTile(group g: Int, rows: Range<Int>, bases: UnsafePointer<UnsafeRawPointer>, tile: UnsafeMutablePointer<Float>,
                 ldt: Int, bounds: UnsafePointer<Float>) {
        let seg = UnsafePointer(segments + 2 * (g * window.kernelHeight + rows.lowerBound))
        let b = UnsafePointer(bias + g * groupWidth)
        if wide {
            PixelTile16.run(groupWidth: groupWidth, vectors: vectors, rowBases: bases, rowCount: rows.count, segments: seg,
                            offsets: offsets, weights: values, bias: b, tile: tile, ldt: ldt, bounds: bounds)
        } else {
            PixelTile8.run(groupWidth: groupWidth, vectors: vectors, rowBases: bases, rowCount: rows.count, segments: seg,
                           offsets: offsets, weights: values, bias: b, tile: tile, ldt: ldt, bounds: bounds)
        }
    }
}
