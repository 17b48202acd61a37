// The standard library's `clamped(lowerBound:upperBound:)` and `pointwiseMin/Max` on SIMD8<Float>
// compile to per-lane scalar code with NaN handling (measured: one call per vector in the
// depthwise kernel). Compare-and-replace compiles to `cmpltps` + blend, so kernels use these.

@inline(__always)
func clampLanes(_ v: SIMD8<Float>, _ lo: SIMD8<Float>, _ hi: SIMD8<Float>) -> SIMD8<Float> {
    let r = v.replacing(with: lo, where: v .< lo)
    return r.replacing(with: hi, where: r .> hi)
}

/// ``clampLanes(_:_:_:)`` on two vectors at once, as one 16-float row.
@inline(__always)
func clampRow(_ l: SIMD8<Float>, _ h: SIMD8<Float>, _ lo: SIMD16<Float>, _ hi: SIMD16<Float>) -> SIMD16<Float> {
    let v = SIMD16(lowHalf: l, highHalf: h)
    let r = v.replacing(with: lo, where: v .< lo)
    return r.replacing(with: hi, where: r .> hi)
}

/// TFLite PRELU on one vector: `v < 0 ? v·alpha : v` (NaN and −0 stay as they are). The PReLU step and the
/// convolution epilogue's one pass both use it, so they compute the same bits.
@inline(__always)
func preluLanes(_ v: SIMD8<Float>, _ alpha: SIMD8<Float>) -> SIMD8<Float> {
    v.replacing(with: v * alpha, where: v .< SIMD8<Float>(repeating: 0))
}

/// TFLite RELU on one vector: `v <= 0 ? +0 : v` (NaN stays NaN, −0 becomes +0); shared as ``preluLanes(_:_:)`` is.
@inline(__always)
func reluLanes(_ v: SIMD8<Float>) -> SIMD8<Float> {
    let zero = SIMD8<Float>(repeating: 0)
    return v.replacing(with: zero, where: v .<= zero)
}

/// ``clampLanes(_:_:_:)`` on one value, with the same answers (`-0` stays `-0` at a bound of 0).
@inline(__always)
func clampLane(_ v: Float, _ lo: Float, _ hi: Float) -> Float {
    let r = v < lo ? lo : v
    return r > hi ? hi : r
}

@inline(__always)
func maxLanes(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    a.replacing(with: b, where: b .> a)
}

/// `acc + a·b`, fused (one rounding, one `vfmadd`) in builds with FMA codegen, as XNNPACK's kernels
/// compute it; two roundings otherwise, where a fused call would be a slow library routine.
@inline(__always)
func mulAdd(_ acc: SIMD8<Float>, _ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    #if BLAZEKIT_FMA
    return acc.addingProduct(a, b)
    #else
    return acc + a * b
    #endif
}

@inline(__always)
func mulAdd(_ acc: Float, _ a: Float, _ b: Float) -> Float {
    #if BLAZEKIT_FMA
    return acc.addingProduct(a, b)
    #else
    return acc + a * b
    #endif
}
