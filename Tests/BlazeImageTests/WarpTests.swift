import Foundation
import Testing
@testable import BlazeImage

@Suite struct WarpTests {
    static let source: Image = {
        let m = Fixtures.manifest.source
        return try! Image(rgb: Fixtures.bytes("warp/source.rgb"), width: m.width, height: m.height)
    }()

    @Test func getPerspectiveTransformMatchesOpenCV() throws {
        var cases = Fixtures.manifest.transforms.map { ($0.sourceQuad, $0.destinationQuad, $0.matrix, Optional($0.inverse)) }
        cases += Fixtures.manifest.perspective.map { ($0.sourceQuad, $0.destinationQuad, $0.matrix, nil) }
        for (s, d, matrix, inverse) in cases {
            let t = PerspectiveTransform(sourceQuad: Fixtures.points(s), destinationQuad: Fixtures.points(d))
            for i in 0..<9 {
                #expect(abs(t.elements[i] - matrix[i]) <= 1e-9 * max(1, abs(matrix[i])), "m\(i): \(t.elements[i]) vs \(matrix[i])")
            }
            #expect(t.elements == matrix)  // in fact bit-identical
            if let inverse {
                #expect(t.inverted().elements == inverse)
            }
        }
        // Double overload rounds to Float like OpenCV's Point2f API.
        let c = Fixtures.manifest.transforms[0]
        let dbl = PerspectiveTransform(sourceQuad: Fixtures.points(c.sourceQuad).map { SIMD2<Double>($0) },
                                       destinationQuad: Fixtures.points(c.destinationQuad).map { SIMD2<Double>($0) })
        #expect(dbl.elements == c.matrix)
        // Singular: OpenCV returns zeros with m22 = 1; invert of a singular matrix is zero.
        let p = SIMD2<Float>(1, 1)
        let singular = PerspectiveTransform(sourceQuad: [p, p, p, p], destinationQuad: [p, p, p, p])
        #expect(singular.elements == [0, 0, 0, 0, 0, 0, 0, 0, 1])
        #expect(singular.inverted().elements == [Double](repeating: 0, count: 9))
        let shift = PerspectiveTransform(rowMajor: [1, 0, 3, 0, 1, -2, 0, 0, 1])
        #expect(shift.apply(SIMD2(1, 1)) == SIMD2(4, -1))
        #expect(shift.inverted().apply(SIMD2(4, -1)) == SIMD2(1, 1))
    }

    @Test func warpPerspectiveIsBitExact() throws {
        let expectedAll = try Fixtures.bytes("warp/perspective.bin")
        var checked = 0
        for (n, c) in Fixtures.manifest.perspective.enumerated() {
            let t = PerspectiveTransform(sourceQuad: Fixtures.points(c.sourceQuad), destinationQuad: Fixtures.points(c.destinationQuad))
            let count = c.width * c.height * 3
            var out = [UInt8](repeating: 0xAB, count: count)
            out.withUnsafeMutableBufferPointer {
                warpPerspectiveRGB(Self.source, transform: t, width: c.width, height: c.height,
                                   border: c.border == "zero" ? .zero : .replicate, into: $0.baseAddress!)
            }
            let expected = expectedAll[c.offset..<(c.offset + count)]
            let bad = zip(out, expected).filter { $0 != $1 }.count
            #expect(bad == 0, "case \(n) (\(c.origin), \(c.width)×\(c.height), \(c.border)): \(bad) of \(count) values differ")
            checked += count
        }
        #expect(checked > 50_000)
    }

