//  GamutMapTable.swift
//
//  A bit-exact re-implementation of the static gamut-mapping 3D LUT that FFmpeg 8's
//  libswscale (colour management: cms.c / csputils.c / lut3d.c, plus the EOTFs of
//  libavutil/csp.c) builds when a frame's colour tags differ from the output's.
//  Checked against libswscale 9.5.101 / libavutil 60.26.101 (FFmpeg 8.1.1).
//
//  Everything follows the same float/double types and the same order of operations
//  as the C code, and calls glibc's libm for the transcendental functions, so the
//  tables are identical to FFmpeg's on the same machine.
//
//  Table layout: 65 x 65 x 65 nodes, 3 UInt16 per node, index
//      ((b * 65 + g) * 65 + r) * 3 + channel      (channel 0 = R, 1 = G, 2 = B)
//  Node (r, g, b) holds the output for the input RGB (r, g, b) / 64 in the
//  source encoding; values are output-encoded RGB scaled to 0...65534 (65535 only on
//  rounding overshoot). `GamutMapTable.apply` maps 16-bit RGBA pixels through a table.

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Tags

/// Colour primaries, numbered like `AVColorPrimaries` / ITU-T H.273.
enum ColourPrimaries: Int32, Sendable {
    case bt709 = 1, bt470m = 4, bt470bg = 5, smpte170m = 6, smpte240m = 7, film = 8
    case bt2020 = 9, smpte428 = 10, smpte431 = 11, smpte432 = 12, jedecP22 = 22
}

/// Transfer characteristics, numbered like `AVColorTransferCharacteristic` / H.273.
enum TransferCharacteristic: Int32, Sendable {
    case bt709 = 1, gamma22 = 4, gamma28 = 5, smpte170m = 6, smpte240m = 7, linear = 8
    case log = 9, logSqrt = 10, iec61966_2_4 = 11, bt1361 = 12, iec61966_2_1 = 13
    case bt2020_10 = 14, bt2020_12 = 15, smpte2084 = 16, smpte428 = 17, aribStdB67 = 18

    /// FFmpeg has no display EOTF for the two logarithmic curves; such tags are rejected.
    var hasEOTF: Bool { self != .log && self != .logSqrt }
}

/// Gamut mapping intent, numbered like `SwsIntent`. FFmpeg's default is `.relativeColorimetric`.
enum GamutMappingIntent: Int32, Sendable {
    case perceptual = 0, relativeColorimetric = 1, saturation = 2, absoluteColorimetric = 3
}

/// A fraction with 32-bit terms, behaving like FFmpeg's `AVRational`.
struct Fraction: Equatable, Sendable {
    var num: Int32
    var den: Int32
    init(_ num: Int32, _ den: Int32 = 1) { self.num = num; self.den = den }

    /// `av_q2d`
    var doubleValue: Double { Double(num) / Double(den) }
}

/// A CIE 1931 xy chromaticity.
struct Chromaticity: Equatable, Sendable {
    var x: Fraction
    var y: Fraction
    init(x: Fraction, y: Fraction) { self.x = x; self.y = y }
}

/// Red, green and blue chromaticities of a gamut.
struct PrimaryChromaticities: Equatable, Sendable {
    var red: Chromaticity
    var green: Chromaticity
    var blue: Chromaticity
    init(red: Chromaticity, green: Chromaticity, blue: Chromaticity) {
        self.red = red; self.green = green; self.blue = blue
    }
}

/// Everything the colour mapper needs to know about one side of the conversion
/// (the equivalent of libswscale's `SwsColor`, without per-frame HDR metadata).
struct ColourDescription: Equatable, Sendable {
    var primaries: ColourPrimaries
    var transfer: TransferCharacteristic
    /// Display black and peak luminance in cd/m².
    var minLuminance: Fraction
    var maxLuminance: Fraction
    /// Gamut the content actually occupies (mastering display primaries); by default
    /// the encoding primaries themselves.
    var contentGamut: PrimaryChromaticities

    /// Description with the luminance range FFmpeg assumes for a frame without
    /// mastering-display metadata: black 0, peak 10000 (PQ), 1000 (HLG) or 203 cd/m².
    init(primaries: ColourPrimaries, transfer: TransferCharacteristic) {
        self.primaries = primaries
        self.transfer = transfer
        self.minLuminance = Fraction(0)
        switch transfer {
        case .smpte2084: maxLuminance = Fraction(10000)
        case .aribStdB67: maxLuminance = Fraction(1000)
        default: maxLuminance = Fraction(203)
        }
        contentGamut = primaries.coordinates.primaries
    }

    init(primaries: ColourPrimaries, transfer: TransferCharacteristic,
                minLuminance: Fraction, maxLuminance: Fraction,
                contentGamut: PrimaryChromaticities? = nil) {
        self.primaries = primaries
        self.transfer = transfer
        self.minLuminance = minLuminance
        self.maxLuminance = maxLuminance
        self.contentGamut = contentGamut ?? primaries.coordinates.primaries
    }

    /// What FFmpeg 8 (`ff_infer_colors`) assumes for an output frame with unset
    /// primaries and transfer (e.g. OpenCV's BGR24 frame), given this source.
    /// "Safe" SD/HD primaries are kept, anything else becomes BT.709; HDR (PQ/HLG)
    /// transfers become BT.709 at 0-203 cd/m², SDR transfers are kept with their range.
    var untaggedOutput: ColourDescription {
        var out = self
        switch primaries {
        case .bt709, .bt470m, .bt470bg, .smpte170m, .smpte240m:
            break
        default:
            out.primaries = .bt709
            out.contentGamut = ColourPrimaries.bt709.coordinates.primaries
        }
        switch transfer {
        case .smpte2084, .aribStdB67:
            out.transfer = .bt709
            out.minLuminance = Fraction(0)
            out.maxLuminance = Fraction(203)
        default:
            break
        }
        return out
    }
}

// MARK: - Primaries table (libavutil/csp.c values, stored as n / 100000)

struct PrimariesCoordinates: Sendable {
    var white: Chromaticity
    var primaries: PrimaryChromaticities
}

extension ColourPrimaries {
    /// Chromaticities of the primaries and the white point.
    var coordinates: PrimariesCoordinates {
        func xy(_ x: Int32, _ y: Int32) -> Chromaticity {
            Chromaticity(x: Fraction(x, 100_000), y: Fraction(y, 100_000))
        }
        let d65 = xy(31270, 32900), illuminantC = xy(31000, 31600), dci = xy(31400, 35100)
        let equalEnergy = Chromaticity(x: Fraction(1, 3), y: Fraction(1, 3))
        func make(_ w: Chromaticity, _ r: Chromaticity, _ g: Chromaticity, _ b: Chromaticity) -> PrimariesCoordinates {
            PrimariesCoordinates(white: w, primaries: PrimaryChromaticities(red: r, green: g, blue: b))
        }
        switch self {
        case .bt709:     return make(d65, xy(64000, 33000), xy(30000, 60000), xy(15000, 6000))
        case .bt470m:    return make(illuminantC, xy(67000, 33000), xy(21000, 71000), xy(14000, 8000))
        case .bt470bg:   return make(d65, xy(64000, 33000), xy(29000, 60000), xy(15000, 6000))
        case .smpte170m, .smpte240m:
                         return make(d65, xy(63000, 34000), xy(31000, 59500), xy(15500, 7000))
        case .smpte428:  return make(equalEnergy, xy(73500, 26500), xy(27400, 71800), xy(16700, 900))
        case .smpte431:  return make(dci, xy(68000, 32000), xy(26500, 69000), xy(15000, 6000))
        case .smpte432:  return make(d65, xy(68000, 32000), xy(26500, 69000), xy(15000, 6000))
        case .film:      return make(illuminantC, xy(68100, 31900), xy(24300, 69200), xy(14500, 4900))
        case .bt2020:    return make(d65, xy(70800, 29200), xy(17000, 79700), xy(13100, 4600))
        case .jedecP22:  return make(d65, xy(63000, 34000), xy(29500, 60500), xy(15500, 7700))
        }
    }
}

// MARK: - Fraction arithmetic (same reduction/approximation as libavutil/rational.c)

private func gcd64(_ a: Int64, _ b: Int64) -> Int64 {
    var (a, b) = (a, b)
    while b != 0 { (a, b) = (b, a % b) }
    return a
}

/// Reduces num/den, approximating by continued fractions when the result does not
/// fit in 32 bits (`av_reduce` with max = INT32_MAX).
private func reduced(_ num: Int64, _ den: Int64) -> Fraction {
    let limit = Int64(Int32.max)
    let negative = (num < 0) != (den < 0)
    var n = num.magnitude, d = den.magnitude
    let g = UInt64(gcd64(Int64(n), Int64(d)))
    if g != 0 { n /= g; d /= g }
    var p0: (Int64, Int64) = (0, 1), p1: (Int64, Int64) = (1, 0)
    if n <= UInt64(limit) && d <= UInt64(limit) {
        p1 = (Int64(n), Int64(d))
        d = 0
    }
    while d != 0 {
        var q = n / d
        let rest = n - d * q
        let p2n = Int64(bitPattern: q &* UInt64(bitPattern: p1.0) &+ UInt64(bitPattern: p0.0))
        let p2d = Int64(bitPattern: q &* UInt64(bitPattern: p1.1) &+ UInt64(bitPattern: p0.1))
        if p2n > limit || p2d > limit {
            if p1.0 != 0 { q = UInt64((limit - p0.0) / p1.0) }
            if p1.1 != 0 { q = min(q, UInt64((limit - p0.1) / p1.1)) }
            if d &* (2 &* q &* UInt64(p1.1) &+ UInt64(p0.1)) > n &* UInt64(p1.1) {
                p1 = (Int64(q) * p1.0 + p0.0, Int64(q) * p1.1 + p0.1)
            }
            break
        }
        p0 = p1
        p1 = (p2n, p2d)
        n = d
        d = rest
    }
    return Fraction(Int32(negative ? -p1.0 : p1.0), Int32(p1.1))
}

