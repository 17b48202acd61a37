import CPrefetch

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

/// The entries of ``bilinearTabFixed`` for sub-pixel positions `fx`, `fy` (each 0…31) on 8 lanes, computed
/// instead of looked up: `(32−fx)(32−fy)·32`, `fx(32−fy)·32`, `(32−fx)fy·32`, `fx·fy·32`, except
/// `(32767, 0, 0, 1)` at (0, 0).
@inline(__always)
func bilinearWeightsFixed(fx: SIMD8<Int32>, fy: SIMD8<Int32>) -> (SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>, SIMD8<Int32>) {
    let gx = 32 &- fx, gy = 32 &- fy
    let atCorner = (fx | fy) .== SIMD8<Int32>(repeating: 0)
    return (((gx &* gy) &<< 5).replacing(with: 32767, where: atCorner), (fx &* gy) &<< 5, (gx &* fy) &<< 5,
            ((fx &* fy) &<< 5).replacing(with: 1, where: atCorner))
}

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
    // The vector path reads each tap pair from two adjacent columns of one source row, so it needs rows
    // of at least 2 pixels; its byte offsets are Int32 (an `Image` holds at most 3·2^26 bytes, and
    // `YUV420Planes` checks its strides).
    if let planes = image.yuv420, image.width >= 2 {
        warpRows(YUVTaps(planes), sourceWidth: image.width, sourceHeight: image.height, transform: transform,
                 width: width, height: height, zeroBorder: border == .zero, into: out, rows: rows)
        return
    }
    guard image.width >= 2, image.width * image.height * 3 <= Int(Int32.max) - 16 else {
        warpPerspectiveRGBReference(image, transform: transform, width: width, height: height, border: border, into: out, rows: rows)
        return
    }
    image.pixels.withUnsafeBufferPointer { source in
        warpRows(RGBTaps(source.baseAddress!, width: image.width), sourceWidth: image.width, sourceHeight: image.height,
                 transform: transform, width: width, height: height, zeroBorder: border == .zero, into: out, rows: rows)
    }
}

typealias Lanes8 = SIMD8<Int32>

/// The largest source rectangle (in pixels) whose lines the vector warp hints to the cache before its rows:
/// 1 MB of luma, about a core's L2 here.
let prefetchPixelLimit = 1 << 20

/// Where the vector warp reads its taps: for 8 destination pixels, the RGB of the source column pair
/// `(left, left + 1)` in the source rows `top` and `bottom` (all already clamped into the image).
protocol WarpTapSource {
    /// Vectors of offsets ``plan(top:bottom:left:into:)`` stores per group of 8 pixels.
    static var planCount: Int { get }
    /// Stores what ``taps(_:)`` needs to read the taps (byte offsets, lane by lane).
    func plan(top: Lanes8, bottom: Lanes8, left: Lanes8, into p: UnsafeMutablePointer<Lanes8>)
    /// Source columns one cache line of a row holds (at least).
    static var columnsPerCacheLine: Int { get }
    /// Hints the cache lines of source row `row` at column `column` (both inside the image): the pixel's
    /// bytes in each plane.
    func prefetch(row: Int, column: Int)
    /// Red, green and blue of the taps top-left, top-right, bottom-left, bottom-right.
    func taps(_ p: UnsafePointer<Lanes8>) -> (r: (Lanes8, Lanes8, Lanes8, Lanes8), g: (Lanes8, Lanes8, Lanes8, Lanes8),
                                               b: (Lanes8, Lanes8, Lanes8, Lanes8))
}

/// 8 lanes of `base[offsets[i] + delta]` (or of the 2-byte or 4-byte word there), offsets read from memory.
@inline(__always)
private func gather<T: FixedWidthInteger>(_ base: UnsafeRawPointer, _ offsets: UnsafePointer<Lanes8>, _ delta: Int = 0,
                                          as: T.Type) -> SIMD8<UInt32> {
    let o = UnsafeRawPointer(offsets)
    @inline(__always) func word(_ i: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: base.loadUnaligned(fromByteOffset: Int(o.load(fromByteOffset: 4 * i, as: Int32.self)) &+ delta, as: T.self))
    }
    return SIMD8(word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7))
}