    @Test func warpAffineFloatMatchesMediaPipe() throws {
        let m = Fixtures.manifest.mask
        let mask = Fixtures.floats(try Fixtures.bytes("warp/mask.f32"), offset: 0, count: m.width * m.height)
        let expectedAll = try Fixtures.bytes("warp/affine.bin")
        for (n, c) in Fixtures.manifest.affine.enumerated() {
            let count = c.width * c.height
            var out = [Float](repeating: .nan, count: count)
            let im = c.inverseMatrix
            mask.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    warpAffineInverseFloat(source: src.baseAddress!, width: m.width, height: m.height,
                                           inverseMatrix: (im[0], im[1], im[2], im[3], im[4], im[5]),
                                           outputWidth: c.width, outputHeight: c.height, into: dst.baseAddress!)
                }
            }
            let expected = Fixtures.floats(expectedAll, offset: c.offset, count: count)
            let maxError = zip(out, expected).map { abs($0 - $1) }.max() ?? 0
            #expect(maxError <= 1e-6, "case \(n): max error \(maxError)")
            #expect(out == expected, "case \(n): not bit-identical")
        }
    }

    @Test func identityWarpCopiesAndBordersBehave() throws {
        let src = Self.source
        var out = [UInt8](repeating: 0, count: src.pixels.count)
        out.withUnsafeMutableBufferPointer {
            warpPerspectiveRGB(src, transform: .identity, width: src.width, height: src.height, border: .zero, into: $0.baseAddress!)
        }
        // Last row/column sample a 2×2 neighbourhood partly outside: weights (32767, 0, 0, 1) keep them exact.
        #expect(out == src.pixels)
        // Entirely outside: zero border gives 0, replicate gives the corner pixel.
        let far = PerspectiveTransform(rowMajor: [1, 0, 1000, 0, 1, 1000, 0, 0, 1])
        var z = [UInt8](repeating: 9, count: 12), r = [UInt8](repeating: 9, count: 12)
        z.withUnsafeMutableBufferPointer { warpPerspectiveRGB(src, transform: far, width: 2, height: 2, border: .zero, into: $0.baseAddress!) }
        r.withUnsafeMutableBufferPointer { warpPerspectiveRGB(src, transform: far, width: 2, height: 2, border: .replicate, into: $0.baseAddress!) }
        #expect(z == [UInt8](repeating: 0, count: 12))
        #expect(r == [UInt8](repeating: 0, count: 4).flatMap { _ in Array(src.pixels[0..<3]) })
        // A degenerate (all-zero) transform must not crash.
        var d = [UInt8](repeating: 9, count: 12)
        d.withUnsafeMutableBufferPointer {
            warpPerspectiveRGB(src, transform: PerspectiveTransform(rowMajor: [Double](repeating: 0, count: 9)), width: 2, height: 2,
                               border: .replicate, into: $0.baseAddress!)
        }
    }

    /// The vector path against its scalar twin: tiny and odd-sized sources (1×1 has no 4-byte taps at all),
    /// rotations and perspective that run off every edge, both borders, outputs whose rows are not whole
    /// vector blocks, and a band of rows on its own.
    @Test func warpMatchesItsScalarTwin() throws {
        var state: UInt32 = 0x2545_F491
        func noise(_ n: Int) -> [UInt8] {
            (0..<n).map { _ in state ^= state << 13; state ^= state >> 17; state ^= state << 5; return UInt8(truncatingIfNeeded: state >> 11) }
        }
        let sources = try [(1, 1), (2, 1), (1, 3), (3, 2), (5, 7), (64, 48), (129, 67)].map { w, h in
            try Image(rgb: noise(w * h * 3), width: w, height: h)
        }
        for src in sources {
            let sw = Float(src.width), sh = Float(src.height)
            let quads: [[SIMD2<Float>]] = [
                [SIMD2(0, sh), SIMD2(0, 0), SIMD2(sw, 0), SIMD2(sw, sh)],                                // whole image
                [SIMD2(-0.3 * sw, 1.2 * sh), SIMD2(0.1 * sw, -0.4 * sh), SIMD2(1.3 * sw, 0.05 * sh), SIMD2(0.9 * sw, 1.5 * sh)],
                [SIMD2(0.2 * sw, 0.9 * sh), SIMD2(0.25 * sw, 0.1 * sh), SIMD2(0.8 * sw, 0.2 * sh), SIMD2(0.7 * sw, 0.8 * sh)],
                [SIMD2(2 * sw, 3 * sh), SIMD2(2 * sw, 2 * sh), SIMD2(3 * sw, 2 * sh), SIMD2(3 * sw, 3 * sh)],  // all outside
                [SIMD2(0.5 * sw, 0.5 * sh), SIMD2(0.5 * sw, 0.49 * sh), SIMD2(0.51 * sw, 0.49 * sh), SIMD2(0.5 * sw, 0.5 * sh)],
            ]
            for (q, quad) in quads.enumerated() {
                for (w, h) in [(1, 1), (7, 5), (13, 3), (33, 17), (256, 9)] {
                    let t = PerspectiveTransform(sourceQuad: quad,
                                                 destinationQuad: [SIMD2(0, Float(h)), SIMD2(0, 0), SIMD2(Float(w), 0), SIMD2(Float(w), Float(h))])
                    for border in [BorderMode.zero, .replicate] {
                        var fast = [UInt8](repeating: 0xAB, count: w * h * 3), plain = fast
                        let band = (h / 3)..<h
                        fast.withUnsafeMutableBufferPointer {
                            warpPerspectiveRGB(src, transform: t, width: w, height: h, border: border, into: $0.baseAddress!, rows: band)
                            warpPerspectiveRGB(src, transform: t, width: w, height: h, border: border, into: $0.baseAddress!,
                                               rows: 0..<band.lowerBound)
                        }
                        plain.withUnsafeMutableBufferPointer {
                            warpPerspectiveRGBReference(src, transform: t, width: w, height: h, border: border, into: $0.baseAddress!)
                        }
                        let bad = zip(fast, plain).filter { $0 != $1 }.count
                        #expect(bad == 0, "\(src.width)×\(src.height) quad \(q) → \(w)×\(h) \(border): \(bad) bytes differ")
                    }
                }
            }
        }
    }

    @Test func warpSpeed() throws {
        let src = try Image(rgb: [UInt8](repeating: 77, count: 640 * 480 * 3), width: 640, height: 480)
        let t = PerspectiveTransform(sourceQuad: [SIMD2<Float>(100, 400), SIMD2(120, 60), SIMD2(520, 80), SIMD2(500, 420)],
                                     destinationQuad: [SIMD2(0, 256), SIMD2(0, 0), SIMD2(256, 0), SIMD2(256, 256)])
        var out = [UInt8](repeating: 0, count: 256 * 256 * 3)
        let clock = ContinuousClock()
        var best = Duration.seconds(100)
        for _ in 0..<5 {
            let elapsed = clock.measure {
                out.withUnsafeMutableBufferPointer {
                    warpPerspectiveRGB(src, transform: t, width: 256, height: 256, border: .zero, into: $0.baseAddress!)
                }
            }
            best = min(best, elapsed)
        }
        print("warpPerspectiveRGB 640×480 → 256×256: best \(best) (this build's optimization level)")
        #expect(out[0] == 77)
    }
}