extension Fraction {
    static func * (a: Fraction, b: Fraction) -> Fraction {
        reduced(Int64(a.num) * Int64(b.num), Int64(a.den) * Int64(b.den))
    }
    static func / (a: Fraction, b: Fraction) -> Fraction { a * Fraction(b.den, b.num) }
    static func + (a: Fraction, b: Fraction) -> Fraction {
        reduced(Int64(a.num) * Int64(b.den) + Int64(b.num) * Int64(a.den), Int64(a.den) * Int64(b.den))
    }
    static func - (a: Fraction, b: Fraction) -> Fraction { a + Fraction(-b.num, b.den) }

    /// Three-way comparison like `av_cmp_q` (Int32.min when undefined, e.g. 0/0).
    static func compare(_ a: Fraction, _ b: Fraction) -> Int32 {
        let t = Int64(a.num) * Int64(b.den) - Int64(b.num) * Int64(a.den)
        if t != 0 { return Int32(truncatingIfNeeded: (t ^ Int64(a.den) ^ Int64(b.den)) >> 63) | 1 }
        if a.den != 0 && b.den != 0 { return 0 }
        if a.num != 0 && b.num != 0 { return (a.num >> 31) - (b.num >> 31) }
        return Int32.min
    }

    /// Equality that also treats 0/0 == 0/0 (`ff_q_equal`).
    static func same(_ a: Fraction, _ b: Fraction) -> Bool {
        (a.num == 0 && a.den == 0 && b.num == 0 && b.den == 0) || compare(a, b) == 0
    }
}

extension Chromaticity {
    /// X/Y of the colour with this chromaticity.
    var xOverY: Fraction { x / y }
    /// Z/Y of the colour with this chromaticity.
    var zOverY: Fraction { (Fraction(1, 1) - x - y) / y }
    func same(_ o: Chromaticity) -> Bool { Fraction.same(x, o.x) && Fraction.same(y, o.y) }
}

extension PrimaryChromaticities {
    func same(_ o: PrimaryChromaticities) -> Bool {
        red.same(o.red) && green.same(o.green) && blue.same(o.blue)
    }

    /// True when every primary of `inner` lies inside (or on) this triangle.
    func contains(_ inner: PrimaryChromaticities) -> Bool {
        func side(_ p: Chromaticity, _ a: Chromaticity, _ b: Chromaticity) -> Int32 {
            Fraction.compare((p.x - b.x) * (a.y - b.y), (a.x - b.x) * (p.y - b.y))
        }
        func inside(_ p: Chromaticity) -> Bool {
            let d = [side(p, red, green), side(p, green, blue), side(p, blue, red)]
            let hasNegative = d.contains { $0 < 0 }, hasPositive = d.contains { $0 > 0 }
            return !(hasNegative && hasPositive)
        }
        return inside(inner.red) && inside(inner.green) && inside(inner.blue)
    }
}

// MARK: - 3x3 single-precision matrices (csputils.c)

struct Matrix3 {
    var m00: Float, m01: Float, m02: Float
    var m10: Float, m11: Float, m12: Float
    var m20: Float, m21: Float, m22: Float

    init(_ m00: Float, _ m01: Float, _ m02: Float,
         _ m10: Float, _ m11: Float, _ m12: Float,
         _ m20: Float, _ m21: Float, _ m22: Float) {
        self.m00 = m00; self.m01 = m01; self.m02 = m02
        self.m10 = m10; self.m11 = m11; self.m12 = m12
        self.m20 = m20; self.m21 = m21; self.m22 = m22
    }

    static let zero = Matrix3(0, 0, 0, 0, 0, 0, 0, 0, 0)

    /// self * v, each row summed left to right.
    @inline(__always)
    func apply(_ x: Float, _ y: Float, _ z: Float) -> (Float, Float, Float) {
        (m00 * x + m01 * y + m02 * z,
         m10 * x + m11 * y + m12 * z,
         m20 * x + m21 * y + m22 * z)
    }

    /// self * b
    func times(_ b: Matrix3) -> Matrix3 {
        func row(_ a0: Float, _ a1: Float, _ a2: Float) -> (Float, Float, Float) {
            (a0 * b.m00 + a1 * b.m10 + a2 * b.m20,
             a0 * b.m01 + a1 * b.m11 + a2 * b.m21,
             a0 * b.m02 + a1 * b.m12 + a2 * b.m22)
        }
        let r0 = row(m00, m01, m02), r1 = row(m10, m11, m12), r2 = row(m20, m21, m22)
        return Matrix3(r0.0, r0.1, r0.2, r1.0, r1.1, r1.2, r2.0, r2.1, r2.2)
    }

    /// Inverse via the adjugate, evaluated in double precision.
    var inverse: Matrix3 {
        let a = Double(m00), b = Double(m01), c = Double(m02)
        let d = Double(m10), e = Double(m11), f = Double(m12)
        let g = Double(m20), h = Double(m21), k = Double(m22)
        let i00 =  (e * k - h * f)
        let i01 = -(b * k - h * c)
        let i02 =  (b * f - e * c)
        let i10 = -(d * k - g * f)
        let i11 =  (a * k - g * c)
        let i12 = -(a * f - d * c)
        let i20 =  (d * h - g * e)
        let i21 = -(a * h - g * b)
        let i22 =  (a * e - d * b)
        let det = 1.0 / (a * i00 + d * i01 + g * i02)
        return Matrix3(Float(det * i00), Float(det * i01), Float(det * i02),
                       Float(det * i10), Float(det * i11), Float(det * i12),
                       Float(det * i20), Float(det * i21), Float(det * i22))
    }
}

/// RGB -> XYZ for the given primaries, normalised so that white has Y = 1 (no adaptation).
func rgbToXYZ(_ p: PrimaryChromaticities, white: Chromaticity) -> Matrix3 {
    let X0 = Float(p.red.xOverY.doubleValue), X1 = Float(p.green.xOverY.doubleValue), X2 = Float(p.blue.xOverY.doubleValue)
    let Z0 = Float(p.red.zOverY.doubleValue), Z1 = Float(p.green.zOverY.doubleValue), Z2 = Float(p.blue.zOverY.doubleValue)
    let Xw = Float(white.xOverY.doubleValue), Zw = Float(white.zOverY.doubleValue)
    let inv = Matrix3(X0, X1, X2, 1, 1, 1, Z0, Z1, Z2).inverse
    // Scale of each primary so that R = G = B = 1 gives the white point.
    let S0 = inv.m00 * Xw + inv.m01 + inv.m02 * Zw
    let S1 = inv.m10 * Xw + inv.m11 + inv.m12 * Zw
    let S2 = inv.m20 * Xw + inv.m21 + inv.m22 * Zw
    return Matrix3(S0 * X0, S1 * X1, S2 * X2,
                   S0, S1, S2,
                   S0 * Z0, S1 * Z1, S2 * Z2)
}

/// CAT16 cone response matrix and its (rounded) inverse.
private let cat16 = Matrix3( 0.401288,  0.650173, -0.051461,
                            -0.250268,  1.204414,  0.045854,
                            -0.002079,  0.048952,  0.953127)
private let cat16Inverse = Matrix3( 1.862068, -1.011255,  0.149187,
                                    0.387527,  0.621447, -0.008974,
                                   -0.015841, -0.034123,  1.049964)

/// Returns `mat` * (von Kries adaptation in CAT16 space from `from` to `to`).
private func adapting(_ mat: Matrix3, from: Chromaticity, to: Chromaticity) -> Matrix3 {
    let sX = Float(from.xOverY.doubleValue), sZ = Float(from.zOverY.doubleValue)
    let dX = Float(to.xOverY.doubleValue), dZ = Float(to.zOverY.doubleValue)
    if from.same(to) { return mat }
    let c = cat16
    let s0 = c.m00 * sX + c.m01 * 1 + c.m02 * sZ, d0 = c.m00 * dX + c.m01 * 1 + c.m02 * dZ
    let s1 = c.m10 * sX + c.m11 * 1 + c.m12 * sZ, d1 = c.m10 * dX + c.m11 * 1 + c.m12 * dZ
    let s2 = c.m20 * sX + c.m21 * 1 + c.m22 * sZ, d2 = c.m20 * dX + c.m21 * 1 + c.m22 * dZ
    let gain = Matrix3(d0 / s0, 0, 0, 0, d1 / s1, 0, 0, 0, d2 / s2).times(cat16)
    return mat.times(cat16Inverse).times(gain)
}

/// RGB -> RGB matrix that moves colours of these primaries from white `from` to white `to`.
func whitePointAdaptation(_ p: PrimaryChromaticities, from: Chromaticity, to: Chromaticity) -> Matrix3 {
    let toXYZ = rgbToXYZ(p, white: from)
    let fromXYZ = adapting(toXYZ.inverse, from: from, to: to)
    return fromXYZ.times(toXYZ)
}

private let whiteD65 = Chromaticity(x: Fraction(3127, 10000), y: Fraction(3290, 10000))

/// Hunt-Pointer-Estevez XYZ -> LMS (D65).
private let huntPointerEstevez = Matrix3( 0.40024, 0.70760, -0.08081,
                                         -0.22630, 1.16532,  0.04570,
                                          0.00000, 0.00000,  0.91822)

/// Linear RGB (cd/m²) -> LMS for the IPT model: 4 % crosstalk, HPE, adaptation to D65.
func rgbToLMS(_ p: PrimaryChromaticities, white: Chromaticity) -> Matrix3 {
    let c: Float = 0.04
    let crosstalk = Matrix3(1 - 2 * c, c, c,
                            c, 1 - 2 * c, c,
                            c, c, 1 - 2 * c)
    let m = adapting(crosstalk.times(huntPointerEstevez), from: white, to: whiteD65)
    return m.times(rgbToXYZ(p, white: white))
}

// MARK: - Transfer functions (libavutil/csp.c, double precision)