/// Taps of packed RGB rows: each row's pair as the 4-byte words at byte offsets `o` (R0 G0 B0 R1) and
/// `o + 2` (B0 R1 G1 B1), which never reach past the row's last byte.
struct RGBTaps: WarpTapSource {
    let raw: UnsafeRawPointer
    let rowBytes: Lanes8
    init(_ pixels: UnsafePointer<UInt8>, width: Int) {
        raw = UnsafeRawPointer(pixels)
        rowBytes = Lanes8(repeating: Int32(width * 3))
    }
    static var planCount: Int { 2 }
    static var columnsPerCacheLine: Int { 21 }
    @inline(__always) func prefetch(row: Int, column: Int) {
        blaze_prefetch(raw + row * Int(rowBytes[0]) + column * 3)
    }
    @inline(__always) func plan(top: Lanes8, bottom: Lanes8, left: Lanes8, into p: UnsafeMutablePointer<Lanes8>) {
        let column = left &* 3
        p[0] = top &* rowBytes &+ column
        p[1] = bottom &* rowBytes &+ column
    }
    @inline(__always) func taps(_ p: UnsafePointer<Lanes8>) -> (r: (Lanes8, Lanes8, Lanes8, Lanes8), g: (Lanes8, Lanes8, Lanes8, Lanes8),
                                                                 b: (Lanes8, Lanes8, Lanes8, Lanes8)) {
        let a = gather(raw, p, as: UInt32.self), b = gather(raw, p, 2, as: UInt32.self)
        let c = gather(raw, p + 1, as: UInt32.self), d = gather(raw, p + 1, 2, as: UInt32.self)
        let byte = SIMD8<UInt32>(repeating: 255)
        @inline(__always) func channel(_ shiftL: UInt32, _ shiftR: UInt32) -> (Lanes8, Lanes8, Lanes8, Lanes8) {
            (Lanes8(truncatingIfNeeded: (a &>> shiftL) & byte), Lanes8(truncatingIfNeeded: (b &>> shiftR) & byte),
             Lanes8(truncatingIfNeeded: (c &>> shiftL) & byte), Lanes8(truncatingIfNeeded: (d &>> shiftR) & byte))
        }
        return (channel(0, 8), channel(8, 16), channel(16, 24))
    }
}

