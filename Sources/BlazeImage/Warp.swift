/// How samples outside the source image are filled, as OpenCV's `borderMode`.
public enum BorderMode: Sendable, Equatable {
    /// `cv::BORDER_CONSTANT` with value 0 (MediaPipe `BORDER_ZERO`).
    case zero
    /// `cv::BORDER_REPLICATE`: the nearest edge pixel (MediaPipe `BORDER_REPLICATE`, the default).
    case replicate
}

// OpenCV's remap constants (imgproc): coordinates are quantized to 1/32 pixel, fixed-point weights have
// 15 fractional bits.
private let interBits = 5
private let interTabSize = 1 << interBits
private let remapCoefBits = 15

/// OpenCV's fixed-point bilinear table (`initInterTab2D(INTER_LINEAR, fixpt = true)`), 4 weights for each
/// of the 32×32 sub-pixel positions `fy·32 + fx`: `[(1−fy)(1−fx), (1−fy)fx, fy(1−fx), fy·fx]·2^15`.
/// The weights are exact except at (0, 0), where `saturate_cast<short>(32768)` gives 32767 and OpenCV's
/// "fix the sum" step then adds the missing 1 to the 4th entry: `[32767, 0, 0, 1]`. (That step scans
/// `itab[k1·2+k2]` for `k1, k2 ∈ {1, 2}`, past the 2×2 cell, into entries still zero at that point, so
/// the maximum stays at index 3.)
let bilinearTabFixed: [Int32] = {
    var t = [Int32](repeating: 0, count: interTabSize * interTabSize * 4)
    for fy in 0..<interTabSize {
        for fx in 0..<interTabSize {
            let i = (fy * interTabSize + fx) * 4
            t[i] = Int32((32 - fx) * (32 - fy) * 32)
            t[i + 1] = Int32(fx * (32 - fy) * 32)
            t[i + 2] = Int32((32 - fx) * fy * 32)
            t[i + 3] = Int32(fx * fy * 32)
        }
    }
    t[0] = 32767
    t[3] = 1
    return t
}()

/// OpenCV's float bilinear table (`initInterTab2D(INTER_LINEAR, fixpt = false)`): products of
/// `1 − k/32` and `k/32` in `Float` (all exact).
let bilinearTabFloat: [Float] = {
    var t = [Float](repeating: 0, count: interTabSize * interTabSize * 4)
    let scale: Float = 1 / Float(interTabSize)
    for fy in 0..<interTabSize {
        let y = Float(fy) * scale
        for fx in 0..<interTabSize {
            let x = Float(fx) * scale
            let i = (fy * interTabSize + fx) * 4
            t[i] = (1 - y) * (1 - x)
            t[i + 1] = (1 - y) * x
            t[i + 2] = y * (1 - x)
            t[i + 3] = y * x
        }
    }
    return t
}()

/// `saturate_cast<int>(double)` after OpenCV's explicit clamp to `[INT_MIN, INT_MAX]`, i.e. `cvRound`
/// (round half to even). NaN behaves as in OpenCV's scalar code (`std::min(INT_MAX, NaN)` = `INT_MAX`).
@inline(__always)
private func clampRound(_ v: Double) -> Int32 {
    if !(v < 2147483647.0) { return Int32.max }
    if v <= -2147483648.0 { return Int32.min }
    // Within ±2^31 the low 32 bits of `v + 1.5·2^52` are the rounded value in two's complement.
    return Int32(truncatingIfNeeded: (v + 6755399441055744.0).bitPattern)
}

/// Round half to even for |v| < 2^51 (the x86 `cvtsd2si` result), via the 1.5·2^52 trick: adding and
/// subtracting the constant leaves the nearest-even integer in the default rounding mode. Much faster than
/// `rounded(.toNearestOrEven)`, which is a library call on baseline x86-64.
@inline(__always)
private func roundHalfEven(_ v: Double) -> Double {
    let magic = 6755399441055744.0
    return (v + magic) - magic
}

/// `cvRound(double)` on x86-64 (`cvtsd2si`): round half to even; out of range or NaN → `INT_MIN`.
@inline(__always)
private func cvRoundX86(_ v: Double) -> Int32 {
    guard v > -2147483648.5, v < 2147483647.5 else { return Int32.min }
    let r = roundHalfEven(v)
    return r >= 2147483648.0 ? Int32.min : Int32(r)
}