private func srgbOETF(_ l: Double) -> Double {
    let a = 1.055, b = 0.0031308
    return 0.0 > l ? 0.0 : (b > l ? 12.92 * l : a * pow(l, 1.0 / 2.4) - (a - 1.0))
}

private func srgbOETFInverse(_ e: Double) -> Double {
    let a = 1.055, b = 12.92 * 0.0031308
    return 0.0 > e ? 0.0 : (b > e ? e / 12.92 : pow((e + (a - 1.0)) / a, 2.4))
}

// SMPTE ST 2084 constants
private let pqC1 = 3424.0 / 4096.0
private let pqC2 = 32.0 * 2413.0 / 4096.0
private let pqC3 = 32.0 * 2392.0 / 4096.0
private let pqM = 128.0 * 2523.0 / 4096.0
private let pqN = 0.25 * 2610.0 / 4096.0

/// PQ inverse EOTF: cd/m² -> signal.
private func pqEncode(_ lc: Double) -> Double {
    let ln = pow(lc / 10000.0, pqN)
    return 0.0 > lc ? 0.0 : pow((pqC1 + pqC2 * ln) / (1.0 + pqC3 * ln), pqM)
}

/// PQ EOTF: signal -> cd/m².
private func pqDecode(_ e: Double) -> Double {
    let em = pow(e, 1.0 / pqM)
    return pqC1 > em ? 0.0 : 10000.0 * pow((em - pqC1) / (pqC2 - pqC3 * em), 1.0 / pqN)
}

private let hlgA = 0.17883277, hlgB = 0.28466892, hlgC = 0.55991073

/// HLG OETF with peak white at 1.0.
private func hlgOETF(_ l: Double) -> Double {
    0.0 > l ? 0.0 : (l <= 1.0 / 12.0 ? sqrt(3.0 * l) : hlgA * log(12.0 * l - hlgB) + hlgC)
}

private func hlgOETFInverse(_ e: Double) -> Double {
    0.0 > e ? 0.0 : (e <= 0.5 ? e * e / 3.0 : (exp((e - hlgC) / hlgA) + hlgB) / 12.0)
}

private let dciL = 48.00, dciP = 52.37
private let dciX = 42.94 / 48.00, dciZ = 45.82 / 48.00

typealias RGBDouble = (Double, Double, Double)

@inline(__always)
private func each(_ v: inout RGBDouble, _ f: (Double) -> Double) {
    v = (f(v.0), f(v.1), f(v.2))
}

extension TransferCharacteristic {
    /// Display EOTF: signal (0...1) -> cd/m² on a display with black `lb` and white `lw`.
    func decode(_ v: inout RGBDouble, lw: Double, lb: Double) {
        switch self {
        case .bt709, .smpte170m, .smpte240m, .iec61966_2_4, .bt1361, .bt2020_10, .bt2020_12:
            // BT.1886
            let lwRoot = pow(lw, 1.0 / 2.4), lbRoot = pow(lb, 1.0 / 2.4)
            let a = pow(lwRoot - lbRoot, 2.4), b = lbRoot / (lwRoot - lbRoot)
            each(&v) { -b > $0 ? 0.0 : a * pow($0 + b, 2.4) }
        case .gamma22:
            each(&v) { 0.0 > $0 ? 0.0 : pow($0, 2.2) }
            each(&v) { (lw - lb) * $0 + lb }
        case .gamma28:
            each(&v) { 0.0 > $0 ? 0.0 : pow($0, 2.8) }
            each(&v) { (lw - lb) * $0 + lb }
        case .iec61966_2_1:
            each(&v, srgbOETFInverse)
            each(&v) { (lw - lb) * $0 + lb }
        case .linear:
            each(&v) { (lw - lb) * $0 + lb }
        case .smpte2084:
            each(&v, pqDecode)
        case .smpte428:
            // DCI reference projector, per-channel white/black (X, Y, Z)
            func one(_ e: Double, _ scale: Double) -> Double {
                let w = scale * lw, k = scale * lb
                let l = 0.0 > e ? 0.0 : pow(e, 2.6) * dciP / dciL
                return l * (w - k) + k
            }
            v = (one(v.0, dciX), one(v.1, 1.0), one(v.2, dciZ))
        case .aribStdB67:
            let gamma = fmax(1.2 + 0.42 * log10(lw / 1000.0), 1.0)
            let beta = sqrt(3 * pow(lb / lw, 1.0 / gamma))
            each(&v) { hlgOETFInverse((1 - beta) * $0 + beta) }
            var luma = 0.2627 * v.0 + 0.6780 * v.1 + 0.0593 * v.2
            luma = pow(fmax(luma, 0.0), gamma - 1.0)
            each(&v) { $0 * (lw * luma) }
        case .log, .logSqrt:
            v = (.nan, .nan, .nan)
        }
    }

    /// Inverse display EOTF: cd/m² -> signal.
    func encode(_ v: inout RGBDouble, lw: Double, lb: Double) {
        switch self {
        case .bt709, .smpte170m, .smpte240m, .iec61966_2_4, .bt1361, .bt2020_10, .bt2020_12:
            let lwRoot = pow(lw, 1.0 / 2.4), lbRoot = pow(lb, 1.0 / 2.4)
            let a = pow(lwRoot - lbRoot, 2.4), b = lbRoot / (lwRoot - lbRoot)
            each(&v) { 0.0 > $0 ? 0.0 : pow($0 / a, 1.0 / 2.4) - b }
        case .gamma22:
            each(&v) { ($0 - lb) / (lw - lb) }
            each(&v) { 0.0 > $0 ? 0.0 : pow($0, 1.0 / 2.2) }
        case .gamma28:
            each(&v) { ($0 - lb) / (lw - lb) }
            each(&v) { 0.0 > $0 ? 0.0 : pow($0, 1.0 / 2.8) }
        case .iec61966_2_1:
            each(&v) { ($0 - lb) / (lw - lb) }
            each(&v, srgbOETF)
        case .linear:
            each(&v) { ($0 - lb) / (lw - lb) }
        case .smpte2084:
            each(&v, pqEncode)
        case .smpte428:
            func one(_ l: Double, _ scale: Double) -> Double {
                let w = scale * lw, k = scale * lb
                let n = (l - k) / (w - k)
                return 0.0 > n ? 0.0 : pow(n * dciL / dciP, 1.0 / 2.6)
            }
            v = (one(v.0, dciX), one(v.1, 1.0), one(v.2, dciZ))
        case .aribStdB67:
            let gamma = fmax(1.2 + 0.42 * log10(lw / 1000.0), 1.0)
            let beta = sqrt(3 * pow(lb / lw, 1 / gamma))
            let luma = 0.2627 * v.0 + 0.6780 * v.1 + 0.0593 * v.2
            if luma > 0.0 {
                let scale = pow(luma / lw, (1 - gamma) / gamma)
                each(&v) { $0 * (scale / lw) }
            } else {
                v = (0, 0, 0)
            }
            each(&v) { (hlgOETF($0) - beta) / (1 - beta) }
        case .log, .logSqrt:
            v = (.nan, .nan, .nan)
        }
    }
}

// MARK: - Single-precision PQ used by the IPT model (csputils.h)

private let pqM1f = Float(2610.0 / 4096 * 1.0 / 4)
private let pqM2f = Float(2523.0 / 4096 * 128)
private let pqC1f = Float(3424.0 / 4096)
private let pqC2f = Float(2413.0 / 4096 * 32)
private let pqC3f = Float(2392.0 / 4096 * 32)

/// cd/m² -> PQ signal, in float.
@inline(__always)
func pqOETF(_ v: Float) -> Float {
    var x = powf(fmaxf(v * 1e-4, 0.0), pqM1f)
    x = (pqC1f + pqC2f * x) / (1.0 + pqC3f * x)
    return powf(x, pqM2f)
}

/// PQ signal -> cd/m², linearly interpolated from a 1024-interval table.
@inline(__always)
func pqEOTF(_ v: Float) -> Float {
    let lowClipped: Float = v > 0 ? v : 0
    let clipped: Float = lowClipped > 1 ? 1 : lowClipped
    let position = clipped * 1023
    let index = Int(floorf(position))
    let fraction = position - Float(index)
    return pqTable.withUnsafeBufferPointer { t in
        t[index + 1] * fraction + t[index] * (1 - fraction)
    }
}

// MARK: - IPT colour model (cms.c)

struct IPT { var i: Float, p: Float, t: Float }
struct ICh { var i: Float, c: Float, h: Float }

@inline(__always) private func toICh(_ v: IPT) -> ICh {
    ICh(i: v.i, c: (v.p * v.p + v.t * v.t).squareRoot(), h: atan2f(v.t, v.p))
}

@inline(__always) private func toIPT(_ v: ICh) -> IPT {
    IPT(i: v.i, p: v.c * cosf(v.h), t: v.c * sinf(v.h))
}

/// Linear RGB (cd/m²) -> IPT, through the given RGB -> LMS matrix.
@inline(__always) private func rgbToIPT(_ r: Float, _ g: Float, _ b: Float, _ toLMS: Matrix3) -> IPT {
    let (l, m, s) = toLMS.apply(r, g, b)
    let lp = pqOETF(l), mp = pqOETF(m), sp = pqOETF(s)
    return IPT(i: 0.4000 * lp + 0.4000 * mp + 0.2000 * sp,
               p: 4.4550 * lp - 4.8510 * mp + 0.3960 * sp,
               t: 0.8056 * lp + 0.3572 * mp - 1.1628 * sp)
}

/// IPT -> non-linear L'M'S'.
@inline(__always) private func lmsPrime(_ v: IPT) -> (Float, Float, Float) {
    (v.i + 0.0975689 * v.p + 0.205226 * v.t,
     v.i - 0.1138760 * v.p + 0.133217 * v.t,
     v.i + 0.0326151 * v.p - 0.676887 * v.t)
}

