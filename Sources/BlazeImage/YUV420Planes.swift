/// An 8-bit YUV 4:2:0 picture as video decoders deliver it (I420 / `AV_PIX_FMT_YUV420P`): a full-size
/// luma plane and two chroma planes of `⌈width/2⌉ × ⌈height/2⌉` samples, each with its own row stride,
/// converted to RGB by ``conversion`` (BT.601 limited range unless the decoder says otherwise).
///
/// An ``Image`` made from planes (``Image/init(yuv420:)``) is sampled by the crop of every landmark stage
/// straight from the planes, so a video frame's RGB is never computed for the pixels no crop reads.
/// RGB values are those of ``YUV420Planes/rgb(x:y:)``: libswscale's fixed-point conversion (its unscaled
/// YUV 4:2:0 → RGB24 converter, the one OpenCV's `VideoCapture` runs for 8-bit 4:2:0 video; see
/// ``YUVToRGB``) with the stream's matrix and range, so crops are the bytes a crop of OpenCV's frame would be.
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
    /// How samples become RGB: the colour matrix and range (``YUVToRGB/bt601`` by default).
    public let conversion: YUVToRGB
    /// Keeps the planes' memory alive (and immutable) as long as any copy of this value exists.
    private let owner: AnyObject

    /// Planes copied from tightly packed arrays: `y` has `width · height` bytes, `u` and `v` have
    /// `⌈width/2⌉ · ⌈height/2⌉` each.
    ///
    /// - Throws: ``ImageError/invalidSize(name:width:height:)``, ``ImageError/invalidBuffer(option:expected:actual:)``.
    public init(width: Int, height: Int, y: [UInt8], u: [UInt8], v: [UInt8], conversion: YUVToRGB = .bt601) throws {
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
                  v: memory.base + y.count + u.count, vStride: cw, owner: memory, conversion: conversion)
    }

    /// Planes in memory someone else owns (a decoder's frame), not copied: `owner` must keep it alive and
    /// unchanged. Strides are bytes per row, at least the plane's width.
    ///
    /// - Throws: ``ImageError/invalidSize(name:width:height:)``, ``ImageError/invalidBuffer(option:expected:actual:)``.
    package init(width: Int, height: Int, y: UnsafePointer<UInt8>, yStride: Int, u: UnsafePointer<UInt8>, uStride: Int,
                 v: UnsafePointer<UInt8>, vStride: Int, owner: AnyObject, conversion: YUVToRGB = .bt601) throws {
        try Image.validateSize(width: width, height: height, name: "YUV420Planes")
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        for (name, stride, least, rows) in [("yStride", yStride, width, height), ("uStride", uStride, cw, ch), ("vStride", vStride, cw, ch)] {
            // Offsets into a plane are Int32 in the warp.
            guard stride >= least, stride * rows < Int(Int32.max) - 16 else {
                throw ImageError.invalidBuffer(option: name, expected: "\(least)…\((Int(Int32.max) - 16) / rows) bytes", actual: "\(stride)")
            }
        }
        self.init(validatedWidth: width, height: height, y: y, yStride: yStride, u: u, uStride: uStride, v: v, vStride: vStride,
                  owner: owner, conversion: conversion)
    }

    private init(validatedWidth width: Int, height: Int, y: UnsafePointer<UInt8>, yStride: Int, u: UnsafePointer<UInt8>, uStride: Int,
                 v: UnsafePointer<UInt8>, vStride: Int, owner: AnyObject, conversion: YUVToRGB) {
        self.width = width
        self.height = height
        self.y = y
        self.yStride = yStride
        self.u = u
        self.uStride = uStride
        self.v = v
        self.vStride = vStride
        self.owner = owner
        self.conversion = conversion
    }

    /// The RGB value of pixel `(x, y)` (chroma sample `(x/2, y/2)`), as ``YUVToRGB`` converts it.
    public func rgb(x: Int, y row: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        precondition(x >= 0 && x < width && row >= 0 && row < height, "YUV420Planes.rgb: (\(x), \(row)) outside \(width)×\(height)")
        let c = conversion
        let luma = c.luma(Int32(y[row * yStride + x]))
        let cu = Int32(u[row / 2 * uStride + x / 2]), cv = Int32(v[row / 2 * vStride + x / 2])
        return (YUVToRGB.clamp(luma + c.red(v: cv)), YUVToRGB.clamp(luma + c.green(u: cu, v: cv)), YUVToRGB.clamp(luma + c.blue(u: cu)))
    }

    /// All pixels as packed RGB (`width · height · 3` bytes), converted as ``rgb(x:y:)`` converts each.
    public func rgbPixels() -> [UInt8] {
        let w = width, c = conversion
        return [UInt8](unsafeUninitializedCapacity: w * height * 3) { out, initialized in
            let d = out.baseAddress!
            for row in 0..<height {
                let ys = y + row * yStride, us = u + row / 2 * uStride, vs = v + row / 2 * vStride
                let dst = d + row * w * 3
                var x = 0
                while x < w {
                    let cu = Int32(us[x / 2]), cv = Int32(vs[x / 2])
                    let red = c.red(v: cv), green = c.green(u: cu, v: cv), blue = c.blue(u: cu)
                    for k in x..<min(x + 2, w) {
                        let luma = c.luma(Int32(ys[k]))
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

/// YUV → RGB in libswscale's fixed point, the arithmetic of its unscaled YUV 4:2:0 → RGB24 converter (x86
/// SIMD, `yuv420_rgb24`), which is what OpenCV's `VideoCapture` runs on 8-bit 4:2:0 video of even
/// height: each term is the high half of a 16 × 16-bit product of a sample scaled by 8 and a 13-bit
/// coefficient, chroma is taken from the sample pair's own chroma sample (no interpolation), and the sums
/// are clamped to 0…255.
///
/// The coefficients are those `ff_yuv2rgb_c_init_tables` derives from a colour matrix (libswscale's
/// `sws_getCoefficients` table: `crv`, `cbu`, `cgu`, `cgv` in 16.16) and the range, with the default
/// brightness, contrast and saturation: limited range scales luma by 255/219 after subtracting 16, full
/// range scales chroma by 224/255; each coefficient is then `round(2^13 · c)`. ``bt601`` (limited range,
/// luma 16…235, chroma 16…240) is libswscale's default and what untagged video gets.
public struct YUVToRGB: Sendable, Equatable {
    public let lumaCoefficient: Int32
    public let lumaOffset: Int32
    public let redFromV: Int32
    public let blueFromU: Int32
    public let greenFromV: Int32
    public let greenFromU: Int32
    /// Chroma's centre, 128, with the 3 extra bits.
    public static let chromaOffset: Int32 = 1024

    /// The colour matrices libswscale knows (`sws_getCoefficients`), as `(crv, cbu, cgu, cgv)` in 16.16.
    public enum Matrix: Sendable {
        case bt601, bt709, fcc, smpte240m, bt2020
        public var inverseTable: (Int32, Int32, Int32, Int32) {
            switch self {
            case .bt601: return (104597, 132201, 25675, 53279)
            case .bt709: return (117489, 138438, 13975, 34925)
            case .fcc: return (104448, 132798, 24759, 53109)
            case .smpte240m: return (117579, 136230, 16907, 35559)
            case .bt2020: return (110013, 140363, 12277, 42626)
            }
        }
    }

    /// BT.601, limited range: libswscale's default, and what OpenCV applies to untagged video.
    public static let bt601 = YUVToRGB(matrix: .bt601, fullRange: false)

    public init(matrix: Matrix, fullRange: Bool) {
        self.init(inverseTable: matrix.inverseTable, fullRange: fullRange)
    }

    /// The converter for a colour matrix given as libswscale's `inv_table` (`crv`, `cbu`, `cgu`, `cgv` in 16.16,
    /// e.g. from `sws_getCoefficients`) and a range (`fullRange`: luma 0…255, else 16…235).
    public init(inverseTable t: (Int32, Int32, Int32, Int32), fullRange: Bool) {
        var crv = Int64(t.0), cbu = Int64(t.1), cgu = -Int64(t.2), cgv = -Int64(t.3)
        var cy: Int64 = 1 << 16, oy: Int64 = 0
        if fullRange {
            // Integer division truncating toward zero, as C's.
            crv = crv * 224 / 255
            cbu = cbu * 224 / 255
            cgu = cgu * 224 / 255
            cgv = cgv * 224 / 255
        } else {
            cy = cy * 255 / 219
            oy = 16 << 16
        }
        func round16(_ f: Int64) -> Int32 { Int32(min(max((f + (1 << 15)) >> 16, -0x8000), 0x7FFF)) }
        lumaCoefficient = round16(cy << 13)
        lumaOffset = round16(oy << 3)
        redFromV = round16(crv << 13)
        blueFromU = round16(cbu << 13)
        greenFromU = round16(cgu << 13)
        greenFromV = round16(cgv << 13)
    }

    @inline(__always) public func luma(_ y: Int32) -> Int32 { (((y &<< 3) &- lumaOffset) &* lumaCoefficient) &>> 16 }
    @inline(__always) public func red(v: Int32) -> Int32 { (((v &<< 3) &- YUVToRGB.chromaOffset) &* redFromV) &>> 16 }
    @inline(__always) public func blue(u: Int32) -> Int32 { (((u &<< 3) &- YUVToRGB.chromaOffset) &* blueFromU) &>> 16 }
    @inline(__always) public func green(u: Int32, v: Int32) -> Int32 {
        ((((u &<< 3) &- YUVToRGB.chromaOffset) &* greenFromU) &>> 16) &+ ((((v &<< 3) &- YUVToRGB.chromaOffset) &* greenFromV) &>> 16)
    }
    @inline(__always) public static func clamp(_ x: Int32) -> UInt8 { UInt8(min(max(x, 0), 255)) }

    // The same on 8 lanes, for the warp.
    typealias Lanes = SIMD8<Int32>
    @inline(__always) func luma(_ y: Lanes) -> Lanes { (((y &<< 3) &- lumaOffset) &* lumaCoefficient) &>> 16 }
    @inline(__always) func red(v: Lanes) -> Lanes { (((v &<< 3) &- YUVToRGB.chromaOffset) &* redFromV) &>> 16 }
    @inline(__always) func blue(u: Lanes) -> Lanes { (((u &<< 3) &- YUVToRGB.chromaOffset) &* blueFromU) &>> 16 }
    @inline(__always) func green(u: Lanes, v: Lanes) -> Lanes {
        ((((u &<< 3) &- YUVToRGB.chromaOffset) &* greenFromU) &>> 16) &+ ((((v &<< 3) &- YUVToRGB.chromaOffset) &* greenFromV) &>> 16)
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
