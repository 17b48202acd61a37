import BlazeKernelsAVX512
#if canImport(Glibc)
import Glibc
#endif

/// A register tile of the packed GEMM: how many rows of the left operand and columns of the output
/// one call of the micro-kernel computes.
public enum GEMMTile: String, Sendable, CaseIterable {
    /// 8 × 32 in `SIMD16<Float>` accumulators; x86-64 CPUs with AVX-512 F/BW/DQ/VL only.
    case avx512x8x32 = "avx512-8x32"
    /// 6 × 16 in `SIMD8<Float>` accumulators; needs a build with FMA codegen (`BLAZEKIT_FMA`).
    case fma6x16 = "fma-6x16"

    // Not read from BlazeKernelsAVX512: nothing of that module may run before the CPU check.
    public var rows: Int { self == .avx512x8x32 ? 8 : GEMMTile6x16.rows }
    public var columns: Int { self == .avx512x8x32 ? 32 : GEMMTile6x16.columns }

    /// Whether this CPU and this build can run the tile.
    public var isSupported: Bool {
        switch self {
        case .avx512x8x32: return CPUFeatures.hasAVX512
        case .fma6x16:
            #if BLAZEKIT_FMA
            return true
            #else
            return false
            #endif
        }
    }

    /// The widest supported tile, or nil when the build has no FMA codegen (then convolutions go
    /// through `cblas_sgemm`).
    public static var best: GEMMTile? { allCases.first(where: \.isSupported) }
}

/// The right operand and bias of `C = clamp(bias + A·Bᵀ)` packed once for one ``GEMMTile``.
///
/// `B` is `[outputs, depth]` row-major (OHWI convolution weights flattened). It is cut into panels
/// of `tile.columns` outputs (the last zero-padded); each panel keeps only the depth indices where
/// one of its weights is non-zero (channels a pruned network never reads cost nothing), stored as
/// `live × columns` floats plus the list of live indices.
public final class PackedGEMMWeights: @unchecked Sendable {
    public let tile: GEMMTile
    public let outputs: Int
    public let depth: Int
    public let panelCount: Int
    /// Live depth entries over all panels divided by `panelCount · depth`.
    public let liveFraction: Double
    let values: UnsafeMutablePointer<Float>
    let indices: UnsafeMutablePointer<Int32>
    /// Panel `p` owns live entries `panelStart[p] ..< panelStart[p + 1]`.
    let panelStart: UnsafeMutablePointer<Int>
    /// For each live entry, where its value sits relative to a pixel's first tap in the input
    /// image (see ``init(weights:bias:outputs:depth:tile:window:inChannels:)``); nil for 1×1.
    let inputOffsets: UnsafeMutablePointer<Int32>?
    let bias: UnsafeMutablePointer<Float>
    /// How many panels from panel `p` on, `p` included, have `p`'s live depth entries (all of a dense
    /// layer's): ``PackedGEMM`` runs a leftover row against up to four of them at once.
    let sameLiveRun: UnsafeMutablePointer<Int>

