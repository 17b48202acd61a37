#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Element-wise kernels over flat float ranges (callers split `range` across threads).
///
/// ### See Also
/// - ``ElementwiseKernel/addReference(_:_:_:count:clamp:)`` and the other `…Reference` twins.
public enum ElementwiseKernel {
    /// `out[i] = clamp(a[i] + b[i])` for `i` in `range`.
    public static func add(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>,
                           range: Range<Int>, clamp: ClampBounds) {
        let ar = UnsafeRawPointer(a), br = UnsafeRawPointer(b), or = UnsafeMutableRawPointer(out)
        let lo = SIMD8<Float>(repeating: clamp.min), hi = SIMD8<Float>(repeating: clamp.max)
        var i = range.lowerBound
        if clamp == .none {
            while i + 8 <= range.upperBound {
                let v = ar.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                    + br.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                or.storeBytes(of: v, toByteOffset: i * 4, as: SIMD8<Float>.self)
                i += 8
            }
        } else {
            while i + 8 <= range.upperBound {
                let v = ar.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                    + br.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
                or.storeBytes(of: clampLanes(v, lo, hi), toByteOffset: i * 4, as: SIMD8<Float>.self)
                i += 8
            }
        }
        while i < range.upperBound {
            out[i] = clamp == .none ? a[i] + b[i] : clampLane(a[i] + b[i], clamp.min, clamp.max)
            i += 1
        }
    }

    /// The plain twin of ``add(_:_:_:range:clamp:)`` over `0..<count`, the test oracle.
    public static func addReference(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>,
                                    count: Int, clamp: ClampBounds) {
        for i in 0..<count { out[i] = clamp.apply(a[i] + b[i]) }
    }

    /// PReLU over `pixels` rows of `channels`: `out = x >= 0 ? x : alpha[c]·x`.
    public static func prelu(_ x: UnsafePointer<Float>, alpha: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>,
                             pixels: Range<Int>, channels: Int) {
        let xr = UnsafeRawPointer(x), ar = UnsafeRawPointer(alpha), or = UnsafeMutableRawPointer(out)
        let c8 = channels & ~7
        for p in pixels {
            let base = p * channels
            var c = 0
            while c < c8 {
                let v = xr.loadUnaligned(fromByteOffset: (base + c) * 4, as: SIMD8<Float>.self)
                let a = ar.loadUnaligned(fromByteOffset: c * 4, as: SIMD8<Float>.self)
                or.storeBytes(of: preluLanes(v, a), toByteOffset: (base + c) * 4, as: SIMD8<Float>.self)
                c += 8
            }
            while c < channels {
                let v = x[base + c]
                out[base + c] = v >= 0 ? v : alpha[c] * v
                c += 1
            }
        }
    }

    /// The plain twin of ``prelu(_:alpha:_:pixels:channels:)`` over `0..<pixels`, the test oracle.
    public static func preluReference(_ x: UnsafePointer<Float>, alpha: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>,
                                      pixels: Int, channels: Int) {
        for p in 0..<pixels {
            for c in 0..<channels {
                let v = x[p * channels + c]
                out[p * channels + c] = v >= 0 ? v : alpha[c] * v
            }
        }
    }

    /// `out[i] = 1 / (1 + exp(-x[i]))`.
    public static func logistic(_ x: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, range: Range<Int>) {
        for i in range { out[i] = 1 / (1 + exp(-x[i])) }
    }

    /// The plain twin of ``logistic(_:_:range:)`` over `0..<count`, in double precision: the test oracle.
    public static func logisticReference(_ x: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { out[i] = Float(1 / (1 + exp(-Double(x[i])))) }
    }
}