@inline(__always)
private func saturateShort(_ v: Int32) -> Int32 { min(max(v, -32768), 32767) }

/// OpenCV's `clip(x, a, b)` used by `remap` for `BORDER_REPLICATE`.
@inline(__always)
private func clip(_ x: Int, _ a: Int, _ b: Int) -> Int { x >= a ? (x < b ? x : b - 1) : a }

/// `cv::warpPerspective(src, dst, M, Size(width, height), INTER_LINEAR, border)` on an 8-bit RGB image,
/// bit-exact with the OpenCV 3.4 inside MediaPipe 0.10.14 (which is what `ImageToTensorCalculator` runs;
/// OpenCV ≥ 4.11, e.g. the `cv2` 5.x wheel, uses a different, unquantized algorithm and does **not** match).
///
/// `transform` maps source to destination pixels (like `M` without `WARP_INVERSE_MAP`); it is inverted with
/// ``PerspectiveTransform/inverted()``. For each destination pixel, in OpenCV's blocks of
/// `min(1024/min(16, height), width)` columns starting at `xb`:
/// `X0 = m0·xb + m1·y + m2` (likewise `Y0`, `W0`), `W = W0 + m6·x1`, `W = W ≠ 0 ? 32/W : 0`,
/// `X = cvRound(clamp((X0 + m0·x1)·W))` (likewise `Y`); the integer source pixel is `X >> 5`
/// (saturated to Int16), the sub-pixel cell `(Y & 31)·32 + (X & 31)` selects OpenCV's fixed-point weights,
/// and the result is `(Σ w·p + 2^14) >> 15`. Outside samples follow `remap`'s rules: constant 0 (a pixel
/// whose 2×2 neighbourhood lies entirely outside is 0; partially outside taps read 0) or replicate
/// (taps clamped to the edge).
///
/// Every output row depends only on its own index, so disjoint `rows` ranges may be computed on
/// different threads and give the same bytes as one call over all rows.
///
/// - Parameters:
///   - out: `width · height · 3` bytes, written row-major RGB (only the rows in `rows`). Nothing else is allocated.
///   - rows: the output rows to compute (default: all).
public func warpPerspectiveRGB(_ image: Image, transform: PerspectiveTransform, width: Int, height: Int,
                               border: BorderMode, into out: UnsafeMutablePointer<UInt8>, rows: Range<Int>? = nil) {
    precondition(width > 0 && height > 0, "warpPerspectiveRGB: output size must be positive, got \(width)×\(height)")
    let rows = rows ?? 0..<height
    precondition(rows.lowerBound >= 0 && rows.upperBound <= height, "warpPerspectiveRGB: rows \(rows) outside 0..<\(height)")
    let inv = transform.inverted().elements
    let m0 = inv[0], m1 = inv[1], m2 = inv[2], m3 = inv[3], m4 = inv[4], m5 = inv[5], m6 = inv[6], m7 = inv[7], m8 = inv[8]
    let sw = image.width, sh = image.height
    let sstep = sw * 3
    let bh0 = min(16, height)
    let bw0 = min(1024 / bh0, width)
    // A pixel whose 2×2 taps lie inside the image and whose 4-byte loads (one byte past each right tap)
    // stay inside its source rows takes the vector path.
    let fastColumns = UInt(max(sw - 2, 0)), fastRows = UInt(max(sh - 1, 0))
    let lanes = SIMD4<Double>(0, 1, 2, 3)
    let tabScale = SIMD4<Double>(repeating: Double(interTabSize))
    let maxInt = SIMD4<Double>(repeating: 2147483647.0), minInt = SIMD4<Double>(repeating: -2147483648.0)
    let magic = SIMD4<Double>(repeating: 6755399441055744.0)
    let half = SIMD4<Int32>(repeating: 1 << 14)
    image.pixels.withUnsafeBufferPointer { srcBuf in
        bilinearTabFixed.withUnsafeBufferPointer { tabBuf in
            let src = srcBuf.baseAddress!, tab = tabBuf.baseAddress!
            let raw = UnsafeRawPointer(src)
            /// `clampRound` on four lanes.
            @inline(__always) func clampRound4(_ v: SIMD4<Double>) -> SIMD4<Int32> {
                let bits = unsafeBitCast(v + magic, to: SIMD4<Int64>.self)
                var r = SIMD4<Int64>(truncatingIfNeeded: SIMD4<Int32>(truncatingIfNeeded: bits))
                r.replace(with: Int64(Int32.min), where: v .<= minInt)
                r.replace(with: Int64(Int32.max), where: .!(v .< maxInt))
                return SIMD4<Int32>(truncatingIfNeeded: r)
            }
            for y in rows {
                let yd = Double(y)
                var xb = 0
                while xb < width {
                    let bw = min(bw0, width - xb)
                    let xbd = Double(xb)
                    let x0 = m0 * xbd + m1 * yd + m2
                    let y0 = m3 * xbd + m4 * yd + m5
                    let w0 = m6 * xbd + m7 * yd + m8
                    let d = out + (y * width + xb) * 3
                    var x1 = 0
                    while x1 + 4 <= bw {
                        // The scalar expressions of the reference, lane by lane (no contraction into FMAs).
                        let x1d = SIMD4<Double>(repeating: Double(x1)) + lanes
                        var w = SIMD4<Double>(repeating: w0) + SIMD4<Double>(repeating: m6) * x1d
                        w = (tabScale / w).replacing(with: 0, where: w .== 0)
                        let X = clampRound4((SIMD4<Double>(repeating: x0) + SIMD4<Double>(repeating: m0) * x1d) * w)
                        let Y = clampRound4((SIMD4<Double>(repeating: y0) + SIMD4<Double>(repeating: m3) * x1d) * w)
                        @inline(__always) func saturateShort4(_ v: SIMD4<Int32>) -> SIMD4<Int32> {
                            let lo = SIMD4<Int32>(repeating: -32768), hi = SIMD4<Int32>(repeating: 32767)
                            return v.replacing(with: lo, where: v .< lo).replacing(with: hi, where: v .> hi)
                        }
                        let sx4 = saturateShort4(X &>> Int32(interBits))
                        let sy4 = saturateShort4(Y &>> Int32(interBits))
                        let cell = ((Y & 31) &<< 5 | (X & 31)) &<< 2
                        for lane in 0..<4 {
                            let sx = Int(sx4[lane]), sy = Int(sy4[lane])
                            let wt = tab + Int(cell[lane])
                            let dp = d + (x1 + lane) * 3
                            if UInt(bitPattern: sx) < fastColumns && UInt(bitPattern: sy) < fastRows {
                                let o = sy * sstep + sx * 3
                                @inline(__always) func taps(_ at: Int) -> SIMD4<Int32> {
                                    SIMD4<Int32>(truncatingIfNeeded: raw.loadUnaligned(fromByteOffset: at, as: SIMD4<UInt8>.self))
                                }
                                let v = taps(o) &* wt[0] &+ taps(o + 3) &* wt[1] &+ taps(o + sstep) &* wt[2]
                                    &+ taps(o + sstep + 3) &* wt[3]
                                let r = (v &+ half) &>> 15
                                dp[0] = UInt8(clamping: r[0]); dp[1] = UInt8(clamping: r[1]); dp[2] = UInt8(clamping: r[2])
                            } else {
                                warpSampleRGB(src, width: sw, height: sh, x: sx, y: sy, weights: wt, border: border, into: dp)
                            }
                        }
                        x1 += 4
                    }
                    while x1 < bw {
                        let x1d = Double(x1)
                        var w = w0 + m6 * x1d
                        w = w != 0 ? Double(interTabSize) / w : 0
                        let X = clampRound((x0 + m0 * x1d) * w)
                        let Y = clampRound((y0 + m3 * x1d) * w)
                        let sx = Int(saturateShort(X &>> Int32(interBits)))
                        let sy = Int(saturateShort(Y &>> Int32(interBits)))
                        let wt = tab + Int(truncatingIfNeeded: ((Y & 31) &<< 5 | (X & 31)) &<< 2)
                        warpSampleRGB(src, width: sw, height: sh, x: sx, y: sy, weights: wt, border: border, into: d + x1 * 3)
                        x1 += 1
                    }
                    xb += bw0
                }
            }
        }
    }
}

