/// What a convolution does to its freshly written outputs in place of the separate `add`, `prelu` and `relu`
/// nodes that follow it in the graph (the residual blocks of every Blaze model; palm detection adds a PReLU
/// after most of them, face detection a ReLU): `y = addClamp(y + residual)`, then `y = y < 0 ? alpha[c]·y : y`,
/// then `y = y <= 0 ? 0 : y`.
///
/// The residual may have fewer channels than the output (`residualChannels`), as when the graph zero-pads
/// the shortcut's channels before the add (face detection's 24 → 28 blocks): the channels past it add `+0`,
/// which is what adding the padded zeros computes.
///
/// Applied to a block of outputs right after the convolution kernel wrote it, while it is still in
/// cache, it saves the add, PReLU, ReLU and pad passes over memory and their thread handoffs. Each element
/// goes through the same float operations in the same order as ``ElementwiseKernel/add(_:_:_:range:clamp:)``,
/// ``ElementwiseKernel/prelu(_:alpha:_:pixels:channels:)`` and ``ElementwiseKernel/relu(_:_:range:)`` would
/// apply, so fusing changes no bit.
public struct ConvolutionEpilogue: @unchecked Sendable {
    /// Added element-wise; `residualChannels` a pixel. Nil: no add.
    public var residual: UnsafePointer<Float>?
    /// The add's own activation clamp.
    public var residualClamp: ClampBounds
    /// Channels a pixel of `residual`; the output's channels past it add zero. 0: as many as the output.
    public var residualChannels: Int
    /// PReLU slopes, one per output channel. Nil: no PReLU.
    public var preluAlpha: UnsafePointer<Float>?
    /// A ReLU last.
    public var relu: Bool

    /// An epilogue adding `residual` (nil: none; `residualChannels` a pixel, 0 for the output's count) with the
    /// add's `residualClamp`, then applying PReLU with `preluAlpha` (nil: none), then ReLU if `relu`.
    public init(residual: UnsafePointer<Float>?, residualClamp: ClampBounds = .none, residualChannels: Int = 0,
                preluAlpha: UnsafePointer<Float>?, relu: Bool = false) {
        self.residual = residual
        self.residualClamp = residualClamp
        self.residualChannels = residualChannels
        self.preluAlpha = preluAlpha
        self.relu = relu
    }

    /// Applies the epilogue to `out[p·stride + c]` for `p` in `pixels`, `c` in `channels`, a block which the convolution
    /// has just written and which is still in cache. Whole rows of whole vectors with an add and an activation take all
    /// of them in one pass (each vector loaded and stored once); otherwise the add, the PReLU and the ReLU are each one
    /// pass of the separate nodes' own kernels (over the whole block where it is whole rows, else a pass a pixel). Both
    /// use the separate nodes' arithmetic, so the bits are theirs.
    public func apply(_ out: UnsafeMutablePointer<Float>, pixels: Range<Int>, channels: Range<Int>, stride: Int) {
        guard !pixels.isEmpty, !channels.isEmpty else { return }
        let whole = channels.count == stride
        let flat = (pixels.lowerBound * stride)..<(pixels.upperBound * stride)
        if let residual, whole, residualChannels == 0 || residualChannels == stride, stride % 8 == 0, preluAlpha != nil || relu {
            // An add and an activation after it, on whole vectors: one pass (paired on Zen 3 against a pass each,
            // face_landmark 0.939–0.951 at 1 thread and 0.929 at 2, palm_detection_lite 0.952–0.967 at 1, palm_detection_full
            // 0.970 at 1 and 0.955 at 2, hand_recrop 0.90–0.92 at 2). A residual with fewer channels, or channels past whole
            // vectors, keep the passes: fused, face_detection_short_range's 28-channel blocks measured 1.13–1.20.
            switch (preluAlpha, relu) {
            case (let alpha?, false): addThen(PReLUStep(alpha: UnsafeRawPointer(alpha)), out, residual, pixels: pixels, stride: stride)
            case (nil, true): addThen(ReLUStep(), out, residual, pixels: pixels, stride: stride)
            case (let alpha?, true):
                addThen(PReLUThenReLUStep(prelu: PReLUStep(alpha: UnsafeRawPointer(alpha))), out, residual, pixels: pixels, stride: stride)
            case (nil, false): break
            }
            return
        }
        if let residual {
            let rc = residualChannels == 0 ? stride : residualChannels
            if whole && rc == stride {
                ElementwiseKernel.add(out, residual, out, range: flat, clamp: residualClamp)
            } else {
                addRows(out, residual, pixels: pixels, channels: channels, stride: stride, residualChannels: rc)
            }
        }
        if let preluAlpha {
            if whole {
                let o = out + flat.lowerBound
                ElementwiseKernel.prelu(o, alpha: preluAlpha, o, pixels: 0..<pixels.count, channels: stride)
            } else {
                for p in pixels {
                    let o = out + p * stride + channels.lowerBound
                    ElementwiseKernel.prelu(o, alpha: preluAlpha + channels.lowerBound, o, pixels: 0..<1, channels: channels.count)
                }
            }
        }
        if relu {
            if whole {
                ElementwiseKernel.relu(out, out, range: flat)
            } else {
                for p in pixels { ElementwiseKernel.relu(out, out, range: (p * stride + channels.lowerBound)..<(p * stride + channels.upperBound)) }
            }
        }
    }