/// Taps of YUV 4:2:0 planes, converted as the planes' ``YUVToRGB`` converts them. Each row's luma pair is the 2-byte
/// word at the pair's column `left`; its chroma samples are at columns `left/2` and `(left + 1)/2` (the
/// same one for an even `left`) of chroma row `row/2`, both inside the 2-byte word at column
/// `min(left/2, chromaWidth − 2)`, which never reaches past the row (planes 2 or 3 pixels wide have a
/// single chroma column, read as a byte).
struct YUVTaps: WarpTapSource {
    let y: UnsafeRawPointer, u: UnsafeRawPointer, v: UnsafeRawPointer
    let yStride: Lanes8, uStride: Lanes8, vStride: Lanes8
    let lastPair: Lanes8
    let singleChromaColumn: Bool
    let conversion: YUVToRGB
    init(_ planes: YUV420Planes) {
        conversion = planes.conversion
        y = UnsafeRawPointer(planes.y)
        u = UnsafeRawPointer(planes.u)
        v = UnsafeRawPointer(planes.v)
        yStride = Lanes8(repeating: Int32(planes.yStride))
        uStride = Lanes8(repeating: Int32(planes.uStride))
        vStride = Lanes8(repeating: Int32(planes.vStride))
        lastPair = Lanes8(repeating: Int32(max(planes.chromaWidth - 2, 0)))
        singleChromaColumn = planes.chromaWidth < 2
    }
    static var planCount: Int { 8 }
    static var columnsPerCacheLine: Int { 64 }
    @inline(__always) func prefetch(row: Int, column: Int) {
        blaze_prefetch(y + row * Int(yStride[0]) + column)
        if row & 1 == 0 {   // a chroma row serves two luma rows
            blaze_prefetch(u + (row >> 1) * Int(uStride[0]) + (column >> 1))
            blaze_prefetch(v + (row >> 1) * Int(vStride[0]) + (column >> 1))
        }
    }
    @inline(__always) func plan(top: Lanes8, bottom: Lanes8, left: Lanes8, into p: UnsafeMutablePointer<Lanes8>) {
        let chromaColumn = left &>> 1
        let pair = pointwiseMin(chromaColumn, lastPair)
        let topChroma = top &>> 1, bottomChroma = bottom &>> 1
        p[0] = top &* yStride &+ left
        p[1] = bottom &* yStride &+ left
        p[2] = topChroma &* uStride &+ pair
        p[3] = bottomChroma &* uStride &+ pair
        p[4] = topChroma &* vStride &+ pair
        p[5] = bottomChroma &* vStride &+ pair
        // Bit shifts that take the left and right taps' samples out of the 2-byte word.
        let leftShift = (chromaColumn &- pair) &<< 3
        p[6] = leftShift
        p[7] = leftShift &+ ((left & 1) &<< 3)
    }
    @inline(__always) func taps(_ p: UnsafePointer<Lanes8>) -> (r: (Lanes8, Lanes8, Lanes8, Lanes8), g: (Lanes8, Lanes8, Lanes8, Lanes8),
                                                                 b: (Lanes8, Lanes8, Lanes8, Lanes8)) {
        let byte = SIMD8<UInt32>(repeating: 255)
        let top = gather(y, p, as: UInt16.self), bottom = gather(y, p + 1, as: UInt16.self)
        let c = conversion
        let luma = (c.luma(Lanes8(truncatingIfNeeded: top & byte)), c.luma(Lanes8(truncatingIfNeeded: top &>> 8)),
                    c.luma(Lanes8(truncatingIfNeeded: bottom & byte)), c.luma(Lanes8(truncatingIfNeeded: bottom &>> 8)))
        let leftShift = SIMD8<UInt32>(truncatingIfNeeded: p[6]), rightShift = SIMD8<UInt32>(truncatingIfNeeded: p[7])
        @inline(__always) func samples(_ plane: UnsafeRawPointer, _ offsets: UnsafePointer<Lanes8>) -> (Lanes8, Lanes8) {
            let word = singleChromaColumn ? gather(plane, offsets, as: UInt8.self) : gather(plane, offsets, as: UInt16.self)
            return (Lanes8(truncatingIfNeeded: (word &>> leftShift) & byte), Lanes8(truncatingIfNeeded: (word &>> rightShift) & byte))
        }
        let (uTL, uTR) = samples(u, p + 2), (uBL, uBR) = samples(u, p + 3)
        let (vTL, vTR) = samples(v, p + 4), (vBL, vBR) = samples(v, p + 5)
        @inline(__always) func rgb(_ l: Lanes8, _ cu: Lanes8, _ cv: Lanes8) -> (Lanes8, Lanes8, Lanes8) {
            (YUVToRGB.clamp(l &+ c.red(v: cv)), YUVToRGB.clamp(l &+ c.green(u: cu, v: cv)), YUVToRGB.clamp(l &+ c.blue(u: cu)))
        }
        let tl = rgb(luma.0, uTL, vTL), tr = rgb(luma.1, uTR, vTR), bl = rgb(luma.2, uBL, vBL), br = rgb(luma.3, uBR, vBR)
        return ((tl.0, tr.0, bl.0, br.0), (tl.1, tr.1, bl.1, br.1), (tl.2, tr.2, bl.2, br.2))
    }
}