    /// Packs `weights` (`[outputs, depth]`). With `window` (a k×k convolution over `inChannels`
    /// channels, `depth` = KH·KW·C) it also records, for each live entry `(ky, kx, c)`, its offset
    /// `(ky·dh·W + kx·dw)·C + c` in the input image, so that output pixels whose whole window is in
    /// bounds read the image directly instead of an im2col copy.
    public init(weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, outputs: Int, depth: Int, tile: GEMMTile,
                window: SpatialWindow? = nil, inChannels: Int = 0) {
        precondition(outputs >= 1 && depth >= 1 && depth <= Int(Int32.max))
        self.tile = tile
        self.outputs = outputs
        self.depth = depth
        let width = tile.columns
        panelCount = (outputs + width - 1) / width
        panelStart = .allocate(capacity: panelCount + 1)
        var live: [Int32] = []
        panelStart[0] = 0
        for p in 0..<panelCount {
            let cols = (p * width)..<min(outputs, (p + 1) * width)
            for k in 0..<depth where cols.contains(where: { weights[$0 * depth + k] != 0 }) { live.append(Int32(k)) }
            panelStart[p + 1] = live.count
        }
        // A panel with no live entry still gets its bias; keep one index so every buffer is non-empty.
        indices = .allocate(capacity: max(live.count, 1))
        indices.initialize(repeating: 0, count: max(live.count, 1))
        for (i, k) in live.enumerated() { indices[i] = k }
        values = .allocate(capacity: max(live.count, 1) * width)
        values.initialize(repeating: 0, count: max(live.count, 1) * width)
        for p in 0..<panelCount {
            for e in panelStart[p]..<panelStart[p + 1] {
                let k = Int(indices[e])
                for j in 0..<width where p * width + j < outputs {
                    values[e * width + j] = weights[(p * width + j) * depth + k]
                }
            }
        }
        self.bias = .allocate(capacity: panelCount * width)
        self.bias.initialize(repeating: 0, count: panelCount * width)
        self.bias.update(from: bias, count: outputs)
        liveFraction = Double(live.count) / Double(panelCount * depth)
        sameLiveRun = .allocate(capacity: panelCount)
        for p in stride(from: panelCount - 1, through: 0, by: -1) {
            let here = live[panelStart[p]..<panelStart[p + 1]]
            let next = p + 1 < panelCount ? live[panelStart[p + 1]..<panelStart[p + 2]] : nil
            sameLiveRun[p] = next.map { $0.elementsEqual(here) } == true ? sameLiveRun[p + 1] + 1 : 1
        }
        if let w = window, w.kernelHeight * w.kernelWidth * inChannels == depth,
           w.inputHeight * w.inputWidth * inChannels < Int(Int32.max) {
            let offsets = UnsafeMutablePointer<Int32>.allocate(capacity: max(live.count, 1))
            offsets.initialize(repeating: 0, count: max(live.count, 1))
            for (e, k) in live.enumerated() {
                let k = Int(k), c = k % inChannels, kx = (k / inChannels) % w.kernelWidth, ky = k / (inChannels * w.kernelWidth)
                offsets[e] = Int32((ky * w.dilationHeight * w.inputWidth + kx * w.dilationWidth) * inChannels + c)
            }
            inputOffsets = offsets
        } else {
            inputOffsets = nil
        }
    }

    deinit {
        values.deallocate()
        indices.deallocate()
        panelStart.deallocate()
        bias.deallocate()
        sameLiveRun.deallocate()
        inputOffsets?.deallocate()
    }
}