/// One destination pixel of ``warpPerspectiveRGB(_:transform:width:height:border:into:rows:)`` from source
/// cell `(x, y)` (its top-left tap) with fixed-point weights `weights[0...3]`, by `remap`'s rules.
@inline(__always)
private func warpSampleRGB(_ src: UnsafePointer<UInt8>, width sw: Int, height sh: Int, x sx: Int, y sy: Int,
                           weights wt: UnsafePointer<Int32>, border: BorderMode, into d: UnsafeMutablePointer<UInt8>) {
    let sstep = sw * 3
    let w00 = wt[0], w01 = wt[1], w10 = wt[2], w11 = wt[3]
    if UInt(bitPattern: sx) < UInt(max(sw - 1, 0)) && UInt(bitPattern: sy) < UInt(max(sh - 1, 0)) {
        let s = src + sy * sstep + sx * 3
        for k in 0..<3 {
            let v = Int32(s[k]) &* w00 &+ Int32(s[k + 3]) &* w01
                &+ Int32(s[k + sstep]) &* w10 &+ Int32(s[k + sstep + 3]) &* w11
            d[k] = UInt8(clamping: (v &+ (1 << 14)) &>> 15)
        }
    } else if border == .replicate {
        let sx0 = clip(sx, 0, sw), sx1 = clip(sx + 1, 0, sw)
        let sy0 = clip(sy, 0, sh), sy1 = clip(sy + 1, 0, sh)
        let p00 = src + sy0 * sstep + sx0 * 3, p01 = src + sy0 * sstep + sx1 * 3
        let p10 = src + sy1 * sstep + sx0 * 3, p11 = src + sy1 * sstep + sx1 * 3
        for k in 0..<3 {
            let v = Int32(p00[k]) &* w00 &+ Int32(p01[k]) &* w01 &+ Int32(p10[k]) &* w10 &+ Int32(p11[k]) &* w11
            d[k] = UInt8(clamping: (v &+ (1 << 14)) &>> 15)
        }
    } else if sx >= sw || sx + 1 < 0 || sy >= sh || sy + 1 < 0 {
        d[0] = 0; d[1] = 0; d[2] = 0
    } else {
        let inX0 = sx >= 0, inX1 = sx + 1 < sw, inY0 = sy >= 0, inY1 = sy + 1 < sh
        for k in 0..<3 {
            let v0 = inX0 && inY0 ? Int32(src[sy * sstep + sx * 3 + k]) : 0
            let v1 = inX1 && inY0 ? Int32(src[sy * sstep + (sx + 1) * 3 + k]) : 0
            let v2 = inX0 && inY1 ? Int32(src[(sy + 1) * sstep + sx * 3 + k]) : 0
            let v3 = inX1 && inY1 ? Int32(src[(sy + 1) * sstep + (sx + 1) * 3 + k]) : 0
            let v = v0 &* w00 &+ v1 &* w01 &+ v2 &* w10 &+ v3 &* w11
            d[k] = UInt8(clamping: (v &+ (1 << 14)) &>> 15)
        }
    }
}