/// IPT -> linear RGB (cd/m²), through the given LMS -> RGB matrix.
@inline(__always) private func iptToRGB(_ v: IPT, _ fromLMS: Matrix3) -> (Float, Float, Float) {
    let (lp, mp, sp) = lmsPrime(v)
    return fromLMS.apply(pqEOTF(lp), pqEOTF(mp), pqEOTF(sp))
}

/// One side of the mapping with its derived matrices and intensity limits.
struct GamutModel {
    var encodingToLMS: Matrix3
    var lmsToEncoding: Matrix3
    var lmsToContent: Matrix3
    var contentToLMS: Matrix3
    var transfer: TransferCharacteristic
    var iMin: Float, iMax: Float   // PQ-encoded black / white
    var lb: Float, lw: Float       // black / white in cd/m²
    var white: Chromaticity
    var contentGamut: PrimaryChromaticities
    /// Most saturated in-gamut colour for the hue being processed.
    var peak = ICh(i: 0, c: 0, h: 0)

    init(_ d: ColourDescription) {
        let encoding = d.primaries.coordinates
        lw = Float(d.maxLuminance.doubleValue)
        lb = Float(d.minLuminance.doubleValue)
        encodingToLMS = rgbToLMS(encoding.primaries, white: encoding.white)
        lmsToEncoding = rgbToLMS(encoding.primaries, white: encoding.white).inverse
        lmsToContent = rgbToLMS(d.contentGamut, white: encoding.white).inverse
        contentToLMS = rgbToLMS(d.contentGamut, white: encoding.white)
        transfer = d.transfer
        white = encoding.white
        contentGamut = d.contentGamut
        iMin = pqOETF(lb)
        iMax = pqOETF(lw)
    }

    /// Whether an IPT colour is displayable (with small tolerances) in this gamut.
    @inline(__always)
    func contains(_ v: IPT) -> Bool {
        let low = lb - 1e-4, high = lw + 1e-2
        let (lp, mp, sp) = lmsPrime(v)
        if lp < iMin || lp > iMax || mp < iMin || mp > iMax || sp < iMin || sp > iMax {
            return false
        }
        let (r, g, b) = lmsToContent.apply(pqEOTF(lp), pqEOTF(mp), pqEOTF(sp))
        return r >= low && r <= high && g >= low && g <= high && b >= low && b <= high
    }
}

private let maxDelta: Float = 5e-5

/// Bisects chroma in [cMin, cMax] for the gamut boundary at intensity `i` and hue `h`.
private func boundaryChroma(_ i: Float, _ h: Float, _ cMin: Float, _ cMax: Float, _ g: GamutModel) -> ICh {
    if i <= g.iMin { return ICh(i: g.iMin, c: 0, h: h) }
    if i >= g.iMax { return ICh(i: g.iMax, c: 0, h: h) }
    var lo = cMin, hi = cMax
    let tolerance = i * maxDelta
    var result = ICh(i: i, c: (lo + hi) / 2, h: h)
    // Halving a float interval ends within about 150 steps; the bound only stops an interval whose midpoint
    // rounds to its end (tolerance below the floats' spacing, from values no display has) from looping forever.
    var steps = 0
    repeat {
        if g.contains(toIPT(result)) { lo = result.c } else { hi = result.c }
        result.c = (lo + hi) / 2
        steps += 1
    } while hi - lo > tolerance && steps < 400
    return result
}

/// Golden-section search for the most saturated in-gamut colour of hue `hue`.
private func mostSaturated(_ hue: Float, _ g: GamutModel) -> ICh {
    let invPhi: Float = 0.6180339887498948
    let invPhi2: Float = 0.38196601125010515
    var lo = ICh(i: g.iMin, c: 0, h: hue)
    var hi = ICh(i: g.iMax, c: 0, h: hue)
    var span = hi.i - lo.i
    var a = boundaryChroma(lo.i + invPhi2 * span, hue, 0, 0.5, g)
    var b = boundaryChroma(lo.i + invPhi * span, hue, 0, 0.5, g)
    while span > maxDelta {
        span *= invPhi
        if a.c > b.c {
            hi = b
            b = a
            a = boundaryChroma(lo.i + invPhi2 * span, hue, lo.c - maxDelta, 0.5, g)
        } else {
            lo = a
            a = b
            b = boundaryChroma(lo.i + invPhi * span, hue, hi.c - maxDelta, 0.5, g)
        }
    }
    return a.c > b.c ? a : b
}

/// Möbius soft clip of `value` towards `target`, for a channel maximum `source`.
private func softClip(_ value: Float, _ source: Float, _ target: Float) -> Float {
    let j: Float = 0.70
    if target == 0 { return 0 }
    let peak = source / target
    let x = fminf(value / target, peak)
    if x <= j || peak <= 1.0 { return value }
    let a = -j * j * (peak - 1.0) / (j * j - 2.0 * j + peak)
    let b = (j * j - 2.0 * j * peak + peak) / fmaxf(1e-6, peak - 1.0)
    let scale = (b * b + 2.0 * b * j + j * j) / (b - a)
    return scale * (x + a) / (x + b) * target
}

/// Moves `c` towards `base` intensity along an exponential curve while scaling chroma by `x`.
@inline(__always)
private func curveMix(_ c: ICh, _ x: Float, _ gamma: Float, _ base: Float) -> ICh {
    ICh(i: base + (c.i - base) * powf(x, gamma), c: c.c * x, h: c.h)
}

/// Colorimetric clip: pulls an out-of-gamut colour towards the hue's peak along a gamma curve.
private func clipToGamut(_ v: IPT, _ gamma0: Float, _ g: GamutModel) -> IPT {
    var lo: Float = 0, hi: Float = 1, x: Float = 0.5
    let tolerance = fmaxf(v.i * maxDelta, 1e-7)
    if v.i <= g.iMin { return IPT(i: g.iMin, p: 0, t: 0) }
    if g.contains(v) { return v }
    let ich = toICh(v)
    if gamma0 == 0 {
        return toIPT(boundaryChroma(ich.i, ich.h, 0, ich.c, g))
    }
    // Flatten the curve near black and for weakly saturated colours.
    let relative = fmaxf((ich.i - g.iMin) / (g.peak.i - g.iMin), 0)
    let gamma = gamma0 * powf(relative, 3) * fminf(ich.c / g.peak.c, 1)
    repeat {
        if g.contains(toIPT(curveMix(ich, x, gamma, g.peak.i))) { lo = x } else { hi = x }
        x = (lo + hi) / 2.0
    } while hi - lo > tolerance
    return toIPT(curveMix(ich, x, gamma, g.peak.i))
}

@inline(__always) private func mix(_ a: Float, _ b: Float, _ x: Float) -> Float { b * x + a * (1 - x) }

@inline(__always) private func clamp(_ v: Float, _ lo: Float, _ hi: Float) -> Float {
    let t = v > lo ? v : lo
    return t > hi ? hi : t
}

private func smoothStep(_ e0: Float, _ e1: Float, _ v: Float) -> Float {
    if e0 == e1 { return v >= e0 ? 1 : 0 }
    let x = clamp((v - e0) / (e1 - e0), 0, 1)
    return x * x * (3.0 - 2.0 * x)
}

/// `av_round16f`: 0...1 -> 0...65534, with C's float->int conversion and uint16 clipping.
@inline(__always)
private func quantise(_ v: Float) -> UInt16 {
    let scaled = v * 65534 + 0.5
    let i: Int32 = (scaled.isNaN || scaled >= 2147483648 || scaled < -2147483648) ? .min : Int32(scaled)
    if i & ~0xFFFF != 0 { return i < 0 ? 0 : 0xFFFF }
    return UInt16(i)
}

// MARK: - Tone mapping and gamut mapping (static, whole-stream parameters)

/// Static intensity curve and per-intent gamut adaptation; one copy per worker
/// because the hue peaks are updated for every node.
private struct Mapper {
    var src: GamutModel
    var dst: GamutModel
    var tmp: GamutModel      // source gamut at destination luminance (after tone mapping)
    let intent: GamutMappingIntent
    var adaptation = Matrix3.zero   // absolute intent only
    // perceptual curve
    var pa: Float = 0, pb: Float = 0, qa: Float = 0, qb: Float = 0, qc: Float = 0
    var srcKnee: Float = 0, dstKnee: Float = 0
    // linear intents
    var scale: Float = 0, offset: Float = 0

    init(source: ColourDescription, destination: ColourDescription, intent: GamutMappingIntent) {
        src = GamutModel(source)
        dst = GamutModel(destination)
        tmp = src
        self.intent = intent
        let dstMin = dst.iMin, dstMax = dst.iMax, srcMin = src.iMin, srcMax = src.iMax
        switch intent {
        case .perceptual:
            pickKnees(srcMax: srcMax, srcMin: srcMin, srcAvg: 0, dstMax: dstMax, dstMin: dstMin)
            var slope = (dstKnee - dstMin) / (srcKnee - srcMin)
            var ratio: Float = srcMax / dstMax - 1.0
            let slopeTuning: Float = 1.50, slopeOffset: Float = 0.20, contrast: Float = 0.50
            ratio = clamp(slopeTuning * ratio, slopeOffset, 1.0 + slopeOffset)
            slope = powf(slope, (1.0 - contrast) * ratio)
            let inMin = srcMin - srcKnee, inMax = srcMax - srcKnee
            let outMin = dstMin - dstKnee, outMax = dstMax - dstKnee
            // quadratic below the knee, cubic above it
            pa = (outMin - slope * inMin) / (inMin * inMin)
            pb = slope
            let t = 2 * inMax * inMax
            qa = (slope * inMax - outMax) / (inMax * t)
            qb = -3 * (slope * inMax - outMax) / t
            qc = slope
        case .saturation:
            scale = (dstMax - dstMin) / (srcMax - srcMin)
            offset = dstMin - srcMin * scale
        case .relativeColorimetric:
            scale = srcMax / (srcMax - srcMin) / (dstMax / (dstMax - dstMin))
            offset = dstMin - srcMin * scale
        case .absoluteColorimetric:
            scale = 1.0
            offset = 0.0
        }
        tmp.lb = dst.lb; tmp.lw = dst.lw
        tmp.iMin = dst.iMin; tmp.iMax = dst.iMax
        if intent == .absoluteColorimetric {
            adaptation = whitePointAdaptation(destination.contentGamut, from: dst.white, to: src.white)
        }
    }

