/// ReLU and multiplication over flat float ranges (callers split `range` across threads), each with
/// its plain twin.
extension ElementwiseKernel {
    /// `out[i] = max(x[i], 0)` for `i` in `range` (TFLite RELU: NaN stays NaN, `-0` becomes `+0`).
    public static func relu(_ x: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, range: Range<Int>) {
        let xr = UnsafeRawPointer(x), or = UnsafeMutableRawPointer(out)
        var i = range.lowerBound
        while i + 8 <= range.upperBound {
            let v = xr.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            or.storeBytes(of: reluLanes(v), toByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        while i < range.upperBound {
            out[i] = x[i] <= 0 ? 0 : x[i]
            i += 1
        }
    }

    /// The plain twin of ``relu(_:_:range:)`` over `0..<count`, the test oracle.
    public static func reluReference(_ x: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { out[i] = x[i] > 0 || x[i].isNaN ? x[i] : 0 }
    }

    /// `out[i] = clamp(a[i] · b[scalar ? 0 : i])` for `i` in `range`: a same-shape product, or `b` a
    /// single value broadcast over all of `a`.
    public static func mul(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, scalar: Bool, _ out: UnsafeMutablePointer<Float>,
                           range: Range<Int>, clamp: ClampBounds) {
        let ar = UnsafeRawPointer(a), br = UnsafeRawPointer(b), or = UnsafeMutableRawPointer(out)
        let lo = SIMD8<Float>(repeating: clamp.min), hi = SIMD8<Float>(repeating: clamp.max)
        let s = SIMD8<Float>(repeating: b[0])
        var i = range.lowerBound
        while i + 8 <= range.upperBound {
            let y = scalar ? s : br.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            let v = ar.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self) * y
            or.storeBytes(of: clamp == .none ? v : clampLanes(v, lo, hi), toByteOffset: i * 4, as: SIMD8<Float>.self)
            i += 8
        }
        while i < range.upperBound {
            let v = a[i] * b[scalar ? 0 : i]
            out[i] = clamp == .none ? v : clampLane(v, clamp.min, clamp.max)
            i += 1
        }
    }

    /// The plain twin of ``mul(_:_:scalar:_:range:clamp:)`` over `0..<count`, the test oracle.
    public static func mulReference(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, scalar: Bool, _ out: UnsafeMutablePointer<Float>,
                                    count: Int, clamp: ClampBounds) {
        for i in 0..<count { out[i] = clamp.apply(a[i] * b[scalar ? 0 : i]) }
    }
}
