/// What a convolution does to its freshly written outputs in place of the separate `add` and `prelu`
/// nodes that follow it in the graph (the residual blocks of every Blaze model; palm detection adds
/// a PReLU after most of them): `y = addClamp(y + residual)`, then `y = y < 0 ? alpha[c]·y : y`.
///
/// Applied to a block of outputs right after the convolution kernel wrote it, while it is still in
/// cache, it saves the add and PReLU passes over memory and their thread handoffs. Each element
/// goes through the same float operations in the same order as ``ElementwiseKernel/add(_:_:_:range:clamp:)``
/// and ``ElementwiseKernel/prelu(_:alpha:_:pixels:channels:)`` would apply, so fusing changes no bit.
public struct ConvolutionEpilogue: @unchecked Sendable {
    /// Added element-wise; laid out like the output (`pixels × stride`). Nil: no add.
    public var residual: UnsafePointer<Float>?
    /// The add's own activation clamp.
    public var residualClamp: ClampBounds
    /// PReLU slopes, one per output channel. Nil: no PReLU.
    public var preluAlpha: UnsafePointer<Float>?

    /// An epilogue adding `residual` (nil: none) with the add's `residualClamp`, then applying PReLU with
    /// `preluAlpha` (nil: none).
    public init(residual: UnsafePointer<Float>?, residualClamp: ClampBounds = .none, preluAlpha: UnsafePointer<Float>?) {
        self.residual = residual
        self.residualClamp = residualClamp
        self.preluAlpha = preluAlpha
    }

    /// Applies the epilogue to `out[p·stride + c]` for `p` in `pixels`, `c` in `channels`.
    public func apply(_ out: UnsafeMutablePointer<Float>, pixels: Range<Int>, channels: Range<Int>, stride: Int) {
        let clamped = residualClamp != .none
        let lo = SIMD8<Float>(repeating: residualClamp.min), hi = SIMD8<Float>(repeating: residualClamp.max)
        let zero = SIMD8<Float>(repeating: 0)
        let or = UnsafeMutableRawPointer(out)
        let rr = residual.map(UnsafeRawPointer.init)
        let ar = preluAlpha.map(UnsafeRawPointer.init)
        if channels.count == stride, stride % 8 == 0, !pixels.isEmpty {
            // Whole rows of a channel count in whole vectors: one flat pass over the block, no per-pixel loop
            // (1×1 convolutions with eight outputs spent more time here than in their kernel).
            var c = 0
            for i in Swift.stride(from: pixels.lowerBound * stride, to: pixels.upperBound * stride, by: 8) {
                var v = or.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                if let rr {
                    v = v + rr.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                    if clamped { v = clampLanes(v, lo, hi) }
                }
                if let ar {
                    let a = ar.loadUnaligned(fromByteOffset: c * 4, as: SIMD8<Float>.self)
                    v = v.replacing(with: v * a, where: v .< zero)
                    c = c + 8 == stride ? 0 : c + 8
                }
                or.storeBytes(of: v, toByteOffset: i * 4, as: SIMD8<Float>.self)
            }
            return
        }
        let vectorEnd = channels.lowerBound + (channels.count & ~7)
        for p in pixels {
            let row = p * stride
            var c = channels.lowerBound
            while c < vectorEnd {
                var v = or.loadUnaligned(fromByteOffset: (row + c) * 4, as: SIMD8<Float>.self)
                if let rr {
                    v = v + rr.loadUnaligned(fromByteOffset: (row + c) * 4, as: SIMD8<Float>.self)
                    if clamped { v = clampLanes(v, lo, hi) }
                }
                if let ar {
                    let a = ar.loadUnaligned(fromByteOffset: c * 4, as: SIMD8<Float>.self)
                    v = v.replacing(with: v * a, where: v .< zero)
                }
                or.storeBytes(of: v, toByteOffset: (row + c) * 4, as: SIMD8<Float>.self)
                c += 8
            }
            while c < channels.upperBound {
                out[row + c] = element(out[row + c], at: row + c, channel: c)
                c += 1
            }
        }
    }

    /// The plain twin of ``apply(_:pixels:channels:stride:)``, the test oracle.
    public func applyReference(_ out: UnsafeMutablePointer<Float>, pixels: Range<Int>, channels: Range<Int>, stride: Int) {
        for p in pixels {
            for c in channels { out[p * stride + c] = element(out[p * stride + c], at: p * stride + c, channel: c) }
        }
    }

    @inline(__always)
    private func element(_ x: Float, at i: Int, channel c: Int) -> Float {
        var v = x
        if let residual {
            v = v + residual[i]
            if residualClamp != .none { v = clampLane(v, residualClamp.min, residualClamp.max) }
        }
        if let preluAlpha, v < 0 { v = preluAlpha[c] * v }
        return v
    }
}
