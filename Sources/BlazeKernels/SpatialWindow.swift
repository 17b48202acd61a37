/// The sliding-window geometry shared by convolution, depthwise convolution and pooling:
/// input and output sizes, kernel, stride, dilation and the explicit top/left padding
/// (bottom/right padding is implied by the output size).
public struct SpatialWindow: Sendable, Equatable, CustomStringConvertible {
    public var inputHeight: Int
    public var inputWidth: Int
    public var outputHeight: Int
    public var outputWidth: Int
    public var kernelHeight: Int
    public var kernelWidth: Int
    public var strideHeight: Int
    public var strideWidth: Int
    public var dilationHeight: Int
    public var dilationWidth: Int
    public var padTop: Int
    public var padLeft: Int

    public init(inputHeight: Int, inputWidth: Int, kernelHeight: Int, kernelWidth: Int,
                strideHeight: Int = 1, strideWidth: Int = 1, dilationHeight: Int = 1, dilationWidth: Int = 1,
                padTop: Int = 0, padLeft: Int = 0, padBottom: Int = 0, padRight: Int = 0) {
        self.inputHeight = inputHeight
        self.inputWidth = inputWidth
        self.kernelHeight = kernelHeight
        self.kernelWidth = kernelWidth
        self.strideHeight = strideHeight
        self.strideWidth = strideWidth
        self.dilationHeight = dilationHeight
        self.dilationWidth = dilationWidth
        self.padTop = padTop
        self.padLeft = padLeft
        let effH = (kernelHeight - 1) * dilationHeight + 1
        let effW = (kernelWidth - 1) * dilationWidth + 1
        outputHeight = (inputHeight + padTop + padBottom - effH) / strideHeight + 1
        outputWidth = (inputWidth + padLeft + padRight - effW) / strideWidth + 1
    }

    /// True when the window is a plain 1×1, stride-1, unpadded one: a convolution is then a GEMM.
    public var isPointwise: Bool {
        kernelHeight == 1 && kernelWidth == 1 && strideHeight == 1 && strideWidth == 1
            && padTop == 0 && padLeft == 0 && outputHeight == inputHeight && outputWidth == inputWidth
    }

    /// The range of output columns whose every tap lies inside the input (no bounds checks needed).
    public var interiorColumns: Range<Int> {
        let first = max(0, (padLeft + strideWidth - 1) / strideWidth)
        let lastTap = (kernelWidth - 1) * dilationWidth
        // x*s - padLeft + lastTap <= inputWidth - 1
        let limit = inputWidth - 1 - lastTap + padLeft
        let last = limit < 0 ? -1 : limit / strideWidth
        let end = min(outputWidth, last + 1)
        return first < end ? first..<end : first..<first
    }

    /// How many columns past the input's right edge the last output column's window reaches: the right padding the
    /// window uses (0 when none), which can be less than the padding it was made with.
    public var rightPaddingUsed: Int {
        max(0, (outputWidth - 1) * strideWidth - padLeft + (kernelWidth - 1) * dilationWidth - (inputWidth - 1))
    }

    /// The valid kernel rows for output row `y`.
    @inline(__always)
    public func kernelRows(forOutputRow y: Int) -> Range<Int> {
        let iy0 = y * strideHeight - padTop
        var start = 0
        if iy0 < 0 { start = (-iy0 + dilationHeight - 1) / dilationHeight }
        var end = kernelHeight
        let over = iy0 + (kernelHeight - 1) * dilationHeight - (inputHeight - 1)
        if over > 0 { end = kernelHeight - (over + dilationHeight - 1) / dilationHeight }
        return start < end ? start..<end : start..<start
    }

    public var description: String {
        "\(inputHeight)x\(inputWidth) -> \(outputHeight)x\(outputWidth), kernel \(kernelHeight)x\(kernelWidth), "
            + "stride \(strideHeight)x\(strideWidth), dilation \(dilationHeight)x\(dilationWidth), pad top \(padTop) left \(padLeft)"
    }
}

/// Clamp bounds applied after bias (ReLU is `0…∞`, ReLU6 is `0…6`, none is `-∞…∞`).
public struct ClampBounds: Sendable, Equatable {
    public var min: Float
    public var max: Float

    public init(min: Float, max: Float) {
        self.min = min
        self.max = max
    }

    public static let none = ClampBounds(min: -.infinity, max: .infinity)

    @inline(__always) public func apply(_ x: Float) -> Float { Swift.min(Swift.max(x, min), max) }

    @inline(__always) public func apply(_ x: SIMD8<Float>) -> SIMD8<Float> {
        clampLanes(x, SIMD8(repeating: min), SIMD8(repeating: max))
    }
}

extension SpatialWindow {
    /// Kernel taps per output channel: `kernelHeight · kernelWidth`.
    public var tapCount: Int { kernelHeight * kernelWidth }

    /// The plain twins' walk over a convolution: for each output pixel (row-major index) the taps that fall
    /// inside the input — input pixel index and kernel tap index `ky · kernelWidth + kx`, in ascending
    /// (ky, kx) order — and each output channel. Allocates; for reference kernels only.
    public func forEachOutput(channels: Int, _ body: (_ pixel: Int, _ taps: [(input: Int, kernel: Int)], _ channel: Int) -> Void) {
        for y in 0..<outputHeight {
            for x in 0..<outputWidth {
                var taps: [(input: Int, kernel: Int)] = []
                for ky in 0..<kernelHeight {
                    let iy = y * strideHeight - padTop + ky * dilationHeight
                    guard iy >= 0, iy < inputHeight else { continue }
                    for kx in 0..<kernelWidth {
                        let ix = x * strideWidth - padLeft + kx * dilationWidth
                        guard ix >= 0, ix < inputWidth else { continue }
                        taps.append((iy * inputWidth + ix, ky * kernelWidth + kx))
                    }
                }
                for o in 0..<channels { body(y * outputWidth + x, taps, o) }
            }
        }
    }
}