    /// Knee points of the perceptual curve (after SMPTE ST 2094-10).
    private mutating func pickKnees(srcMax: Float, srcMin: Float, srcAvg: Float, dstMax: Float, dstMin: Float) {
        let minKnee: Float = 0.10, maxKnee: Float = 0.80, defKnee: Float = 0.40, adaptationStrength: Float = 0.40
        let srcKneeMin = mix(srcMin, srcMax, minKnee), srcKneeMax = mix(srcMin, srcMax, maxKnee)
        let dstKneeMin = mix(dstMin, dstMax, minKnee), dstKneeMax = mix(dstMin, dstMax, maxKnee)
        var sk = srcAvg != 0 ? srcAvg : mix(srcMin, srcMax, defKnee)
        sk = clamp(sk, srcKneeMin, srcKneeMax)
        let target = (sk - srcMin) / (srcMax - srcMin)
        let adapted = mix(dstMin, dstMax, target)
        let tuning = smoothStep(maxKnee, defKnee, target) * smoothStep(minKnee, defKnee, target)
        let strength = mix(1.0, adaptationStrength, tuning)
        var dk = mix(sk, adapted, strength)
        dk = clamp(dk, dstKneeMin, dstKneeMax)
        srcKnee = sk
        dstKnee = dk
    }

    @inline(__always)
    private func hull(_ i: Float) -> Float { ((i - 6.0) * i + 9.0) * i }

    /// Intensity curve plus the matching chroma scaling.
    private func toneMap(_ v: IPT) -> IPT {
        var i = v.i
        if intent == .perceptual {
            i -= srcKnee
            i = i > 0 ? ((qa * i + qb) * i + qc) * i : (pa * i + pb) * i
            i += dstKnee
        } else {
            i = scale * i + offset
        }
        let desat = fminf(v.i / i, hull(i) / hull(v.i))
        return IPT(i: i, p: v.p * desat, t: v.t * desat)
    }

    private func adaptColours(_ v: IPT) -> IPT {
        let gamma: Float = 1.80
        switch intent {
        case .perceptual:
            let ich = toICh(v)
            let (r0, g0, b0) = iptToRGB(v, tmp.lmsToContent)
            let mapped = rgbToIPT(r0, g0, b0, dst.contentToLMS)
            let maxC = fmaxf(tmp.peak.c, dst.peak.c)
            var k = smoothStep(0.30, 1.0, ich.c / maxC)
            k *= 0.80
            let blended = IPT(i: mix(v.i, mapped.i, k), p: mix(v.p, mapped.p, k), t: mix(v.t, mapped.t, k))
            var (r, g, b) = iptToRGB(blended, dst.lmsToContent)
            let maxRGB = fmaxf(r, fmaxf(g, b))
            r = fmaxf(softClip(r, maxRGB, dst.lw), dst.lb)
            g = fmaxf(softClip(g, maxRGB, dst.lw), dst.lb)
            b = fmaxf(softClip(b, maxRGB, dst.lw), dst.lb)
            return rgbToIPT(r, g, b, dst.contentToLMS)
        case .relativeColorimetric:
            return clipToGamut(v, gamma, dst)
        case .absoluteColorimetric:
            let (r, g, b) = iptToRGB(v, dst.lmsToEncoding)
            let (ar, ag, ab) = adaptation.apply(r, g, b)
            return clipToGamut(rgbToIPT(ar, ag, ab, dst.encodingToLMS), gamma, dst)
        case .saturation:
            let (r, g, b) = iptToRGB(v, tmp.lmsToContent)
            return rgbToIPT(r, g, b, dst.contentToLMS)
        }
    }

    /// Full mapping of one source-encoded RGB triple (0...1) to destination-encoded 16-bit values.
    mutating func map(_ r: Float, _ g: Float, _ b: Float) -> (UInt16, UInt16, UInt16) {
        var c: RGBDouble = (Double(r), Double(g), Double(b))
        src.transfer.decode(&c, lw: Double(src.lw), lb: Double(src.lb))
        var v = rgbToIPT(Float(c.0), Float(c.1), Float(c.2), src.encodingToLMS)
        // hue peaks for the gamut boundary searches
        let hue = atan2f(v.t, v.p)
        switch intent {
        case .perceptual:
            tmp.peak = mostSaturated(hue, tmp)
            dst.peak = mostSaturated(hue, dst)
        case .relativeColorimetric, .absoluteColorimetric:
            dst.peak = mostSaturated(hue, dst)
        case .saturation:
            break
        }
        v = adaptColours(toneMap(v))
        let (outR, outG, outB) = iptToRGB(v, dst.lmsToEncoding)
        c = (Double(outR), Double(outG), Double(outB))
        dst.transfer.encode(&c, lw: Double(dst.lw), lb: Double(dst.lb))
        return (quantise(Float(c.0)), quantise(Float(c.1)), quantise(Float(c.2)))
    }
}

// MARK: - Tables

/// FFmpeg 8's static gamut-mapping 3D LUT (`ff_sws_color_map_generate_static`).
enum GamutMapTable {
    /// Nodes per axis.
    static let size = 65
    /// Number of UInt16 values in a table (65³ nodes x 3 channels).
    static let count = size * size * size * 3

    /// Index of channel `channel` (0 = R, 1 = G, 2 = B) of node (r, g, b), each 0...64.
    @inline(__always)
    static func index(r: Int, g: Int, b: Int, channel: Int) -> Int {
        ((b * size + g) * size + r) * 3 + channel
    }

    /// True when FFmpeg would skip colour mapping altogether (`ff_sws_color_map_noop`),
    /// i.e. pass pixels through unchanged instead of applying a table.
    static func isNoOp(source: ColourDescription, destination: ColourDescription,
                              intent: GamutMappingIntent = .relativeColorimetric) -> Bool {
        if source.primaries != destination.primaries || source.transfer != destination.transfer { return false }
        if Fraction.compare(source.minLuminance, destination.minLuminance) != 0 { return false }
        switch intent {
        case .absoluteColorimetric, .relativeColorimetric:
            return destination.contentGamut.contains(source.contentGamut)
                && Fraction.compare(source.maxLuminance, destination.maxLuminance) <= 0
        case .perceptual, .saturation:
            return destination.contentGamut.same(source.contentGamut)
                && Fraction.compare(source.maxLuminance, destination.maxLuminance) == 0
        }
    }

    /// Builds the table, bit-identical to FFmpeg's. Returns nil when a transfer has no
    /// EOTF in FFmpeg (log / log-sqrt), which FFmpeg rejects as well.
    /// - Parameter threads: how many blue planes are computed at once (same result on any count).
    static func make(source: ColourDescription, destination: ColourDescription,
                     intent: GamutMappingIntent = .relativeColorimetric, threads: Int = 1) -> [UInt16]? {
        guard source.transfer.hasEOTF, destination.transfer.hasEOTF else { return nil }
        let prototype = Mapper(source: source, destination: destination, intent: intent)
        let step: Float = 1.0 / Float(size - 1)
        var table = [UInt16](repeating: 0, count: count)
        table.withUnsafeMutableBufferPointer { out in
            // Each plane writes its own part of the table.
            nonisolated(unsafe) let base = out.baseAddress!
            let plane: @Sendable (Int) -> Void = { bx in
                var mapper = prototype
                let b = step * Float(bx)
                var k = bx * size * size * 3
                for gx in 0..<size {
                    let g = step * Float(gx)
                    for rx in 0..<size {
                        let (r16, g16, b16) = mapper.map(step * Float(rx), g, b)
                        base[k] = r16; base[k + 1] = g16; base[k + 2] = b16
                        k += 3
                    }
                }
            }
            let lanes = max(1, min(threads, size))
            if lanes > 1 {
                // Lane k computes planes k, k + lanes, …: at most `lanes` threads at a time.
                DispatchQueue.concurrentPerform(iterations: lanes) { lane in
                    for bx in stride(from: lane, to: size, by: lanes) { plane(bx) }
                }
            } else {
                for bx in 0..<size { plane(bx) }
            }
        }
        return table
    }

    /// A table whose nodes are computed when a pixel first needs them (each node is independent of the
    /// others), so a stream pays only for the colours it has: a few thousand nodes for most frames instead
    /// of all 274,625 (about 3 s of one core). Same entries as ``make(source:destination:intent:threads:)``.
    final class Lazy {
        private var mapper: Mapper
        private var values: [UInt16]
        /// Whether node k (index / 3) has been computed.
        private var computed: [Bool]
        /// Nodes computed so far.
        private(set) var nodesComputed = 0

        /// Nil when a transfer has no display curve (log, log-sqrt), as ``make(source:destination:intent:threads:)``.
        init?(source: ColourDescription, destination: ColourDescription, intent: GamutMappingIntent = .relativeColorimetric) {
            guard source.transfer.hasEOTF, destination.transfer.hasEOTF else { return nil }
            mapper = Mapper(source: source, destination: destination, intent: intent)
            values = [UInt16](repeating: 0, count: count)
            computed = [Bool](repeating: false, count: count / 3)
        }

