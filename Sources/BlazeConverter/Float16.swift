/// Conversion of IEEE 754 binary16 bit patterns to `Float`, exact for every input: normals,
/// subnormals, signed zeros, infinities and NaNs (payload kept).
public enum Float16Conversion {
    public static func float(fromBits h: UInt16) -> Float {
        let sign = UInt32(h >> 15) << 31
        let exponent = UInt32((h >> 10) & 0x1f)
        let mantissa = UInt32(h & 0x3ff)
        switch exponent {
        case 0:
            // Zero or subnormal: mantissa · 2^-24, exact in Float.
            let magnitude = Float(mantissa) * 0x1p-24
            return sign != 0 ? -magnitude : magnitude
        case 0x1f:
            return Float(bitPattern: sign | 0x7f80_0000 | (mantissa << 13))
        default:
            return Float(bitPattern: sign | ((exponent + 112) << 23) | (mantissa << 13))
        }
    }
}
