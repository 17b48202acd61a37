/// An 8-bit YUV 4:2:0 picture as video decoders deliver it (I420 / `AV_PIX_FMT_YUV420P`): a full-size
/// luma plane and two chroma planes of `⌈width/2⌉ × ⌈height/2⌉` samples, each with its own row stride,
/// in BT.601 limited range (luma 16…235, chroma 16…240).
///
/// An ``Image`` made from planes (``Image/init(yuv420:)``) is sampled by the crop of every landmark stage
/// straight from the planes, so a video frame's RGB is never computed for the pixels no crop reads.
/// RGB values are those of ``YUV420Planes/rgb(x:y:)``: libswscale's fixed-point conversion
/// (its unscaled YUV 4:2:0 → RGB24 converter, the one OpenCV's `VideoCapture` runs for H.264 video; see
/// ``YUVToRGB``), so crops are the bytes a crop of the swscale-converted frame would be.
///
/// Planes made with ``init(width:height:y:u:v:)`` are copied into memory of their own; BlazeVideo's decoder
/// wraps its frames' memory without copying and keeps it alive through `owner`.
public struct YUV420Planes: @unchecked Sendable {
    /// Luma size.
    public let width: Int
    public let height: Int
    /// Chroma plane size: `⌈width/2⌉ × ⌈height/2⌉`.
    public var chromaWidth: Int { (width + 1) / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }
    let y: UnsafePointer<UInt8>, u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>
    let yStride: Int, uStride: Int, vStride: Int
    /// Keeps the planes' memory alive (and immutable) as long as any copy of this value exists.
    private let owner: AnyObject

    /// Planes copied from tightly packed arrays: `y` has `width · height` bytes, `u` and `v` have
    /// `⌈width/2⌉ · ⌈height/2⌉` each.
    ///
    /// - Throws: ``ImageError/invalidSize(name:width:height:)``, ``ImageError/invalidBuffer(option:expected:actual:)``.
    public init(width: Int, height: Int, y: [UInt8], u: [UInt8], v: [UInt8]) throws {
        try Image.validateSize(width: width, height: height, name: "YUV420Planes(width:height:y:u:v:)")
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        for (name, plane, count) in [("y.count", y, width * height), ("u.count", u, cw * ch), ("v.count", v, cw * ch)] where plane.count != count {
            throw ImageError.invalidBuffer(option: name, expected: "\(count)", actual: "\(plane.count)")
        }
        let memory = PlaneMemory(count: y.count + 2 * u.count)
        memory.base.initialize(from: y, count: y.count)
        (memory.base + y.count).initialize(from: u, count: u.count)
        (memory.base + y.count + u.count).initialize(from: v, count: v.count)
        self.init(validatedWidth: width, height: height, y: memory.base, yStride: width, u: memory.base + y.count, uStride: cw,
                  v: memory.base + y.count + u.count, vStride: cw, owner: memory)
    }

    /// Planes in memory someone else owns (a decoder's frame), not copied: `owner` must keep it alive and
    /// unchanged. Strides are bytes per row, at least the plane's width.
    ///
    /// - Throws: ``ImageError/invalidSize(name:width:height:)``, ``ImageError/invalidBuffer(option:expected:actual:)``.
    package init(width: Int, height: Int, y: UnsafePointer<UInt8>, yStride: Int, u: UnsafePointer<UInt8>, uStride: Int,
                 v: UnsafePointer<UInt8>, vStride: Int, owner: AnyObject) throws {
        try Image.validateSize(width: width, height: height, name: "YUV420Planes")
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        for (name, stride, least, rows) in [("yStride", yStride, width, height), ("uStride", uStride, cw, ch), ("vStride", vStride, cw, ch)] {
            // Offsets into a plane are Int32 in the warp.
            guard stride >= least, stride * rows < Int(Int32.max) - 16 else {
                throw ImageError.invalidBuffer(option: name, expected: "\(least)…\((Int(Int32.max) - 16) / rows) bytes", actual: "\(stride)")
            }
        }
        self.init(validatedWidth: width, height: height, y: y, yStride: yStride, u: u, uStride: uStride, v: v, vStride: vStride, owner: owner)
    }

    private init(validatedWidth width: Int, height: Int, y: UnsafePointer<UInt8>, yStride: Int, u: UnsafePointer<UInt8>, uStride: Int,
                 v: UnsafePointer<UInt8>, vStride: Int, owner: AnyObject) {
        self.width = width
        self.height = height
        self.y = y
        self.yStride = yStride
        self.u = u
        self.uStride = uStride
        self.v = v
        self.vStride = vStride
        self.owner = owner
    }

