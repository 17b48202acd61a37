import BlazeKernels
import Testing

/// ``ConvolutionEpilogue`` gives the bits that ``ElementwiseKernel/add(_:_:_:range:clamp:)`` then
/// ``ElementwiseKernel/prelu(_:alpha:_:pixels:channels:)`` give, and its fast path equals its plain twin,
/// on channel counts and ranges that leave vector tails, with zeros of both signs in the data.
@Suite struct ConvolutionEpilogueTests {
    static let clamps: [ClampBounds] = [.none, ClampBounds(min: 0, max: 6), ClampBounds(min: -1, max: 1)]

    func data(_ count: Int, seed: UInt64) -> [Float] {
        var rng = SeededRandom(seed: seed)
        var v = rng.array(count, -4, 4)
        for i in stride(from: 0, to: count, by: 7) { v[i] = i % 2 == 0 ? 0 : -0.0 }
        return v
    }

    @Test(arguments: [(5, 1), (3, 8), (4, 17), (6, 24), (2, 37), (7, 16), (9, 48)])
    func matchesTheSeparatePasses(pixels: Int, channels: Int) {
        let n = pixels * channels
        let conv = data(n, seed: 1), residual = data(n, seed: 2)
        var rng = SeededRandom(seed: 3)
        let alpha = rng.array(channels, -0.5, 0.5)
        for clamp in Self.clamps {
            for (add, prelu) in [(true, true), (true, false), (false, true)] {
                var separate = conv
                if add {
                    let x = separate
                    ElementwiseKernel.add(x, residual, &separate, range: 0..<n, clamp: clamp)
                }
                if prelu {
                    let x = separate
                    ElementwiseKernel.prelu(x, alpha: alpha, &separate, pixels: 0..<pixels, channels: channels)
                }
                residual.withUnsafeBufferPointer { r in
                    alpha.withUnsafeBufferPointer { a in
                        let e = ConvolutionEpilogue(residual: add ? r.baseAddress : nil, residualClamp: clamp,
                                                    preluAlpha: prelu ? a.baseAddress : nil)
                        var fused = conv, plain = conv
                        // Two uneven pixel ranges, the second over two channel ranges.
                        let cut = pixels / 2, split = channels / 3
                        e.apply(&fused, pixels: 0..<cut, channels: 0..<channels, stride: channels)
                        e.apply(&fused, pixels: cut..<pixels, channels: split..<channels, stride: channels)
                        e.apply(&fused, pixels: cut..<pixels, channels: 0..<split, stride: channels)
                        // Whole rows from a later pixel (the flat pass where channels are whole vectors).
                        var rows = conv
                        e.apply(&rows, pixels: 0..<1, channels: 0..<channels, stride: channels)
                        e.apply(&rows, pixels: 1..<pixels, channels: 0..<channels, stride: channels)
                        expectBitIdentical(rows, separate, "rows \(pixels)×\(channels) \(clamp) add \(add) prelu \(prelu)")
                        e.applyReference(&plain, pixels: 0..<pixels, channels: 0..<channels, stride: channels)
                        expectBitIdentical(fused, separate, "\(pixels)×\(channels) \(clamp) add \(add) prelu \(prelu)")
                        expectBitIdentical(plain, separate, "reference \(pixels)×\(channels) \(clamp) add \(add) prelu \(prelu)")
                    }
                }
            }
        }
    }
}