    /// `channels` of each pixel's row of `stride` plus a residual of `rc` channels a pixel, zero past it (the graph's
    /// channel pad: `x + 0`, as the add of the padded value computes it): the residual's whole vectors, then the rest
    /// one at a time, with ``ElementwiseKernel/add(_:_:_:range:clamp:)``'s arithmetic.
    private func addRows(_ out: UnsafeMutablePointer<Float>, _ residual: UnsafePointer<Float>, pixels: Range<Int>,
                         channels: Range<Int>, stride: Int, residualChannels rc: Int) {
        let or = UnsafeMutableRawPointer(out), rr = UnsafeRawPointer(residual)
        let clamped = residualClamp != .none
        let lo = SIMD8<Float>(repeating: residualClamp.min), hi = SIMD8<Float>(repeating: residualClamp.max)
        let withResidual = Swift.max(0, Swift.min(channels.upperBound, rc) - channels.lowerBound)
        let vectorEnd = channels.lowerBound + (withResidual & ~7)
        for p in pixels {
            let o = p &* stride &* 4, r = p &* rc &* 4
            var c = channels.lowerBound
            while c < vectorEnd {
                let v = or.loadUnaligned(fromByteOffset: o &+ c &* 4, as: SIMD8<Float>.self)
                    + rr.loadUnaligned(fromByteOffset: r &+ c &* 4, as: SIMD8<Float>.self)
                or.storeBytes(of: clamped ? clampLanes(v, lo, hi) : v, toByteOffset: o &+ c &* 4, as: SIMD8<Float>.self)
                c &+= 8
            }
            while c < channels.upperBound {
                let x = or.load(fromByteOffset: o &+ c &* 4, as: Float.self)
                let v = c < rc ? x + rr.load(fromByteOffset: r &+ c &* 4, as: Float.self) : x + 0
                or.storeBytes(of: clamped ? clampLane(v, residualClamp.min, residualClamp.max) : v, toByteOffset: o &+ c &* 4, as: Float.self)
                c &+= 1
            }
        }
    }

    /// Whole pixel rows of `stride` outputs (a multiple of 8) plus a residual of as many, then `step`, in one pass over
    /// the block: each vector of outputs loaded and stored once, with the separate nodes' vector arithmetic.
    private func addThen<S: EpilogueStep>(_ step: S, _ out: UnsafeMutablePointer<Float>, _ residual: UnsafePointer<Float>,
                                          pixels: Range<Int>, stride: Int) {
        let or = UnsafeMutableRawPointer(out), rr = UnsafeRawPointer(residual)
        let clamped = residualClamp != .none
        let lo = SIMD8<Float>(repeating: residualClamp.min), hi = SIMD8<Float>(repeating: residualClamp.max)
        for p in pixels {
            let o = p &* stride &* 4
            var c = 0
            while c < stride {
                var v = or.loadUnaligned(fromByteOffset: o &+ c &* 4, as: SIMD8<Float>.self)
                    + rr.loadUnaligned(fromByteOffset: o &+ c &* 4, as: SIMD8<Float>.self)
                if clamped { v = clampLanes(v, lo, hi) }
                or.storeBytes(of: step(v, channel: c), toByteOffset: o &+ c &* 4, as: SIMD8<Float>.self)
                c &+= 8
            }
        }
    }

    /// The plain twin of ``apply(_:pixels:channels:stride:)``, the test oracle.
    public func applyReference(_ out: UnsafeMutablePointer<Float>, pixels: Range<Int>, channels: Range<Int>, stride: Int) {
        let rc = residualChannels == 0 ? stride : residualChannels
        for p in pixels {
            for c in channels {
                out[p * stride + c] = element(out[p * stride + c], residualAt: p * rc + c, channel: c, residualChannels: rc)
            }
        }
    }

    @inline(__always)
    private func element(_ x: Float, residualAt i: Int, channel c: Int, residualChannels rc: Int) -> Float {
        var v = x
        if let residual {
            v = v + (c < rc ? residual[i] : 0)
            if residualClamp != .none { v = clampLane(v, residualClamp.min, residualClamp.max) }
        }
        if let preluAlpha, v < 0 { v = preluAlpha[c] * v }
        if relu, v <= 0 { v = 0 }
        return v
    }
}

/// The activation after a fused add, on one vector of eight channels from `channel` on: the separate node's vector
/// arithmetic (``preluLanes(_:_:)``, ``reluLanes(_:)``).
private protocol EpilogueStep {
    func callAsFunction(_ v: SIMD8<Float>, channel: Int) -> SIMD8<Float>
}

private struct PReLUStep: EpilogueStep {
    let alpha: UnsafeRawPointer
    @inline(__always) func callAsFunction(_ v: SIMD8<Float>, channel c: Int) -> SIMD8<Float> {
        preluLanes(v, alpha.loadUnaligned(fromByteOffset: c &* 4, as: SIMD8<Float>.self))
    }
}

private struct ReLUStep: EpilogueStep {
    @inline(__always) func callAsFunction(_ v: SIMD8<Float>, channel c: Int) -> SIMD8<Float> { reluLanes(v) }
}

/// PReLU, then ReLU: the runtime's fusion absorbs one activation, but an epilogue made by hand may have both.
private struct PReLUThenReLUStep: EpilogueStep {
    let prelu: PReLUStep
    @inline(__always) func callAsFunction(_ v: SIMD8<Float>, channel c: Int) -> SIMD8<Float> {
        reluLanes(prelu(v, channel: c))
    }
}
