/// Strided slicing of a tensor of up to four axes, shapes given as 4-D (lower ranks padded with leading 1s).
extension LayoutKernel {
    /// `out[i0, i1, i2, i3] = in[b0 + i0·s0, …, b3 + i3·s3]` for the flattened output rows (axes 0–2) in `rows`.
    /// Every `begin + (count − 1) · stride` must lie inside the input (the planner checks it).
    public static func stridedSlice(input: UnsafePointer<Float>, inputShape s: [Int], begin: [Int], strides: [Int],
                                    output: UnsafeMutablePointer<Float>, outputShape o: [Int], rows: Range<Int>) {
        for r in rows {
            let i2 = r % o[2], i1 = r / o[2] % o[1], i0 = r / (o[2] * o[1])
            let y0 = begin[0] + i0 * strides[0], y1 = begin[1] + i1 * strides[1], y2 = begin[2] + i2 * strides[2]
            let src = input + ((y0 * s[1] + y1) * s[2] + y2) * s[3] + begin[3]
            let dst = output + r * o[3]
            if strides[3] == 1 {
                dst.update(from: src, count: o[3])
            } else {
                for i in 0..<o[3] { dst[i] = src[i * strides[3]] }
            }
        }
    }

    /// The plain twin of ``stridedSlice(input:inputShape:begin:strides:output:outputShape:rows:)`` over every output element.
    public static func stridedSliceReference(input: UnsafePointer<Float>, inputShape s: [Int], begin: [Int], strides: [Int],
                                             output: UnsafeMutablePointer<Float>, outputShape o: [Int]) {
        var k = 0
        for a in 0..<o[0] { for b in 0..<o[1] { for c in 0..<o[2] { for d in 0..<o[3] {
            let idx = [a, b, c, d].indices.map { begin[$0] + [a, b, c, d][$0] * strides[$0] }
            output[k] = input[((idx[0] * s[1] + idx[1]) * s[2] + idx[2]) * s[3] + idx[3]]
            k += 1
        } } } }
    }
}