/// `C[m, n] = clamp(bias[n] + Σ_k A[m, k] · B[n, k])` on a ``PackedGEMMWeights``, with the bias
/// add and the activation clamp done in registers. The hand-written alternative to `cblas_sgemm`
/// for the convolutions (`blaze-bench kernels` compares the two on the Blaze shapes).
public enum PackedGEMM {
    /// Rows `rows` of `A` (row `m` at `a + m·lda`) into rows `rows` of `C` (row `m` at `c + m·ldc`), for the
    /// output columns of `panels` (panel `p` is columns `p·tile.columns ..< (p+1)·tile.columns`; nil: all of them).
    /// Each output element is computed the same way whichever rows and panels a call covers.
    ///
    /// With `imageOffsets`, element `k` of row `m` is read at `a + m·lda + offset(k)` (the weights'
    /// input offsets; `a` then points at the first tap of row 0's window, `lda` = stride·C).
    public static func run(a: UnsafePointer<Float>, lda: Int, rows: Range<Int>, weights: PackedGEMMWeights,
                           c: UnsafeMutablePointer<Float>, ldc: Int, clamp: ClampBounds, imageOffsets: Bool = false,
                           panels: Range<Int>? = nil) {
        precondition(!imageOffsets || weights.inputOffsets != nil, "weights packed without a window")
        let panels = panels ?? 0..<weights.panelCount
        precondition(panels.lowerBound >= 0 && panels.upperBound <= weights.panelCount, "panels out of range")
        let tile = weights.tile
        let tileRows = tile.rows, width = tile.columns
        // A block of rows is reused from L1 across every panel. The AVX-512 tile keeps 8 tiles: not yet measured there.
        let block = tile == .fma6x16 ? blockRows(tileRows: tileRows, depth: weights.depth) : tileRows * 8
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 2) { b in
            b[0] = clamp.min
            b[1] = clamp.max
            let bounds = UnsafePointer(b.baseAddress!)
            var start = rows.lowerBound
            while start < rows.upperBound {
                let end = min(rows.upperBound, start + block)
                // A single row left over by the AVX2 tile goes against four panels at once (GEMMTile6x16.runRow):
                // paired on Zen 3, face_landmark 0.978–0.988 (its 3×3 convolution to one pixel), hand_landmark_full
                // 0.995. Two to five leftover rows stay in the tile, which reads the weights once for all of them:
                // one row at a time measured 1.007–1.009 on pose_landmark_full and palm_detection_full.
                let byRow = tile == .fma6x16 && (end - start) % tileRows == 1
                let tiled = byRow ? end - 1 : end
                for p in panels {
                    let first = weights.panelStart[p], live = weights.panelStart[p + 1] - first
                    let panel = weights.values + first * width
                    let idx = (imageOffsets ? weights.inputOffsets! : weights.indices) + first
                    let bias = weights.bias + p * width
                    let columns = min(width, weights.outputs - p * width)
                    var r = start
                    while r < tiled {
                        var n = min(tileRows, tiled - r)
                        let ar = a + r * lda, cr = c + r * ldc + p * width
                        switch tile {
                        case .avx512x8x32 where n < tileRows && n <= (columns <= 16 ? 2 : 6):
                            // A leftover of a few rows: two at a time (4 cycles a step on Zen 4, where the tile
                            // takes 16 for eight rows, or 8 for its left half), the same bits.
                            var q = 0
                            while q < n {
                                let pair = min(2, n - q)
                                if columns <= 16 {
                                    GEMMTile8x32.runPairHalf(a: ar + q * lda, lda: lda, rows: pair, panel: panel, indices: idx, depth: live,
                                                             bias: bias, c: cr + q * ldc, ldc: ldc, columns: columns, bounds: bounds)
                                } else {
                                    GEMMTile8x32.runPair(a: ar + q * lda, lda: lda, rows: pair, panel: panel, indices: idx, depth: live,
                                                         bias: bias, c: cr + q * ldc, ldc: ldc, columns: columns, bounds: bounds)
                                }
                                q += pair
                            }
                        case .avx512x8x32 where columns <= 8:
                            GEMMTile8x32.runQuarter(a: ar, lda: lda, rows: n, panel: panel, indices: idx, depth: live, bias: bias,
                                                    c: cr, ldc: ldc, columns: columns, bounds: bounds)
                        case .avx512x8x32 where columns <= 16:
                            GEMMTile8x32.runHalf(a: ar, lda: lda, rows: n, panel: panel, indices: idx, depth: live, bias: bias,
                                                 c: cr, ldc: ldc, columns: columns, bounds: bounds)
                        case .avx512x8x32 where columns <= 24:
                            GEMMTile8x32.runThreeQuarters(a: ar, lda: lda, rows: n, panel: panel, indices: idx, depth: live,
                                                          bias: bias, c: cr, ldc: ldc, columns: columns, bounds: bounds)
                        case .avx512x8x32:
                            GEMMTile8x32.run(a: ar, lda: lda, rows: n, panel: panel, indices: idx, depth: live, bias: bias,
                                             c: cr, ldc: ldc, columns: columns, bounds: bounds)
                        case .fma6x16 where columns == width && tiled - r >= tileRows:
                            // Every whole tile of the block in one call, stored from registers (GEMMTile6x16.runTiles):
                            // paired on Zen 3 against a call a tile, hand_landmark_lite 0.913–0.918 at 1 thread and 0.846
                            // at 2, hand_landmark_full 0.926–0.932, palm_detection_full 0.935–0.954, pose_landmark_lite
                            // 0.938–0.943; the stores from registers alone measured 0.95–0.97 of the stack tile's.
                            let count = (tiled - r) / tileRows
                            GEMMTile6x16.runTiles(a: ar, lda: lda, tiles: count, panel: panel, indices: idx, depth: live, bias: bias,
                                                  c: cr, ldc: ldc, bounds: bounds)
                            n = count * tileRows
                        case .fma6x16 where columns == 8 && tiled - r >= 2 * tileRows:
                            // The same for twelve-row left halves of 8 columns (runHalfTiles): against runHalfPair with its
                            // stack tile, pose_landmark_lite 0.955–0.963 at 1 thread and 0.944 at 2, pose_landmark_full
                            // 0.967–0.975.
                            let count = (tiled - r) / (2 * tileRows)
                            GEMMTile6x16.runHalfTiles(a: ar, lda: lda, tiles: count, panel: panel, indices: idx, depth: live, bias: bias,
                                                      c: cr, ldc: ldc, bounds: bounds)
                            n = count * 2 * tileRows
                        case .fma6x16 where columns < 8 && tiled - r >= 2 * tileRows:
                            // Twelve rows at once for a panel of 1–7 live columns (GEMMTile6x16.runHalfPair, which took
                            // 8-column panels too before runHalfTiles): paired on Zen 3 against six rows, pose_landmark_lite
                            // 0.977–0.984 at 1 thread and 0.970 at 2, pose_landmark_full 0.990–0.995.
                            GEMMTile6x16.runHalfPair(a: ar, lda: lda, panel: panel, indices: idx, depth: live, bias: bias,
                                                     c: cr, ldc: ldc, columns: columns, bounds: bounds)
                            n = 2 * tileRows
                        case .fma6x16 where columns <= 8:
                            GEMMTile6x16.runHalf(a: ar, lda: lda, rows: n, panel: panel, indices: idx, depth: live, bias: bias,
                                                 c: cr, ldc: ldc, columns: columns, bounds: bounds)
                        case .fma6x16:
                            GEMMTile6x16.run(a: ar, lda: lda, rows: n, panel: panel, indices: idx, depth: live, bias: bias,
                                             c: cr, ldc: ldc, columns: columns, bounds: bounds)
                        }
                        r += n
                    }
                }
                if byRow {
                    var p = panels.lowerBound
                    while p < panels.upperBound {
                        let group = min(4, weights.sameLiveRun[p], panels.upperBound - p)
                        let first = weights.panelStart[p], live = weights.panelStart[p + 1] - first
                        let idx = (imageOffsets ? weights.inputOffsets! : weights.indices) + first
                        GEMMTile6x16.runRow(a: a + tiled * lda, panel: weights.values + first * width, panelStride: live * width,
                                            panels: group, indices: idx, depth: live, bias: weights.bias + p * width,
                                            c: c + tiled * ldc + p * width, columns: min(group * width, weights.outputs - p * width),
                                            bounds: bounds)
                        p += group
                    }
                }
                start = end
            }
        }
    }

    /// The rows of `a` that one pass over the panels takes (AVX2 tile): as many as fit 16 KB of L1 (a multiple of twelve, so
    /// that whole tiles and twelve-row half tiles fill it), at least 8 tiles and at most 40. Fewer, longer calls of
    /// the tile loops at a small depth: paired on Zen 3 against 8 tiles, hand_landmark_lite 0.973–0.991 at 1 thread,
    /// pose_landmark_lite 0.974–0.985, palm_detection_full 0.985–1.000, face_detection_short_range 0.965–0.993.
    static func blockRows(tileRows: Int, depth: Int) -> Int {
        let fit = 16384 / (4 * max(1, depth)) / (2 * tileRows) * (2 * tileRows)
        return max(tileRows * 8, min(tileRows * 40, fit))
    }
}