/// The plain twin of ``warpPerspectiveRGB(_:transform:width:height:border:into:rows:)``: one pixel at a
/// time in scalar code, the test oracle.
public func warpPerspectiveRGBReference(_ image: Image, transform: PerspectiveTransform, width: Int, height: Int,
                               border: BorderMode, into out: UnsafeMutablePointer<UInt8>, rows: Range<Int>? = nil) {
    precondition(width > 0 && height > 0, "warpPerspectiveRGBReference: output size must be positive, got \(width)×\(height)")
    let rows = rows ?? 0..<height
    precondition(rows.lowerBound >= 0 && rows.upperBound <= height, "warpPerspectiveRGBReference: rows \(rows) outside 0..<\(height)")
    let inv = transform.inverted().elements
    let m0 = inv[0], m1 = inv[1], m2 = inv[2], m3 = inv[3], m4 = inv[4], m5 = inv[5], m6 = inv[6], m7 = inv[7], m8 = inv[8]
    let sw = image.width, sh = image.height
    let width1 = max(sw - 1, 0), height1 = max(sh - 1, 0)
    let sstep = sw * 3
    let bh0 = min(16, height)
    let bw0 = min(1024 / bh0, width)
    let replicate = border == .replicate
    image.pixels.withUnsafeBufferPointer { srcBuf in
        bilinearTabFixed.withUnsafeBufferPointer { tabBuf in
            let src = srcBuf.baseAddress!, tab = tabBuf.baseAddress!
            for y in rows {
                let yd = Double(y)
                var xb = 0
                while xb < width {
                    let bw = min(bw0, width - xb)
                    let xbd = Double(xb)
                    let x0 = m0 * xbd + m1 * yd + m2
                    let y0 = m3 * xbd + m4 * yd + m5
                    let w0 = m6 * xbd + m7 * yd + m8
                    var d = out + (y * width + xb) * 3
                    for x1 in 0..<bw {
                        let x1d = Double(x1)
                        var w = w0 + m6 * x1d
                        w = w != 0 ? Double(interTabSize) / w : 0
                        let X = clampRound((x0 + m0 * x1d) * w)
                        let Y = clampRound((y0 + m3 * x1d) * w)
                        let sx = Int(saturateShort(X &>> Int32(interBits)))
                        let sy = Int(saturateShort(Y &>> Int32(interBits)))
                        let wt = tab + Int(truncatingIfNeeded: ((Y & 31) &<< 5 | (X & 31)) &<< 2)
                        let w00 = wt[0], w01 = wt[1], w10 = wt[2], w11 = wt[3]
                        if UInt(bitPattern: sx) < UInt(width1) && UInt(bitPattern: sy) < UInt(height1) {
                            let s = src + sy * sstep + sx * 3
                            for k in 0..<3 {
                                let v = Int32(s[k]) &* w00 &+ Int32(s[k + 3]) &* w01
                                    &+ Int32(s[k + sstep]) &* w10 &+ Int32(s[k + sstep + 3]) &* w11
                                d[k] = UInt8(clamping: (v &+ (1 << 14)) &>> 15)
                            }
                        } else if replicate {
                            let sx0 = clip(sx, 0, sw), sx1 = clip(sx + 1, 0, sw)
                            let sy0 = clip(sy, 0, sh), sy1 = clip(sy + 1, 0, sh)
                            let p00 = src + sy0 * sstep + sx0 * 3, p01 = src + sy0 * sstep + sx1 * 3
                            let p10 = src + sy1 * sstep + sx0 * 3, p11 = src + sy1 * sstep + sx1 * 3
                            for k in 0..<3 {
                                let v = Int32(p00[k]) &* w00 &+ Int32(p01[k]) &* w01 &+ Int32(p10[k]) &* w10 &+ Int32(p11[k]) &* w11
                                d[k] = UInt8(clamping: (v &+ (1 << 14)) &>> 15)
                            }
                        } else if sx >= sw || sx + 1 < 0 || sy >= sh || sy + 1 < 0 {
                            d[0] = 0; d[1] = 0; d[2] = 0
                        } else {
                            let inX0 = sx >= 0, inX1 = sx + 1 < sw, inY0 = sy >= 0, inY1 = sy + 1 < sh
                            for k in 0..<3 {
                                let v0 = inX0 && inY0 ? Int32(src[sy * sstep + sx * 3 + k]) : 0
                                let v1 = inX1 && inY0 ? Int32(src[sy * sstep + (sx + 1) * 3 + k]) : 0
                                let v2 = inX0 && inY1 ? Int32(src[(sy + 1) * sstep + sx * 3 + k]) : 0
                                let v3 = inX1 && inY1 ? Int32(src[(sy + 1) * sstep + (sx + 1) * 3 + k]) : 0
                                let v = v0 &* w00 &+ v1 &* w01 &+ v2 &* w10 &+ v3 &* w11
                                d[k] = UInt8(clamping: (v &+ (1 << 14)) &>> 15)
                            }
                        }
                        d += 3
                    }
                    xb += bw0
                }
            }
        }
    }
}