/// The vector body of ``warpPerspectiveRGB(_:transform:width:height:border:into:rows:)`` for sources at
/// least 2 pixels wide, 8 destination pixels per step.
///
/// Coordinates are the reference's double expressions, lane by lane. Every pixel then takes one path for
/// both borders: its taps are clamped into the image (OpenCV's `clip`, which is `BORDER_REPLICATE` and is
/// the identity for inside taps), and for `BORDER_CONSTANT` a tap outside the image gets weight 0 (which
/// gives both of `remap`'s rules: partly outside reads 0 there, entirely outside sums to 0). Each source
/// row's two taps are read through one pair of columns `xl = clamp(sx, 0, sw − 2)`, `xl + 1` (by `source`,
/// from packed RGB or from YUV planes); a tap clamped onto the same column as the other adds its weight to
/// that column.
/// With the weights' sum at most 2^15 every sum stays in `0…255·2^15`, so Int32 arithmetic is exact and
/// the result needs no clamping. (The Int16 saturation of the source cell is OpenCV's; with images at most
/// 16384 pixels wide the clamping after it would give the same taps without it.)
@inline(__always)
private func warpRows<Source: WarpTapSource>(_ source: Source, sourceWidth sw: Int, sourceHeight sh: Int,
                                             transform: PerspectiveTransform, width: Int, height: Int, zeroBorder: Bool,
                                             into out: UnsafeMutablePointer<UInt8>, rows: Range<Int>) {
    let inv = transform.inverted().elements
    let m0 = inv[0], m1 = inv[1], m2 = inv[2], m3 = inv[3], m4 = inv[4], m5 = inv[5], m6 = inv[6], m7 = inv[7], m8 = inv[8]
    let bh0 = min(16, height)
    let bw0 = min(1024 / bh0, width)
    typealias I8 = SIMD8<Int32>
    typealias D4 = SIMD4<Double>
    let lanesLo = D4(0, 1, 2, 3), lanesHi = D4(4, 5, 6, 7)
    let tabScale = D4(repeating: Double(interTabSize))
    let maxInt = D4(repeating: 2147483647.0), minInt = D4(repeating: -2147483648.0)
    let magic = D4(repeating: 6755399441055744.0)
    let vm0 = D4(repeating: m0), vm3 = D4(repeating: m3), vm6 = D4(repeating: m6)
    let sw1 = I8(repeating: Int32(sw - 1)), sw2 = I8(repeating: Int32(sw - 2))
    let shV = I8(repeating: Int32(sh)), sh1 = I8(repeating: Int32(sh - 1))
    let zero = I8(repeating: 0), minusOne = I8(repeating: -1), minusTwo = I8(repeating: -2)
    let lo16 = I8(repeating: -32768), hi16 = I8(repeating: 32767)
    let half = I8(repeating: 1 << 14)
    do {
        /// `clampRound` on four lanes, clamping in `Double` first (NaN → `INT_MAX` as there): the bounds
        /// themselves are integers, so rounding the clamped value gives the clamped rounded value.
        @inline(__always) func clampRound4(_ v: D4) -> SIMD4<Int32> {
            let upper = maxInt.replacing(with: v, where: v .< maxInt)  // NaN → INT_MAX
            let c = minInt.replacing(with: upper, where: upper .> minInt)
            return SIMD4<Int32>(truncatingIfNeeded: unsafeBitCast(c + magic, to: SIMD4<Int64>.self))
        }
        @inline(__always) func lower(_ a: I8, _ b: I8) -> I8 { a.replacing(with: b, where: b .< a) }
        @inline(__always) func upper(_ a: I8, _ b: I8) -> I8 { a.replacing(with: b, where: b .> a) }
        @inline(__always) func mask(_ m: SIMDMask<I8.MaskStorage>) -> I8 { zero.replacing(with: -1, where: m) }
        // Up to 4 groups of 8 pixels at a time: first their weights and offsets (into `plan`), then their
        // taps, so neither pass waits on the other's long dependency chain. `plan` is at most 1536 bytes at
        // SIMD8's 16-byte alignment, which `withUnsafeTemporaryAllocation` places on the stack.
        let chunk = 4 * 8
        let perGroup = 4 + Source.planCount
        // The rows' source rectangle (their corners mapped back, widened by the taps' one-pixel reach, clamped
        // into the image) is hinted to the cache, line by line, before the first row. A video frame arrives
        // from memory, not from cache, and the taps' scattered loads would otherwise each wait for it: in
        // `blaze-bench crop --warp-only --yuv --copies 24` the 256×256 warp took 0.67 ms (median) without the
        // hints and 0.49 ms with them, 0.35 ms from cache. A rectangle larger than `prefetchPixelLimit` is not hinted:
        // it would not stay in cache until its rows are read.
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        for (cx, cy) in [(0, rows.lowerBound), (width, rows.lowerBound), (0, rows.upperBound), (width, rows.upperBound)] {
            let x = Double(cx), y = Double(cy), w = m6 * x + m7 * y + m8
            let sx = (m0 * x + m1 * y + m2) / w, sy = (m3 * x + m4 * y + m5) / w
            minX = min(minX, sx); maxX = max(maxX, sx); minY = min(minY, sy); maxY = max(maxY, sy)
        }
        if minX.isFinite && maxX.isFinite && minY.isFinite && maxY.isFinite {
            let x0 = Int(min(max(minX - 1, 0), Double(sw - 1))), x1 = Int(min(max(maxX + 2, 0), Double(sw - 1)))
            let y0 = Int(min(max(minY - 1, 0), Double(sh - 1))), y1 = Int(min(max(maxY + 2, 0), Double(sh - 1)))
            if (x1 - x0 + 1) * (y1 - y0 + 1) <= prefetchPixelLimit {
                for r in y0...y1 {
                    for c in stride(from: x0, to: x1, by: Source.columnsPerCacheLine) { source.prefetch(row: r, column: c) }
                    source.prefetch(row: r, column: x1)
                }
            }
        }
        withUnsafeTemporaryAllocation(of: I8.self, capacity: perGroup * chunk / 8) { planBuffer in
            let plan = planBuffer.baseAddress!
            for y in rows {
                let yd = Double(y)
                var xb = 0
                while xb < width {
                    let bw = min(bw0, width - xb)
                    let xbd = Double(xb)
                    let x0 = m0 * xbd + m1 * yd + m2
                    let y0 = m3 * xbd + m4 * yd + m5
                    let w0 = m6 * xbd + m7 * yd + m8
                    let vx0 = D4(repeating: x0), vy0 = D4(repeating: y0), vw0 = D4(repeating: w0)
                    /// The reference's `X`, `Y` for block columns `x1d` (no contraction into FMAs).
                    @inline(__always) func coordinates(_ x1d: D4) -> (SIMD4<Int32>, SIMD4<Int32>) {
                        var w = vw0 + vm6 * x1d
                        w = (tabScale / w).replacing(with: 0, where: w .== 0)
                        return (clampRound4((vx0 + vm0 * x1d) * w), clampRound4((vy0 + vm3 * x1d) * w))
                    }
                    var x1 = 0
                    while x1 < bw {
                        let chunkEnd = min(x1 + chunk, bw)
                        var p = plan
                        var x = x1
                        while x < chunkEnd {
                            let first = D4(repeating: Double(x))
                            let (xa, ya) = coordinates(first + lanesLo)
                            let (xc, yc) = coordinates(first + lanesHi)
                            let X = I8(lowHalf: xa, highHalf: xc), Y = I8(lowHalf: ya, highHalf: yc)
                            // Source cell (saturated to Int16 like OpenCV's XY map) and sub-pixel weights.
                            let sx = upper(lower(X &>> Int32(interBits), hi16), lo16)
                            let sy = upper(lower(Y &>> Int32(interBits), hi16), lo16)
                            let fx = X & 31, fy = Y & 31
                            let (w00, w01, w10, w11) = bilinearWeightsFixed(fx: fx, fy: fy)
                            // Each row's taps are read from the column pair (xl, xl + 1). Lane masks (−1 or 0) say
                            // which tap weighs on which column: tap 0 on the right one only when clamped onto the
                            // last column, tap 1 on the left one only when clamped onto column 0; with the zero
                            // border a tap outside the image weighs nowhere, and neither does a row outside it.
                            let xl = upper(lower(sx, sw2), zero)
                            let wTopL: I8, wTopR: I8, wBotL: I8, wBotR: I8
                            if zeroBorder {
                                let t0L = mask(sx .> minusOne) & mask(sx .< sw1)   // 0 ≤ sx ≤ sw − 2
                                let t0R = mask(sx .== sw1), t1L = mask(sx .== minusOne), t1R = t0L
                                let top = mask(sy .> minusOne) & mask(sy .< shV), bottom = mask(sy .> minusTwo) & mask(sy .< sh1)
                                wTopL = ((w00 & t0L) &+ (w01 & t1L)) & top
                                wTopR = ((w00 & t0R) &+ (w01 & t1R)) & top
                                wBotL = ((w10 & t0L) &+ (w11 & t1L)) & bottom
                                wBotR = ((w10 & t0R) &+ (w11 & t1R)) & bottom
                            } else {
                                let t0R = sx .>= sw1, t1L = sx .< zero
                                wTopL = w00.replacing(with: 0, where: t0R) &+ w01.replacing(with: 0, where: .!t1L)
                                wTopR = w00.replacing(with: 0, where: .!t0R) &+ w01.replacing(with: 0, where: t1L)
                                wBotL = w10.replacing(with: 0, where: t0R) &+ w11.replacing(with: 0, where: .!t1L)
                                wBotR = w10.replacing(with: 0, where: .!t0R) &+ w11.replacing(with: 0, where: t1L)
                            }
                            p[0] = wTopL; p[1] = wTopR; p[2] = wBotL; p[3] = wBotR
                            source.plan(top: upper(lower(sy, sh1), zero), bottom: upper(lower(sy &+ 1, sh1), zero), left: xl, into: p + 4)
                            p += perGroup
                            x += 8
                        }
                        p = plan
                        x = x1
                        while x < chunkEnd {
                            let wTopL = p[0], wTopR = p[1], wBotL = p[2], wBotR = p[3]
                            let (r, g, b) = source.taps(p + 4)
                            @inline(__always) func channel(_ t: (I8, I8, I8, I8)) -> I8 {
                                (t.0 &* wTopL &+ t.1 &* wTopR &+ t.2 &* wBotL &+ t.3 &* wBotR &+ half) &>> 15
                            }
                            let px = SIMD8<UInt32>(truncatingIfNeeded: channel(r) | channel(g) &<< 8 | channel(b) &<< 16)
                            let n = min(8, chunkEnd - x)
                            let dp = UnsafeMutableRawPointer(out + (y * width + xb + x) * 3)
                            if n == 8 && xb + x + 10 <= width {
                                // Two 16-byte stores of 12 bytes each; the 4 spare bytes land on the next two
                                // pixels of the row, written after them.
                                let v = unsafeBitCast(px, to: SIMD32<UInt8>.self)
                                let lo = SIMD16<UInt8>(v[0], v[1], v[2], v[4], v[5], v[6], v[8], v[9], v[10], v[12], v[13], v[14], 0, 0, 0, 0)
                                let hi = SIMD16<UInt8>(v[16], v[17], v[18], v[20], v[21], v[22], v[24], v[25], v[26], v[28], v[29], v[30],
                                                       0, 0, 0, 0)
                                dp.storeBytes(of: lo, toByteOffset: 0, as: SIMD16<UInt8>.self)
                                dp.storeBytes(of: hi, toByteOffset: 12, as: SIMD16<UInt8>.self)
                            } else {
                                // 4-byte stores whose spare byte lands on the next pixel (written after it), except
                                // for the row's last pixel.
                                for i in 0..<n {
                                    if i + 1 < n || xb + x + n < width {
                                        dp.storeBytes(of: px[i], toByteOffset: 3 * i, as: UInt32.self)
                                    } else {
                                        dp.storeBytes(of: UInt16(truncatingIfNeeded: px[i]), toByteOffset: 3 * i, as: UInt16.self)
                                        dp.storeBytes(of: UInt8(truncatingIfNeeded: px[i] >> 16), toByteOffset: 3 * i + 2, as: UInt8.self)
                                    }
                                }
                            }
                            p += perGroup
                            x += 8
                        }
                        x1 = chunkEnd
                    }
                    xb += bw0
                }
            }
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
