/// TensorFlow's `SAME` and `VALID` padding made explicit, and the window output-size rule.
public enum SpatialPadding {
    /// The `(before, after)` padding of one spatial axis under `SAME`:
    /// `out = ceil(in / stride)`, `total = max((out - 1)·stride + (k - 1)·dilation + 1 - in, 0)`,
    /// `before = total / 2`, `after = total - before` (the extra cell goes after).
    public static func sameAxis(input: Int, kernel: Int, stride: Int, dilation: Int = 1) -> (before: Int, after: Int) {
        let output = (input + stride - 1) / stride
        let effectiveKernel = (kernel - 1) * dilation + 1
        let total = max((output - 1) * stride + effectiveKernel - input, 0)
        return (total / 2, total - total / 2)
    }

    /// `[top, left, bottom, right]` for TFLite padding `padding` over an `inputH`×`inputW` input.
    public static func pads(_ padding: TFLitePadding, inputH: Int, inputW: Int, kernelH: Int, kernelW: Int,
                            strideH: Int, strideW: Int, dilationH: Int = 1, dilationW: Int = 1) -> [Int] {
        switch padding {
        case .valid:
            return [0, 0, 0, 0]
        case .same:
            let h = sameAxis(input: inputH, kernel: kernelH, stride: strideH, dilation: dilationH)
            let w = sameAxis(input: inputW, kernel: kernelW, stride: strideW, dilation: dilationW)
            return [h.before, w.before, h.after, w.after]
        }
    }

    /// The output size of a window op along one axis with explicit padding:
    /// `(in + before + after - ((k - 1)·dilation + 1)) / stride + 1`, or nil when the window
    /// does not fit.
    public static func outputSize(input: Int, kernel: Int, stride: Int, dilation: Int = 1,
                                  before: Int, after: Int) -> Int? {
        let span = input + before + after - ((kernel - 1) * dilation + 1)
        guard stride > 0, span >= 0 else { return nil }
        return span / stride + 1
    }
}
