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

/// An add followed by PReLU, ReLU or both, on whole rows of whole vectors (palm detection's and the face mesh's blocks),
/// runs as one pass; it gives the separate passes' bits, with NaN and zeros of both signs in the data.
@Suite struct OnePassEpilogueTests {
    @Test(arguments: [(5, 8), (3, 16), (4, 32), (2, 48)])
    func addThenActivationMatchesTheSeparatePasses(pixels: Int, channels: Int) {
        var rng = SeededRandom(seed: 13)
        let n = pixels * channels
        var conv = rng.array(n, -4, 4), residual = rng.array(n, -4, 4)
        for i in stride(from: 0, to: n, by: 5) { conv[i] = i % 2 == 0 ? 0 : -0.0 }
        for i in stride(from: 1, to: n, by: 6) { residual[i] = i % 4 == 1 ? -0.0 : 0 }
        conv[n - 2] = .nan
        residual[3] = .nan
        let alpha = rng.array(channels, -0.5, 0.5)
        for clamp in [ClampBounds.none, ClampBounds(min: 0, max: 6), ClampBounds(min: -1, max: 1)] {
            for (prelu, relu) in [(true, false), (false, true), (true, true)] {
                for residualChannels in [0, channels] {
                    var separate = conv
                    ElementwiseKernel.add(conv, residual, &separate, range: 0..<n, clamp: clamp)
                    if prelu {
                        let x = separate
                        ElementwiseKernel.prelu(x, alpha: alpha, &separate, pixels: 0..<pixels, channels: channels)
                    }
                    if relu {
                        let x = separate
                        ElementwiseKernel.relu(x, &separate, range: 0..<n)
                    }
                    residual.withUnsafeBufferPointer { r in
                        alpha.withUnsafeBufferPointer { a in
                            let e = ConvolutionEpilogue(residual: r.baseAddress, residualClamp: clamp, residualChannels: residualChannels,
                                                        preluAlpha: prelu ? a.baseAddress : nil, relu: relu)
                            var fused = conv
                            e.apply(&fused, pixels: 0..<(pixels / 2), channels: 0..<channels, stride: channels)
                            e.apply(&fused, pixels: (pixels / 2)..<pixels, channels: 0..<channels, stride: channels)
                            let what = "\(pixels)×\(channels) \(clamp) prelu \(prelu) relu \(relu) residual channels \(residualChannels)"
                            expectBitIdentical(fused, separate, what)
                            #expect(fused[3].isNaN && fused[n - 2].isNaN, "\(what): a NaN was lost")
                        }
                    }
                }
            }
        }
    }
}

/// The face detector's blocks: a residual of fewer channels, zero-padded to the output's (``LayoutKernel/pad``),
/// added, then ReLU: the epilogue with `residualChannels` and `relu` gives the separate passes' bits.
@Suite struct PaddedResidualEpilogueTests {
    @Test(arguments: [(6, 28, 24), (5, 36, 32), (4, 42, 36), (3, 16, 9), (7, 8, 3), (9, 48, 40)])
    func padAddReluMatchesTheSeparatePasses(pixels: Int, channels: Int, residualChannels rc: Int) {
        var rng = SeededRandom(seed: 11)
        var conv = rng.array(pixels * channels, -4, 4), residual = rng.array(pixels * rc, -4, 4)
        for i in stride(from: 0, to: conv.count, by: 5) { conv[i] = i % 2 == 0 ? 0 : -0.0 }
        for i in stride(from: 0, to: residual.count, by: 3) { residual[i] = i % 2 == 0 ? -0.0 : 0 }
        let n = pixels * channels
        for clamp in [ClampBounds.none, ClampBounds(min: -1, max: 1)] {
            var padded = [Float](repeating: .nan, count: n)
            LayoutKernel.pad(input: residual, inputShape: [1, 1, pixels, rc], pads: [0, 0, 0, 0, 0, 0, 0, channels - rc],
                             output: &padded, rows: 0..<1)
            var separate = conv
            ElementwiseKernel.add(conv, padded, &separate, range: 0..<n, clamp: clamp)
            let added = separate
            ElementwiseKernel.relu(added, &separate, range: 0..<n)
            residual.withUnsafeBufferPointer { r in
                let e = ConvolutionEpilogue(residual: r.baseAddress, residualClamp: clamp, residualChannels: rc,
                                            preluAlpha: nil, relu: true)
                var fused = conv, plain = conv
                let cut = pixels / 2, split = channels / 3
                e.apply(&fused, pixels: 0..<cut, channels: 0..<channels, stride: channels)
                e.apply(&fused, pixels: cut..<pixels, channels: split..<channels, stride: channels)
                e.apply(&fused, pixels: cut..<pixels, channels: 0..<split, stride: channels)
                e.applyReference(&plain, pixels: 0..<pixels, channels: 0..<channels, stride: channels)
                expectBitIdentical(fused, separate, "\(pixels)×\(channels) from \(rc) \(clamp)")
                expectBitIdentical(plain, separate, "reference \(pixels)×\(channels) from \(rc) \(clamp)")
            }
        }
    }

    /// ReLU alone after a convolution (no add): zeros of both signs become +0, as the separate pass makes them.
    @Test func reluAloneMatchesTheSeparatePass() {
        var rng = SeededRandom(seed: 12)
        var conv = rng.array(5 * 24, -2, 2)
        for i in stride(from: 0, to: conv.count, by: 4) { conv[i] = i % 8 == 0 ? 0 : -0.0 }
        var separate = conv
        ElementwiseKernel.relu(conv, &separate, range: 0..<conv.count)
        let e = ConvolutionEpilogue(residual: nil, preluAlpha: nil, relu: true)
        var fused = conv
        e.apply(&fused, pixels: 0..<5, channels: 0..<24, stride: 24)
        expectBitIdentical(fused, separate, "relu alone")
    }
}
