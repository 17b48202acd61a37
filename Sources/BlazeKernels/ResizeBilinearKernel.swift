/// The source positions of one axis of a TFLite RESIZE_BILINEAR, computed once at plan time.
///
/// For output index `o`: `s = halfPixel ? (o + ½)·scale − ½ : o·scale`, with
/// `scale = alignCorners && out > 1 ? (in−1)/(out−1) : in/out`; `lower = max(⌊s⌋, 0)`,
/// `upper = min(⌈s⌉, in−1)`, `fraction = s − lower` (TFLite's reference semantics).
public struct BilinearAxis: Sendable, Equatable {
    public let lower: [Int]
    public let upper: [Int]
    public let fraction: [Float]

    public init(inputSize: Int, outputSize: Int, alignCorners: Bool, halfPixelCenters: Bool) {
        let scale: Float = alignCorners && outputSize > 1
            ? Float(inputSize - 1) / Float(outputSize - 1)
            : Float(inputSize) / Float(outputSize)
        var lower = [Int](), upper = [Int](), fraction = [Float]()
        for o in 0..<outputSize {
            let s = halfPixelCenters ? (Float(o) + 0.5) * scale - 0.5 : Float(o) * scale
            let l = max(Int(s.rounded(.down)), 0)
            lower.append(l)
            upper.append(min(Int(s.rounded(.up)), inputSize - 1))
            fraction.append(s - Float(l))
        }
        self.lower = lower
        self.upper = upper
        self.fraction = fraction
    }
}

/// Bilinear resize of NHWC `[1, inH, inW, C]` to `[1, outH, outW, C]`.
///
/// ### See Also
/// - ``ResizeBilinearKernel/reference(input:output:inputWidth:channels:rows:columns:)``
/// - ``ResizeBilinearKernel/directAnyChannels(input:output:inputWidth:channels:rows:columns:outputRows:)``
public enum ResizeBilinearKernel {
    /// SIMD over channels for output rows `outputRows`. Each output is `((a·w00 + b·w10) + d·w01) + e·w11`
    /// with `w00 = (1 − fy)(1 − fx)`, `w10 = fy(1 − fx)`, `w01 = (1 − fy)fx`, `w11 = fy·fx` in float, unfused,
    /// whichever path computes it.
    public static func direct(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, inputWidth: Int, channels c: Int,
                              rows: BilinearAxis, columns: BilinearAxis, outputRows: Range<Int>) {
        guard c % 8 == 0 else {
            return directAnyChannels(input: input, output: output, inputWidth: inputWidth, channels: c, rows: rows,
                                     columns: columns, outputRows: outputRows)
        }
        // Channels in whole vectors: the column tables read without bounds checks, the four source pixels'
        // addresses and weights once per output pixel.
        let ir = UnsafeRawPointer(input)
        let rowBytes = inputWidth * c * 4
        columns.lower.withUnsafeBufferPointer { lower in
            columns.upper.withUnsafeBufferPointer { upper in
                columns.fraction.withUnsafeBufferPointer { fraction in
                    let outW = lower.count
                    for y in outputRows {
                        let fy = rows.fraction[y]
                        let vy1 = SIMD8<Float>(repeating: fy), vy0 = SIMD8<Float>(repeating: 1 - fy)
                        let top = ir + rows.lower[y] * rowBytes, bottom = ir + rows.upper[y] * rowBytes
                        var out = UnsafeMutableRawPointer(output + y * outW * c)
                        for x in 0..<outW {
                            let fx = fraction[x]
                            let vx1 = SIMD8<Float>(repeating: fx), vx0 = SIMD8<Float>(repeating: 1 - fx)
                            let w00 = vy0 * vx0, w10 = vy1 * vx0, w01 = vy0 * vx1, w11 = vy1 * vx1
                            let left = lower[x] * c * 4, right = upper[x] * c * 4
                            var offset = 0
                            while offset < c * 4 {
                                let a = top.loadUnaligned(fromByteOffset: left + offset, as: SIMD8<Float>.self)
                                let b = bottom.loadUnaligned(fromByteOffset: left + offset, as: SIMD8<Float>.self)
                                let d = top.loadUnaligned(fromByteOffset: right + offset, as: SIMD8<Float>.self)
                                let e = bottom.loadUnaligned(fromByteOffset: right + offset, as: SIMD8<Float>.self)
                                let v = a * w00 + b * w10 + d * w01 + e * w11
                                out.storeBytes(of: v, toByteOffset: offset, as: SIMD8<Float>.self)
                                offset += 32
                            }
                            out += c * 4
                        }
                    }
                }
            }
        }
    }

