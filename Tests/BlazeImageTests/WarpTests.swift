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