        /// Maps `count` RGBA64 pixels in place (see ``GamutMapTable/apply(_:toRGBA64:count:)``), computing the
        /// nodes they need first.
        func apply(toRGBA64 pixels: UnsafeMutablePointer<UInt16>, count: Int) {
            let n = size, step: Float = 1.0 / Float(n - 1)
            values.withUnsafeMutableBufferPointer { table in
                computed.withUnsafeMutableBufferPointer { done in
                    var lastCell = -1
                    for i in 0..<count {
                        let p = pixels + 4 * i
                        let (ri, gi, bi) = (Int(p[0]) >> 10, Int(p[1]) >> 10, Int(p[2]) >> 10)
                        // Neighbouring pixels mostly share a cell, whose nodes are then computed already.
                        let cell = (bi * n + gi) * n + ri
                        if cell == lastCell { continue }
                        lastCell = cell
                        // The cell's 8 corners hold the tetrahedron's 4.
                        for corner in 0..<8 {
                            let (r, g, b) = (ri + corner & 1, gi + (corner >> 1) & 1, bi + (corner >> 2) & 1)
                            let node = (b * n + g) * n + r
                            if done[node] { continue }
                            let (r16, g16, b16) = mapper.map(step * Float(r), step * Float(g), step * Float(b))
                            table[3 * node] = r16; table[3 * node + 1] = g16; table[3 * node + 2] = b16
                            done[node] = true
                            nodesComputed += 1
                        }
                    }
                    GamutMapTable.apply(UnsafePointer(table.baseAddress!), toRGBA64: pixels, count: count)
                }
            }
        }
    }

    /// Maps `count` RGBA pixels of 16 bits a channel through `table` in place (alpha untouched), as libswscale's
    /// 3D LUT pass does: the top 6 bits of each channel pick a cell, the low 10 bits a point in it, and the
    /// result interpolates the 4 corners of the cell's tetrahedron that holds the point, with integer
    /// weights summing to 1024 and the sum shifted down (truncated) by 10.
    static func apply(_ table: UnsafePointer<UInt16>, toRGBA64 pixels: UnsafeMutablePointer<UInt16>, count: Int) {
        let n = size
        // Entry (b, g, r)'s first channel; a step along r, g and b.
        let dr = 3, dg = 3 * n, db = 3 * n * n
        for i in 0..<count {
            let p = pixels + 4 * i
            let r = Int(p[0]), g = Int(p[1]), b = Int(p[2])
            let (ri, gi, bi) = (r >> 10, g >> 10, b >> 10)
            let (rf, gf, bf) = (r & 1023, g & 1023, b & 1023)
            // The next entry along each axis (the last cell's points never reach past entry 64).
            let rn = ri < n - 1 ? dr : 0, gn = gi < n - 1 ? dg : 0, bn = bi < n - 1 ? db : 0
            let base = bi * db + gi * dg + ri * dr
            // The tetrahedron: the corners walked from (0,0,0) to (1,1,1) along the axes in the order of the
            // fractions, largest first; weights (1024 - x), (x - y), (y - z), z.
            let x: Int, y: Int, z: Int, first: Int, second: Int
            if rf > gf {
                if gf > bf { (x, y, z, first, second) = (rf, gf, bf, rn, rn + gn) }
                else if rf > bf { (x, y, z, first, second) = (rf, bf, gf, rn, rn + bn) }
                else { (x, y, z, first, second) = (bf, rf, gf, bn, bn + rn) }
            } else {
                if bf > gf { (x, y, z, first, second) = (bf, gf, rf, bn, bn + gn) }
                else if bf > rf { (x, y, z, first, second) = (gf, bf, rf, gn, gn + bn) }
                else { (x, y, z, first, second) = (gf, rf, bf, gn, gn + rn) }
            }
            let w0 = 1024 - x, w1 = x - y, w2 = y - z, w3 = z
            let c0 = table + base, c1 = table + base + first, c2 = table + base + second, c3 = table + base + rn + gn + bn
            for k in 0..<3 {
                let v = w0 * Int(c0[k]) + w1 * Int(c1[k]) + w2 * Int(c2[k]) + w3 * Int(c3[k])
                p[k] = UInt16(truncatingIfNeeded: v >> 10)
            }
        }
    }
}

// MARK: - PQ EOTF table