    /// ``direct(input:output:inputWidth:channels:rows:columns:outputRows:)`` for any channel count: eight channels
    /// a vector, then one at a time. The same arithmetic, term for term, as the vector path.
    public static func directAnyChannels(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, inputWidth: Int, channels c: Int,
                              rows: BilinearAxis, columns: BilinearAxis, outputRows: Range<Int>) {
        let ir = UnsafeRawPointer(input), or = UnsafeMutableRawPointer(output)
        let c8 = c & ~7
        let outW = columns.lower.count
        for y in outputRows {
            let fy = rows.fraction[y]
            let r0 = rows.lower[y] * inputWidth * c, r1 = rows.upper[y] * inputWidth * c
            let vy1 = SIMD8<Float>(repeating: fy), vy0 = SIMD8<Float>(repeating: 1 - fy)
            for x in 0..<outW {
                let fx = columns.fraction[x]
                let x0 = columns.lower[x] * c, x1 = columns.upper[x] * c
                let w00 = (1 - fy) * (1 - fx), w10 = fy * (1 - fx), w01 = (1 - fy) * fx, w11 = fy * fx
                let vx1 = SIMD8<Float>(repeating: fx), vx0 = SIMD8<Float>(repeating: 1 - fx)
                let ob = (y * outW + x) * c
                var ch = 0
                while ch < c8 {
                    let a = ir.loadUnaligned(fromByteOffset: (r0 + x0 + ch) * 4, as: SIMD8<Float>.self)
                    let b = ir.loadUnaligned(fromByteOffset: (r1 + x0 + ch) * 4, as: SIMD8<Float>.self)
                    let d = ir.loadUnaligned(fromByteOffset: (r0 + x1 + ch) * 4, as: SIMD8<Float>.self)
                    let e = ir.loadUnaligned(fromByteOffset: (r1 + x1 + ch) * 4, as: SIMD8<Float>.self)
                    let v = a * (vy0 * vx0) + b * (vy1 * vx0) + d * (vy0 * vx1) + e * (vy1 * vx1)
                    or.storeBytes(of: v, toByteOffset: (ob + ch) * 4, as: SIMD8<Float>.self)
                    ch += 8
                }
                while ch < c {
                    output[ob + ch] = input[r0 + x0 + ch] * w00 + input[r1 + x0 + ch] * w10
                        + input[r0 + x1 + ch] * w01 + input[r1 + x1 + ch] * w11
                    ch += 1
                }
            }
        }
    }

    /// The plain twin of ``direct(input:output:inputWidth:channels:rows:columns:outputRows:)`` over every output row, the test oracle.
    public static func reference(input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, inputWidth: Int, channels c: Int,
                                 rows: BilinearAxis, columns: BilinearAxis) {
        for y in 0..<rows.lower.count {
            for x in 0..<columns.lower.count {
                let fy = Double(rows.fraction[y]), fx = Double(columns.fraction[x])
                for ch in 0..<c {
                    func at(_ yy: Int, _ xx: Int) -> Double { Double(input[(yy * inputWidth + xx) * c + ch]) }
                    let v = at(rows.lower[y], columns.lower[x]) * (1 - fy) * (1 - fx)
                        + at(rows.upper[y], columns.lower[x]) * fy * (1 - fx)
                        + at(rows.lower[y], columns.upper[x]) * (1 - fy) * fx
                        + at(rows.upper[y], columns.upper[x]) * fy * fx
                    output[(y * columns.lower.count + x) * c + ch] = Float(v)
                }
            }
        }
    }
}