/// `cv::warpAffine(src, dst, M, Size(outputWidth, outputHeight), INTER_LINEAR | WARP_INVERSE_MAP,
/// BORDER_CONSTANT, 0)` on a one-channel `Float` image, as the OpenCV 3.4 inside MediaPipe 0.10.14 runs it
/// for the segmentation-mask warp (`WarpAffineCalculator`, `affine_transformation_runner_opencv.cc`).
///
/// `inverseMatrix` `(a, b, c, d, e, f)` maps destination to source: `(x, y) ↦ (a·x + b·y + c, d·x + e·y + f)`.
/// (MediaPipe builds it in `Float` and OpenCV converts it to `Double`; pass `Double(float)` values to
/// match.) OpenCV's fixed-point coordinates are reproduced: with `AB = 1024`,
/// `X = (cvRound((b·y + c)·AB) + 16 + cvRound(a·x·AB)) >> 5` (likewise `Y`), source pixel `X >> 5`,
/// sub-pixel cell `(Y & 31)·32 + (X & 31)` into OpenCV's float bilinear table, result
/// `((p00·w0 + p01·w1) + p10·w2) + p11·w3` in `Float`; taps outside the source read 0.
///
/// - Parameters:
///   - source: `width · height` floats, row-major.
///   - out: `outputWidth · outputHeight` floats, written row-major. Nothing else is allocated.
public func warpAffineInverseFloat(source: UnsafePointer<Float>, width: Int, height: Int,
                                   inverseMatrix: (Double, Double, Double, Double, Double, Double),
                                   outputWidth: Int, outputHeight: Int, into out: UnsafeMutablePointer<Float>) {
    precondition(width > 0 && height > 0 && outputWidth > 0 && outputHeight > 0,
                 "warpAffineInverseFloat: sizes must be positive, got source \(width)×\(height), output \(outputWidth)×\(outputHeight)")
    let (a, b, c, d, e, f) = inverseMatrix
    let abScale = 1024.0
    let roundDelta: Int32 = 1024 / Int32(interTabSize) / 2
    let width1 = max(width - 1, 0), height1 = max(height - 1, 0)
    bilinearTabFloat.withUnsafeBufferPointer { tabBuf in
        let tab = tabBuf.baseAddress!
        for y in 0..<outputHeight {
            let x0 = cvRoundX86((b * Double(y) + c) * abScale) &+ roundDelta
            let y0 = cvRoundX86((e * Double(y) + f) * abScale) &+ roundDelta
            var dst = out + y * outputWidth
            for x in 0..<outputWidth {
                let adelta = cvRoundX86(a * Double(x) * abScale)
                let bdelta = cvRoundX86(d * Double(x) * abScale)
                let X = (x0 &+ adelta) >> 5
                let Y = (y0 &+ bdelta) >> 5
                let sx = Int(saturateShort(X >> Int32(interBits)))
                let sy = Int(saturateShort(Y >> Int32(interBits)))
                let wt = tab + Int((Y & 31) * 32 + (X & 31)) * 4
                if UInt(bitPattern: sx) < UInt(width1) && UInt(bitPattern: sy) < UInt(height1) {
                    let s = source + sy * width + sx
                    dst.pointee = s[0] * wt[0] + s[1] * wt[1] + s[width] * wt[2] + s[width + 1] * wt[3]
                } else if sx >= width || sx + 1 < 0 || sy >= height || sy + 1 < 0 {
                    dst.pointee = 0
                } else {
                    let inX0 = sx >= 0, inX1 = sx + 1 < width, inY0 = sy >= 0, inY1 = sy + 1 < height
                    let v0: Float = inX0 && inY0 ? source[sy * width + sx] : 0
                    let v1: Float = inX1 && inY0 ? source[sy * width + sx + 1] : 0
                    let v2: Float = inX0 && inY1 ? source[(sy + 1) * width + sx] : 0
                    let v3: Float = inX1 && inY1 ? source[(sy + 1) * width + sx + 1] : 0
                    dst.pointee = v0 * wt[0] + v1 * wt[1] + v2 * wt[2] + v3 * wt[3]
                }
                dst += 1
            }
        }
    }
}
