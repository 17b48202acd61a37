import CBLAS

/// Dense 2-D convolution on NHWC activations with OHWI weights:
/// `out[y,x,o] = clamp(bias[o] + Σ_{ky,kx,i} in[y·sh−pt+ky·dh, x·sw−pl+kx·dw, i] · w[o,ky,kx,i])`,
/// taps outside the input reading zero.
///
/// Every variant computes the output pixels `pixels` (flattened `y·outW + x`) so that callers can
/// split work across threads by pixel ranges.
///
/// ### See Also
/// - ``Conv2DKernel/reference(input:weights:bias:output:window:inChannels:outChannels:clamp:)``
public enum Conv2DKernel {
    /// 1×1, stride 1, unpadded: one row-major `cblas_sgemm`, `M` = pixels, `N` = outChannels,
    /// `K` = inChannels, with the OHWI weights (`[N, K]`) as `Bᵀ`.
    /// - Complexity: `2·M·N·K` flops.
    public static func gemm1x1(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                               output: UnsafeMutablePointer<Float>, pixels: Range<Int>,
                               inChannels: Int, outChannels: Int, clamp: ClampBounds) {
        // Blocks of about 64 KiB of output, so the bias fill, the GEMM and the clamp all touch
        // the block while it is in L2 instead of making three passes over memory.
        let block = max(16, 16_384 / max(outChannels, 1))
        var start = pixels.lowerBound
        while start < pixels.upperBound {
            let end = min(pixels.upperBound, start + block)
            let out = output + start * outChannels
            Epilogue.fillRows(out, rows: end - start, with: bias, channels: outChannels)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans,
                        Int32(end - start), Int32(outChannels), Int32(inChannels),
                        1, input + start * inChannels, Int32(inChannels),
                        weights, Int32(inChannels),
                        1, out, Int32(outChannels))
            if clamp != .none { Epilogue.clamp(out, count: (end - start) * outChannels, clamp) }
            start = end
        }
    }

    /// Direct convolution for few output channels (where a GEMM with `N` = 1…4 wastes its tiles
    /// and im2col's copy dominates): each output value is a SIMD dot product over the receptive
    /// field, eight input channels at a time. Output pixels `pixels`.
    public static func directFewOutputs(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                        output: UnsafeMutablePointer<Float>, window w: SpatialWindow,
                                        inChannels cin: Int, outChannels cout: Int, clamp: ClampBounds, pixels: Range<Int>) {
        let inRaw = UnsafeRawPointer(input), wRaw = UnsafeRawPointer(weights)
        let c8 = cin & ~7
        for p in pixels {
            let y = p / w.outputWidth, x = p % w.outputWidth
            let kRows = w.kernelRows(forOutputRow: y)
            let ix0 = x &* w.strideWidth &- w.padLeft
            for o in 0..<cout {
                var acc = SIMD8<Float>()
                var tail: Float = 0
                for ky in kRows {
                    let iy = y &* w.strideHeight &- w.padTop &+ ky &* w.dilationHeight
                    for kx in 0..<w.kernelWidth {
                        let ix = ix0 &+ kx &* w.dilationWidth
                        guard ix >= 0, ix < w.inputWidth else { continue }
                        let ib = (iy &* w.inputWidth &+ ix) &* cin
                        let wb = ((o &* w.kernelHeight &+ ky) &* w.kernelWidth &+ kx) &* cin
                        var i = 0
                        while i < c8 {
                            acc += inRaw.loadUnaligned(fromByteOffset: (ib &+ i) &* 4, as: SIMD8<Float>.self)
                                * wRaw.loadUnaligned(fromByteOffset: (wb &+ i) &* 4, as: SIMD8<Float>.self)
                            i &+= 8
                        }
                        while i < cin {
                            tail += input[ib &+ i] * weights[wb &+ i]
                            i &+= 1
                        }
                    }
                }
                output[p &* cout &+ o] = clamp.apply(bias[o] + acc.sum() + tail)
            }
        }
    }

    /// How many floats of workspace ``im2colGEMM(input:weights:bias:output:window:inChannels:outChannels:clamp:pixels:workspace:)``
    /// needs to process `pixelBlock` pixels at a time.
    public static func im2colWorkspaceFloats(window: SpatialWindow, inChannels: Int, pixelBlock: Int) -> Int {
        pixelBlock * window.kernelHeight * window.kernelWidth * inChannels
    }

    /// The number of pixels processed per GEMM call by the im2col path for a workspace budget.
    public static func im2colPixelBlock(window: SpatialWindow, inChannels: Int, budgetFloats: Int = 1 << 17) -> Int {
        let k = window.kernelHeight * window.kernelWidth * inChannels
        return max(1, min(window.outputHeight * window.outputWidth, budgetFloats / max(k, 1)))
    }

    /// General convolution: gathers each output pixel's receptive field into a row of the
    /// workspace (im2col, zeros for padding), then one `cblas_sgemm` per block of pixels.
    /// `workspace` must hold ``im2colWorkspaceFloats(window:inChannels:pixelBlock:)`` floats for
    /// `pixelBlock` = ``im2colPixelBlock(window:inChannels:budgetFloats:)``.
    public static func im2colGEMM(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                  output: UnsafeMutablePointer<Float>, window: SpatialWindow,
                                  inChannels: Int, outChannels: Int, clamp: ClampBounds,
                                  pixels: Range<Int>, pixelBlock: Int, workspace: UnsafeMutablePointer<Float>) {
        let k = window.kernelHeight * window.kernelWidth * inChannels
        var start = pixels.lowerBound
        while start < pixels.upperBound {
            let end = min(pixels.upperBound, start + pixelBlock)
            gatherReceptiveFields(input: input, window: window, inChannels: inChannels, pixels: start..<end, into: workspace)
            let out = output + start * outChannels
            Epilogue.fillRows(out, rows: end - start, with: bias, channels: outChannels)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans,
                        Int32(end - start), Int32(outChannels), Int32(k),
                        1, workspace, Int32(k), weights, Int32(k),
                        1, out, Int32(outChannels))
            if clamp != .none { Epilogue.clamp(out, count: (end - start) * outChannels, clamp) }
            start = end
        }
    }

    /// 1×1, stride 1, unpadded through the hand-written ``PackedGEMM`` (bias and clamp in registers).
    public static func packed1x1(input: UnsafePointer<Float>, weights: PackedGEMMWeights, output: UnsafeMutablePointer<Float>,
                                 pixels: Range<Int>, clamp: ClampBounds, panels: Range<Int>? = nil) {
        PackedGEMM.run(a: input, lda: weights.depth, rows: pixels, weights: weights, c: output, ldc: weights.outputs,
                       clamp: clamp, panels: panels)
    }

    /// General convolution through ``PackedGEMM``; same workspace contract as
    /// ``im2colGEMM(input:weights:bias:output:window:inChannels:outChannels:clamp:pixels:pixelBlock:workspace:)``.
    /// Whole GEMM tiles of pixels whose window lies inside the image are read in place through the weights'
    /// input offsets (packed with this `window`); the others go through an im2col copy, runs of them that cross
    /// output rows in one. Either way each output is the same chain, so the bits are the same. With `panels`, only those
    /// weight panels' output columns are computed (``PackedGEMM/run(a:lda:rows:weights:c:ldc:clamp:imageOffsets:panels:)``).
    public static func im2colPacked(input: UnsafePointer<Float>, weights: PackedGEMMWeights, output: UnsafeMutablePointer<Float>,
                                    window: SpatialWindow, inChannels: Int, clamp: ClampBounds,
                                    pixels: Range<Int>, pixelBlock: Int, workspace: UnsafeMutablePointer<Float>,
                                    panels: Range<Int>? = nil) {
        let k = window.kernelHeight * window.kernelWidth * inChannels
        let ow = window.outputWidth
        let interior = window.interiorColumns
        func copied(_ range: Range<Int>) {
            var start = range.lowerBound
            while start < range.upperBound {
                let end = min(range.upperBound, start + pixelBlock)
                gatherReceptiveFields(input: input, window: window, inChannels: inChannels, pixels: start..<end, into: workspace)
                PackedGEMM.run(a: workspace, lda: k, rows: 0..<(end - start), weights: weights,
                               c: output + start * weights.outputs, ldc: weights.outputs, clamp: clamp, panels: panels)
                start = end
            }
        }
        guard weights.inputOffsets != nil, !interior.isEmpty else { return copied(pixels) }
        // In place, each output row's interior reads whole GEMM tiles only; the pixels past them, the borders and
        // the rows whose window leaves the image are copied, and copied pixels wait in `pending` while they run on, so
        // that a row's last few pixels and the next row's left border go through one gather and one GEMM. Paired on
        // Zen 3 against every interior pixel in place and each border copied alone: face_detection_short_range
        // 0.974–0.993 at 1 thread and 0.980–1.003 at 2 (its 5 × 5, 3 → 24 first layer), the rest 0.996–1.007.
        var pending = pixels.lowerBound..<pixels.lowerBound
        func copy(_ range: Range<Int>) {
            guard !range.isEmpty else { return }
            if pending.upperBound == range.lowerBound {
                pending = pending.lowerBound..<range.upperBound
            } else {
                copied(pending)
                pending = range
            }
        }
        let tileRows = weights.tile.rows
        var p = pixels.lowerBound
        while p < pixels.upperBound {
            let y = p / ow
            let rowEnd = min(pixels.upperBound, (y + 1) * ow)
            let x0 = p - y * ow, x1 = rowEnd - y * ow
            let inside = max(x0, interior.lowerBound)..<min(x1, interior.upperBound)
            let direct = inside.lowerBound..<(inside.lowerBound + inside.count / tileRows * tileRows)
            guard window.kernelRows(forOutputRow: y) == 0..<window.kernelHeight, !direct.isEmpty else {
                copy(p..<rowEnd)
                p = rowEnd
                continue
            }
            copy(p..<(y * ow + direct.lowerBound))
            // `a` at the first tap of pixel (y, direct.lowerBound); successive pixels are stride·C apart.
            let iy = y * window.strideHeight - window.padTop
            let ix = direct.lowerBound * window.strideWidth - window.padLeft
            PackedGEMM.run(a: input + (iy * window.inputWidth + ix) * inChannels, lda: window.strideWidth * inChannels,
                           rows: 0..<direct.count, weights: weights, c: output + (y * ow + direct.lowerBound) * weights.outputs,
                           ldc: weights.outputs, clamp: clamp, imageOffsets: true, panels: panels)
            copy((y * ow + direct.upperBound)..<rowEnd)
            p = rowEnd
        }
        copied(pending)
    }

    /// im2col: each pixel's receptive field (`KH·KW·C` floats, zeros for padding) as one row of `rows`.
    static func gatherReceptiveFields(input: UnsafePointer<Float>, window: SpatialWindow, inChannels: Int,
                                      pixels: Range<Int>, into rows: UnsafeMutablePointer<Float>) {
        let kh = window.kernelHeight, kw = window.kernelWidth
        let k = kh * kw * inChannels
        for p in pixels {
            let y = p / window.outputWidth, x = p % window.outputWidth
            let row = rows + (p - pixels.lowerBound) * k
            let ix0 = x * window.strideWidth - window.padLeft
            let wholeRows = window.dilationWidth == 1 && ix0 >= 0 && ix0 + kw <= window.inputWidth
            for ky in 0..<kh {
                let iy = y * window.strideHeight - window.padTop + ky * window.dilationHeight
                if wholeRows {
                    // The kernel row's taps are adjacent in the input: one copy, or zeros where the row is padding.
                    let dst = row + ky * kw * inChannels
                    if iy >= 0, iy < window.inputHeight {
                        dst.update(from: input + (iy * window.inputWidth + ix0) * inChannels, count: kw * inChannels)
                    } else {
                        dst.update(repeating: 0, count: kw * inChannels)
                    }
                    continue
                }
                for kx in 0..<kw {
                    let ix = x * window.strideWidth - window.padLeft + kx * window.dilationWidth
                    let dst = row + (ky * kw + kx) * inChannels
                    if iy >= 0, iy < window.inputHeight, ix >= 0, ix < window.inputWidth {
                        dst.update(from: input + (iy * window.inputWidth + ix) * inChannels, count: inChannels)
                    } else {
                        dst.update(repeating: 0, count: inChannels)
                    }
                }
            }
        }
    }

    /// The plain twin: six nested loops, the test oracle for every conv variant.
    public static func reference(input: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
                                 output: UnsafeMutablePointer<Float>, window: SpatialWindow,
                                 inChannels: Int, outChannels: Int, clamp: ClampBounds) {
        window.forEachOutput(channels: outChannels) { pixel, taps, o in
            var acc = Double(bias[o])
            for tap in taps {
                for i in 0..<inChannels {
                    acc += Double(input[tap.input * inChannels + i]) * Double(weights[(o * window.tapCount + tap.kernel) * inChannels + i])
                }
            }
            output[pixel * outChannels + o] = clamp.apply(Float(acc))
        }
    }
}

/// Row-wise epilogues shared by the GEMM-based kernels.
public enum Epilogue {
    /// Writes `values[0..<channels]` into each of `rows` rows of `channels` floats.
    @inline(__always)
    public static func fillRows(_ out: UnsafeMutablePointer<Float>, rows: Int, with values: UnsafePointer<Float>, channels: Int) {
        for r in 0..<rows { (out + r * channels).update(from: values, count: channels) }
    }

    /// Clamps `count` floats in place.
    public static func clamp(_ p: UnsafeMutablePointer<Float>, count: Int, _ bounds: ClampBounds) {
        let raw = UnsafeMutableRawPointer(p)
        var i = 0
        let lo = SIMD8<Float>(repeating: bounds.min), hi = SIMD8<Float>(repeating: bounds.max)
        while i + 8 <= count {
            let v = raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            raw.storeBytes(of: clampLanes(v, lo, hi), toByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        while i < count {
            p[i] = bounds.apply(p[i])
            i += 1
        }
    }
}