/// PQ EOTF in cd/m² at signal i / 1023 for i = 0...1023, plus one padding entry
/// (libswscale's `ff_pq_eotf_lut`, 8 significant digits).
private let pqTable: [Float] = [
        0.0000000e+00, 4.0422718e-05, 1.3111372e-04, 2.6236826e-04, 4.3151495e-04, 6.3746885e-04,
        8.7982383e-04, 1.1585362e-03, 1.4737819e-03, 1.8258818e-03, 2.2152586e-03, 2.6424098e-03,
        3.1078907e-03, 3.6123021e-03, 4.1562821e-03, 4.7405001e-03, 5.3656521e-03, 6.0324583e-03,
        6.7416568e-03, 7.4940095e-03, 8.2902897e-03, 9.1312924e-03, 1.0017822e-02, 1.0950702e-02,
        1.1930764e-02, 1.2958861e-02, 1.4035847e-02, 1.5162600e-02, 1.6340000e-02, 1.7568948e-02,
        1.8850346e-02, 2.0185119e-02, 2.1574192e-02, 2.3018509e-02, 2.4519029e-02, 2.6076704e-02,
        2.7692516e-02, 2.9367449e-02, 3.1102509e-02, 3.2898690e-02, 3.4757019e-02, 3.6678526e-02,
        3.8664261e-02, 4.0715262e-02, 4.2832601e-02, 4.5017354e-02, 4.7270617e-02, 4.9593473e-02,
        5.1987040e-02, 5.4452441e-02, 5.6990819e-02, 5.9603301e-02, 6.2291055e-02, 6.5055251e-02,
        6.7897080e-02, 7.0817717e-02, 7.3818379e-02, 7.6900283e-02, 8.0064675e-02, 8.3312774e-02,
        8.6645849e-02, 9.0065169e-02, 9.3572031e-02, 9.7167704e-02, 1.0085351e-01, 1.0463077e-01,
        1.0850082e-01, 1.1246501e-01, 1.1652473e-01, 1.2068130e-01, 1.2493614e-01, 1.2929066e-01,
        1.3374626e-01, 1.3830439e-01, 1.4296648e-01, 1.4773401e-01, 1.5260848e-01, 1.5759132e-01,
        1.6268405e-01, 1.6788821e-01, 1.7320534e-01, 1.7863697e-01, 1.8418467e-01, 1.8985004e-01,
        1.9563470e-01, 2.0154019e-01, 2.0756818e-01, 2.1372031e-01, 2.1999824e-01, 2.2640365e-01,
        2.3293824e-01, 2.3960372e-01, 2.4640186e-01, 2.5333431e-01, 2.6040288e-01, 2.6760935e-01,
        2.7495552e-01, 2.8244319e-01, 2.9007421e-01, 2.9785041e-01, 3.0577373e-01, 3.1384594e-01,
        3.2206899e-01, 3.3044481e-01, 3.3897533e-01, 3.4766253e-01, 3.5650838e-01, 3.6551487e-01,
        3.7468409e-01, 3.8401794e-01, 3.9351855e-01, 4.0318799e-01, 4.1302836e-01, 4.2304177e-01,
        4.3323036e-01, 4.4359629e-01, 4.5414181e-01, 4.6486897e-01, 4.7578006e-01, 4.8687732e-01,
        4.9816302e-01, 5.0963944e-01, 5.2130889e-01, 5.3317369e-01, 5.4523628e-01, 5.5749886e-01,
        5.6996391e-01, 5.8263384e-01, 5.9551111e-01, 6.0859816e-01, 6.2189750e-01, 6.3541162e-01,
        6.4914307e-01, 6.6309439e-01, 6.7726819e-01, 6.9166705e-01, 7.0629384e-01, 7.2115077e-01,
        7.3624074e-01, 7.5156646e-01, 7.6713065e-01, 7.8293608e-01, 7.9898553e-01, 8.1528181e-01,
        8.3182776e-01, 8.4862623e-01, 8.6568012e-01, 8.8299235e-01, 9.0056585e-01, 9.1840360e-01,
        9.3650860e-01, 9.5488388e-01, 9.7353277e-01, 9.9245779e-01, 1.0116623e+00, 1.0311496e+00,
        1.0509226e+00, 1.0709847e+00, 1.0913391e+00, 1.1119889e+00, 1.1329376e+00, 1.1541885e+00,
        1.1757448e+00, 1.1976100e+00, 1.2197875e+00, 1.2422807e+00, 1.2650931e+00, 1.2882282e+00,
        1.3116900e+00, 1.3354812e+00, 1.3596059e+00, 1.3840676e+00, 1.4088701e+00, 1.4340170e+00,
        1.4595121e+00, 1.4853593e+00, 1.5115622e+00, 1.5381247e+00, 1.5650507e+00, 1.5923442e+00,
        1.6200090e+00, 1.6480492e+00, 1.6764688e+00, 1.7052718e+00, 1.7344629e+00, 1.7640451e+00,
        1.7940233e+00, 1.8244015e+00, 1.8551840e+00, 1.8863752e+00, 1.9179792e+00, 1.9500006e+00,
        1.9824437e+00, 2.0153130e+00, 2.0486129e+00, 2.0823479e+00, 2.1165227e+00, 2.1511419e+00,
        2.1862101e+00, 2.2217319e+00, 2.2577128e+00, 2.2941563e+00, 2.3310679e+00, 2.3684523e+00,
        2.4063146e+00, 2.4446597e+00, 2.4834925e+00, 2.5228182e+00, 2.5626417e+00, 2.6029683e+00,
        2.6438031e+00, 2.6851514e+00, 2.7270184e+00, 2.7694094e+00, 2.8123299e+00, 2.8557852e+00,
        2.8997815e+00, 2.9443230e+00, 2.9894159e+00, 3.0350657e+00, 3.0812783e+00, 3.1280593e+00,
        3.1754144e+00, 3.2233495e+00, 3.2718705e+00, 3.3209833e+00, 3.3706938e+00, 3.4210082e+00,
        3.4719324e+00, 3.5234727e+00, 3.5756351e+00, 3.6284261e+00, 3.6818526e+00, 3.7359195e+00,
        3.7906340e+00, 3.8460024e+00, 3.9020315e+00, 3.9587277e+00, 4.0160977e+00, 4.0741483e+00,
        4.1328861e+00, 4.1923181e+00, 4.2524511e+00, 4.3132921e+00, 4.3748480e+00, 4.4371260e+00,
        4.5001332e+00, 4.5638768e+00, 4.6283650e+00, 4.6936032e+00, 4.7595999e+00, 4.8263624e+00,
        4.8938982e+00, 4.9622151e+00, 5.0313205e+00, 5.1012223e+00, 5.1719283e+00, 5.2434463e+00,
        5.3157843e+00, 5.3889502e+00, 5.4629521e+00, 5.5377982e+00, 5.6134968e+00, 5.6900560e+00,
        5.7674843e+00, 5.8457900e+00, 5.9249818e+00, 6.0050682e+00, 6.0860578e+00, 6.1679595e+00,
        6.2507819e+00, 6.3345341e+00, 6.4192275e+00, 6.5048661e+00, 6.5914616e+00, 6.6790231e+00,
        6.7675600e+00, 6.8570816e+00, 6.9475975e+00, 7.0391171e+00, 7.1316500e+00, 7.2252060e+00,
        7.3197948e+00, 7.4154264e+00, 7.5121107e+00, 7.6098577e+00, 7.7086777e+00, 7.8085807e+00,
        7.9095772e+00, 8.0116775e+00, 8.1148922e+00, 8.2192318e+00, 8.3247071e+00, 8.4313287e+00,
        8.5391076e+00, 8.6480548e+00, 8.7581812e+00, 8.8694982e+00, 8.9820168e+00, 9.0957485e+00,
        9.2107048e+00, 9.3268971e+00, 9.4443372e+00, 9.5630368e+00, 9.6830115e+00, 9.8042658e+00,
        9.9268155e+00, 1.0050673e+01, 1.0175850e+01, 1.0302359e+01, 1.0430213e+01, 1.0559425e+01,
        1.0690006e+01, 1.0821970e+01, 1.0955331e+01, 1.1090100e+01, 1.1226290e+01, 1.1363917e+01,
        1.1502992e+01, 1.1643529e+01, 1.1785542e+01, 1.1929044e+01, 1.2074050e+01, 1.2220573e+01,
        1.2368628e+01, 1.2518229e+01, 1.2669390e+01, 1.2822125e+01, 1.2976449e+01, 1.3132377e+01,
        1.3289925e+01, 1.3449105e+01, 1.3609935e+01, 1.3772429e+01, 1.3936602e+01, 1.4102470e+01,
        1.4270054e+01, 1.4439360e+01, 1.4610407e+01, 1.4783214e+01, 1.4957794e+01, 1.5134166e+01,
        1.5312345e+01, 1.5492348e+01, 1.5674192e+01, 1.5857894e+01, 1.6043471e+01, 1.6230939e+01,
        1.6420317e+01, 1.6611622e+01, 1.6804871e+01, 1.7000083e+01, 1.7197275e+01, 1.7396465e+01,
        1.7597672e+01, 1.7800914e+01, 1.8006210e+01, 1.8213578e+01, 1.8423038e+01, 1.8634608e+01,
        1.8848308e+01, 1.9064157e+01, 1.9282175e+01, 1.9502381e+01, 1.9724796e+01, 1.9949439e+01,
        2.0176331e+01, 2.0405492e+01, 2.0636950e+01, 2.0870711e+01, 2.1106805e+01, 2.1345250e+01,
        2.1586071e+01, 2.1829286e+01, 2.2074919e+01, 2.2322992e+01, 2.2573525e+01, 2.2826542e+01,
        2.3082066e+01, 2.3340118e+01, 2.3600721e+01, 2.3863900e+01, 2.4129676e+01, 2.4398074e+01,
        2.4669117e+01, 2.4942828e+01, 2.5219233e+01, 2.5498355e+01, 2.5780219e+01, 2.6064849e+01,
        2.6352271e+01, 2.6642509e+01, 2.6935589e+01, 2.7231536e+01, 2.7530377e+01, 2.7832137e+01,
        2.8136843e+01, 2.8444520e+01, 2.8755196e+01, 2.9068898e+01, 2.9385662e+01, 2.9705496e+01,
        3.0028439e+01, 3.0354517e+01, 3.0683758e+01, 3.1016192e+01, 3.1351846e+01, 3.1690750e+01,
        3.2032932e+01, 3.2378422e+01, 3.2727250e+01, 3.3079445e+01, 3.3435038e+01, 3.3794058e+01,
        3.4156537e+01, 3.4522505e+01, 3.4891993e+01, 3.5265034e+01, 3.5641658e+01, 3.6021897e+01,
        3.6405785e+01, 3.6793353e+01, 3.7184634e+01, 3.7579661e+01, 3.7978468e+01, 3.8381088e+01,
        3.8787555e+01, 3.9197904e+01, 3.9612169e+01, 4.0030385e+01, 4.0452587e+01, 4.0878810e+01,
        4.1309104e+01, 4.1743478e+01, 4.2181981e+01, 4.2624651e+01, 4.3071525e+01, 4.3522639e+01,
        4.3978031e+01, 4.4437739e+01, 4.4901803e+01, 4.5370259e+01, 4.5843148e+01, 4.6320508e+01,
        4.6802379e+01, 4.7288801e+01, 4.7779815e+01, 4.8275461e+01, 4.8775780e+01, 4.9280813e+01,
        4.9790603e+01, 5.0305191e+01, 5.0824620e+01, 5.1348933e+01, 5.1878172e+01, 5.2412382e+01,
        5.2951607e+01, 5.3495890e+01, 5.4045276e+01, 5.4599811e+01, 5.5159540e+01, 5.5724510e+01,
        5.6294765e+01, 5.6870353e+01, 5.7451339e+01, 5.8037735e+01, 5.8629606e+01, 5.9227001e+01,
        5.9829968e+01, 6.0438557e+01, 6.1052818e+01, 6.1672799e+01, 6.2298552e+01, 6.2930128e+01,
        6.3567578e+01, 6.4210953e+01, 6.4860306e+01, 6.5515690e+01, 6.6177157e+01, 6.6844762e+01,
        6.7518558e+01, 6.8198599e+01, 6.8884942e+01, 6.9577641e+01, 7.0276752e+01, 7.0982332e+01,
        7.1694438e+01, 7.2413127e+01, 7.3138457e+01, 7.3870486e+01, 7.4609273e+01, 7.5354878e+01,
        7.6107361e+01, 7.6866782e+01, 7.7633203e+01, 7.8406684e+01, 7.9187312e+01, 7.9975101e+01,
        8.0770139e+01, 8.1572490e+01, 8.2382216e+01, 8.3199385e+01, 8.4024059e+01, 8.4856307e+01,
        8.5696193e+01, 8.6543786e+01, 8.7399153e+01, 8.8262362e+01, 8.9133482e+01, 9.0012582e+01,
        9.0899733e+01, 9.1795005e+01, 9.2698470e+01, 9.3610199e+01, 9.4530265e+01, 9.5458741e+01,
        9.6395701e+01, 9.7341219e+01, 9.8295370e+01, 9.9258231e+01, 1.0022988e+02, 1.0121039e+02,
        1.0219984e+02, 1.0319830e+02, 1.0420587e+02, 1.0522261e+02, 1.0624862e+02, 1.0728396e+02,
        1.0832872e+02, 1.0938299e+02, 1.1044684e+02, 1.1152036e+02, 1.1260365e+02, 1.1369677e+02,
        1.1479982e+02, 1.1591288e+02, 1.1703605e+02, 1.1816941e+02, 1.1931305e+02, 1.2046706e+02,
        1.2163153e+02, 1.2280656e+02, 1.2399223e+02, 1.2518864e+02, 1.2639596e+02, 1.2761413e+02,
        1.2884333e+02, 1.3008365e+02, 1.3133519e+02, 1.3259804e+02, 1.3387231e+02, 1.3515809e+02,
        1.3645549e+02, 1.3776461e+02, 1.3908555e+02, 1.4041841e+02, 1.4176331e+02, 1.4312034e+02,
        1.4448961e+02, 1.4587123e+02, 1.4726530e+02, 1.4867194e+02, 1.5009126e+02, 1.5152336e+02,
        1.5296837e+02, 1.5442638e+02, 1.5589753e+02, 1.5738191e+02, 1.5887965e+02, 1.6039087e+02,
        1.6191567e+02, 1.6345419e+02, 1.6500655e+02, 1.6657285e+02, 1.6815323e+02, 1.6974781e+02,
        1.7135672e+02, 1.7298007e+02, 1.7461800e+02, 1.7627063e+02, 1.7793810e+02, 1.7962053e+02,
        1.8131805e+02, 1.8303080e+02, 1.8475891e+02, 1.8650252e+02, 1.8826176e+02, 1.9003676e+02,
        1.9182767e+02, 1.9363463e+02, 1.9545777e+02, 1.9729724e+02, 1.9915319e+02, 2.0102575e+02,
        2.0291507e+02, 2.0482131e+02, 2.0674460e+02, 2.0868510e+02, 2.1064296e+02, 2.1261833e+02,
        2.1461136e+02, 2.1662222e+02, 2.1865105e+02, 2.2069802e+02, 2.2276328e+02, 2.2484700e+02,
        2.2694934e+02, 2.2907045e+02, 2.3121064e+02, 2.3336982e+02, 2.3554827e+02, 2.3774618e+02,
        2.3996370e+02, 2.4220102e+02, 2.4445831e+02, 2.4673574e+02, 2.4903349e+02, 2.5135174e+02,
        2.5369067e+02, 2.5605046e+02, 2.5843129e+02, 2.6083336e+02, 2.6325684e+02, 2.6570192e+02,
        2.6816880e+02, 2.7065767e+02, 2.7316872e+02, 2.7570215e+02, 2.7825815e+02, 2.8083692e+02,
        2.8343867e+02, 2.8606359e+02, 2.8871189e+02, 2.9138378e+02, 2.9407946e+02, 2.9679914e+02,
        2.9954304e+02, 3.0231137e+02, 3.0510434e+02, 3.0792217e+02, 3.1076508e+02, 3.1363330e+02,
        3.1652704e+02, 3.1944653e+02, 3.2239199e+02, 3.2536367e+02, 3.2836178e+02, 3.3138657e+02,
        3.3443826e+02, 3.3751710e+02, 3.4062333e+02, 3.4375718e+02, 3.4691890e+02, 3.5010874e+02,
        3.5332694e+02, 3.5657377e+02, 3.5984946e+02, 3.6315428e+02, 3.6648848e+02, 3.6985233e+02,
        3.7324608e+02, 3.7667000e+02, 3.8012436e+02, 3.8360942e+02, 3.8712547e+02, 3.9067276e+02,
        3.9425159e+02, 3.9786223e+02, 4.0150496e+02, 4.0518006e+02, 4.0888783e+02, 4.1262855e+02,
        4.1640274e+02, 4.2021025e+02, 4.2405159e+02, 4.2792707e+02, 4.3183699e+02, 4.3578166e+02,
        4.3976138e+02, 4.4377647e+02, 4.4782724e+02, 4.5191401e+02, 4.5603709e+02, 4.6019681e+02,
        4.6439350e+02, 4.6862749e+02, 4.7289910e+02, 4.7720867e+02, 4.8155654e+02, 4.8594305e+02,
        4.9036854e+02, 4.9483336e+02, 4.9933787e+02, 5.0388240e+02, 5.0846733e+02, 5.1309301e+02,
        5.1775981e+02, 5.2246808e+02, 5.2721821e+02, 5.3201056e+02, 5.3684551e+02, 5.4172344e+02,
        5.4664473e+02, 5.5160978e+02, 5.5661897e+02, 5.6167269e+02, 5.6677135e+02, 5.7191535e+02,
        5.7710508e+02, 5.8234097e+02, 5.8762342e+02, 5.9295285e+02, 5.9832968e+02, 6.0375433e+02,
        6.0922723e+02, 6.1474882e+02, 6.2031952e+02, 6.2593979e+02, 6.3161006e+02, 6.3733078e+02,
        6.4310241e+02, 6.4892540e+02, 6.5480021e+02, 6.6072730e+02, 6.6670715e+02, 6.7274023e+02,
        6.7882702e+02, 6.8496800e+02, 6.9116365e+02, 6.9741447e+02, 7.0372096e+02, 7.1008361e+02,
        7.1650293e+02, 7.2297942e+02, 7.2951361e+02, 7.3610602e+02, 7.4275756e+02, 7.4946797e+02,
        7.5623818e+02, 7.6306873e+02, 7.6996016e+02, 7.7691302e+02, 7.8392787e+02, 7.9100526e+02,
        7.9814576e+02, 8.0534993e+02, 8.1261837e+02, 8.1995163e+02, 8.2735032e+02, 8.3481501e+02,
        8.4234632e+02, 8.4994483e+02, 8.5761116e+02, 8.6534592e+02, 8.7314974e+02, 8.8102323e+02,
        8.8896702e+02, 8.9698176e+02, 9.0506809e+02, 9.1322665e+02, 9.2145810e+02, 9.2976310e+02,
        9.3814232e+02, 9.4659643e+02, 9.5512612e+02, 9.6373206e+02, 9.7241496e+02, 9.8117550e+02,
        9.9001441e+02, 9.9893238e+02, 1.0079301e+03, 1.0170084e+03, 1.0261679e+03, 1.0354094e+03,
        1.0447337e+03, 1.0541414e+03, 1.0636334e+03, 1.0732104e+03, 1.0828731e+03, 1.0926225e+03,
        1.1024592e+03, 1.1123841e+03, 1.1223979e+03, 1.1325016e+03, 1.1426958e+03, 1.1529814e+03,
        1.1633594e+03, 1.1738304e+03, 1.1843954e+03, 1.1950552e+03, 1.2058107e+03, 1.2166627e+03,
        1.2276122e+03, 1.2386601e+03, 1.2498072e+03, 1.2610544e+03, 1.2724027e+03, 1.2838531e+03,
        1.2954063e+03, 1.3070635e+03, 1.3188262e+03, 1.3306940e+03, 1.3426686e+03, 1.3547509e+03,
        1.3669420e+03, 1.3792428e+03, 1.3916544e+03, 1.4041778e+03, 1.4168140e+03, 1.4295640e+03,
        1.4424289e+03, 1.4554098e+03, 1.4685078e+03, 1.4817238e+03, 1.4950591e+03, 1.5085147e+03,
        1.5220916e+03, 1.5357912e+03, 1.5496144e+03, 1.5635624e+03, 1.5776364e+03, 1.5918375e+03,
        1.6061670e+03, 1.6206260e+03, 1.6352156e+03, 1.6499372e+03, 1.6647920e+03, 1.6797811e+03,
        1.6949059e+03, 1.7101676e+03, 1.7255674e+03, 1.7411067e+03, 1.7567867e+03, 1.7726087e+03,
        1.7885742e+03, 1.8046844e+03, 1.8209406e+03, 1.8373443e+03, 1.8538967e+03, 1.8705994e+03,
        1.8874536e+03, 1.9044608e+03, 1.9216225e+03, 1.9389401e+03, 1.9564150e+03, 1.9740486e+03,
        1.9918426e+03, 2.0097984e+03, 2.0279175e+03, 2.0462014e+03, 2.0646517e+03, 2.0832699e+03,
        2.1020577e+03, 2.1210165e+03, 2.1401481e+03, 2.1594540e+03, 2.1789359e+03, 2.1985954e+03,
        2.2184342e+03, 2.2384540e+03, 2.2586565e+03, 2.2790434e+03, 2.2996165e+03, 2.3203774e+03,
        2.3413293e+03, 2.3624714e+03, 2.3838068e+03, 2.4053372e+03, 2.4270646e+03, 2.4489908e+03,
        2.4711177e+03, 2.4934471e+03, 2.5159811e+03, 2.5387214e+03, 2.5616702e+03, 2.5848293e+03,
        2.6082007e+03, 2.6317866e+03, 2.6555888e+03, 2.6796095e+03, 2.7038507e+03, 2.7283145e+03,
        2.7530031e+03, 2.7779186e+03, 2.8030631e+03, 2.8284388e+03, 2.8540479e+03, 2.8798927e+03,
        2.9059754e+03, 2.9322983e+03, 2.9588635e+03, 2.9856736e+03, 3.0127308e+03, 3.0400374e+03,
        3.0675959e+03, 3.0954086e+03, 3.1234780e+03, 3.1518066e+03, 3.1803969e+03, 3.2092512e+03,
        3.2383723e+03, 3.2677625e+03, 3.2974246e+03, 3.3273611e+03, 3.3575747e+03, 3.3880680e+03,
        3.4188437e+03, 3.4499045e+03, 3.4812533e+03, 3.5128926e+03, 3.5448255e+03, 3.5770546e+03,
        3.6095828e+03, 3.6424131e+03, 3.6755483e+03, 3.7089914e+03, 3.7427454e+03, 3.7768132e+03,
        3.8111979e+03, 3.8459027e+03, 3.8809304e+03, 3.9162844e+03, 3.9519678e+03, 3.9879837e+03,
        4.0243354e+03, 4.0610261e+03, 4.0980592e+03, 4.1354380e+03, 4.1731681e+03, 4.2112483e+03,
        4.2496844e+03, 4.2884798e+03, 4.3276381e+03, 4.3671627e+03, 4.4070572e+03, 4.4473253e+03,
        4.4879706e+03, 4.5289968e+03, 4.5704076e+03, 4.6122068e+03, 4.6543981e+03, 4.6969854e+03,
        4.7399727e+03, 4.7833637e+03, 4.8271625e+03, 4.8713731e+03, 4.9159995e+03, 4.9610458e+03,
        5.0065162e+03, 5.0524147e+03, 5.0987457e+03, 5.1455133e+03, 5.1927219e+03, 5.2403759e+03,
        5.2884795e+03, 5.3370373e+03, 5.3860537e+03, 5.4355333e+03, 5.4854807e+03, 5.5359004e+03,
        5.5867972e+03, 5.6381757e+03, 5.6900408e+03, 5.7423972e+03, 5.7952499e+03, 5.8486037e+03,
        5.9024637e+03, 5.9568349e+03, 6.0117223e+03, 6.0671311e+03, 6.1230664e+03, 6.1795336e+03,
        6.2365379e+03, 6.2940847e+03, 6.3521793e+03, 6.4108273e+03, 6.4700342e+03, 6.5298056e+03,
        6.5901471e+03, 6.6510643e+03, 6.7125632e+03, 6.7746495e+03, 6.8373290e+03, 6.9006078e+03,
        6.9644918e+03, 7.0289872e+03, 7.0941001e+03, 7.1598366e+03, 7.2262031e+03, 7.2932059e+03,
        7.3608513e+03, 7.4291460e+03, 7.4981006e+03, 7.5677134e+03, 7.6379952e+03, 7.7089527e+03,
        7.7805929e+03, 7.8529226e+03, 7.9259489e+03, 7.9996786e+03, 8.0741191e+03, 8.1492774e+03,
        8.2251609e+03, 8.3017769e+03, 8.3791329e+03, 8.4572364e+03, 8.5360950e+03, 8.6157163e+03,
        8.6961082e+03, 8.7772786e+03, 8.8592352e+03, 8.9419862e+03, 9.0255397e+03, 9.1099038e+03,
        9.1950869e+03, 9.2810973e+03, 9.3679435e+03, 9.4556340e+03, 9.5441776e+03, 9.6335829e+03,
        9.7238588e+03, 9.8150143e+03, 9.9070583e+03, 1.0000000e+04, 1.0000000e+04,
]