    /// The RGB value of pixel `(x, y)` (chroma sample `(x/2, y/2)`), as ``YUVToRGB`` converts it.
    public func rgb(x: Int, y row: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        precondition(x >= 0 && x < width && row >= 0 && row < height, "YUV420Planes.rgb: (\(x), \(row)) outside \(width)×\(height)")
        let luma = YUVToRGB.luma(Int32(y[row * yStride + x]))
        let cu = Int32(u[row / 2 * uStride + x / 2]), cv = Int32(v[row / 2 * vStride + x / 2])
        return (YUVToRGB.clamp(luma + YUVToRGB.red(v: cv)), YUVToRGB.clamp(luma + YUVToRGB.green(u: cu, v: cv)),
                YUVToRGB.clamp(luma + YUVToRGB.blue(u: cu)))
    }

    /// All pixels as packed RGB (`width · height · 3` bytes), converted as ``rgb(x:y:)`` converts each.
    public func rgbPixels() -> [UInt8] {
        let w = width
        return [UInt8](unsafeUninitializedCapacity: w * height * 3) { out, initialized in
            let d = out.baseAddress!
            for row in 0..<height {
                let ys = y + row * yStride, us = u + row / 2 * uStride, vs = v + row / 2 * vStride
                let dst = d + row * w * 3
                var x = 0
                while x < w {
                    let cu = Int32(us[x / 2]), cv = Int32(vs[x / 2])
                    let red = YUVToRGB.red(v: cv), green = YUVToRGB.green(u: cu, v: cv), blue = YUVToRGB.blue(u: cu)
                    for k in x..<min(x + 2, w) {
                        let luma = YUVToRGB.luma(Int32(ys[k]))
                        dst[3 * k] = YUVToRGB.clamp(luma + red)
                        dst[3 * k + 1] = YUVToRGB.clamp(luma + green)
                        dst[3 * k + 2] = YUVToRGB.clamp(luma + blue)
                    }
                    x += 2
                }
            }
            initialized = w * height * 3
        }
    }
}

/// BT.601 limited-range YUV → RGB in libswscale's fixed point (`ff_yuv2rgb_c_init_tables` with the default
/// contrast, saturation and brightness; the arithmetic of its x86 YUV 4:2:0 → RGB24 converter): each term
/// is the high half of a 16 × 16-bit product of a sample scaled by 8 and a 13-bit coefficient, and the sums
/// are clamped to 0…255. The coefficients are `round(2^13 · c)` of `c` = 255/219 (luma), 1.596 (V → R),
/// 2.017 (U → B), −0.813 (V → G), −0.392 (U → G), as libswscale rounds them. Verified byte for byte against
/// libswscale by BlazeVideo (at run time, before it hands out planes, and in its tests).
public enum YUVToRGB {
    public static let lumaCoefficient: Int32 = 9539
    public static let lumaOffset: Int32 = 128
    public static let chromaOffset: Int32 = 1024
    public static let redFromV: Int32 = 13075
    public static let blueFromU: Int32 = 16525
    public static let greenFromV: Int32 = -6660
    public static let greenFromU: Int32 = -3209

    @inline(__always) public static func luma(_ y: Int32) -> Int32 { (((y &<< 3) &- lumaOffset) &* lumaCoefficient) &>> 16 }
    @inline(__always) public static func red(v: Int32) -> Int32 { (((v &<< 3) &- chromaOffset) &* redFromV) &>> 16 }
    @inline(__always) public static func blue(u: Int32) -> Int32 { (((u &<< 3) &- chromaOffset) &* blueFromU) &>> 16 }
    @inline(__always) public static func green(u: Int32, v: Int32) -> Int32 {
        ((((u &<< 3) &- chromaOffset) &* greenFromU) &>> 16) &+ ((((v &<< 3) &- chromaOffset) &* greenFromV) &>> 16)
    }
    @inline(__always) public static func clamp(_ x: Int32) -> UInt8 { UInt8(min(max(x, 0), 255)) }

    // The same on 8 lanes, for the warp.
    typealias Lanes = SIMD8<Int32>
    @inline(__always) static func luma(_ y: Lanes) -> Lanes { (((y &<< 3) &- lumaOffset) &* lumaCoefficient) &>> 16 }
    @inline(__always) static func red(v: Lanes) -> Lanes { (((v &<< 3) &- chromaOffset) &* redFromV) &>> 16 }
    @inline(__always) static func blue(u: Lanes) -> Lanes { (((u &<< 3) &- chromaOffset) &* blueFromU) &>> 16 }
    @inline(__always) static func green(u: Lanes, v: Lanes) -> Lanes {
        ((((u &<< 3) &- chromaOffset) &* greenFromU) &>> 16) &+ ((((v &<< 3) &- chromaOffset) &* greenFromV) &>> 16)
    }
    @inline(__always) static func clamp(_ x: Lanes) -> Lanes {
        pointwiseMin(pointwiseMax(x, Lanes(repeating: 0)), Lanes(repeating: 255))
    }
}

/// Memory for planes copied in, freed with the last copy of the planes.
private final class PlaneMemory {
    let base: UnsafeMutablePointer<UInt8>
    init(count: Int) { base = .allocate(capacity: max(count, 1)) }
    deinit { base.deallocate() }
}
