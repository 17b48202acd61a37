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

    /// Runs the vector warp over all rows and over one band of rows, each into a buffer prefilled with a
    /// sentinel and 8 bytes longer than the image, and expects the scalar twin's bytes in the rows asked for
    /// and the sentinel everywhere else (a store running past a row's end or the buffer shows up here).
    static func expectTwinsAgree(_ src: Image, _ t: PerspectiveTransform, width w: Int, height h: Int, _ border: BorderMode,
                                 _ label: @autoclosure () -> String) {
        let count = w * h * 3
        var plain = [UInt8](repeating: 0, count: count)
        plain.withUnsafeMutableBufferPointer {
            warpPerspectiveRGBReference(src, transform: t, width: w, height: h, border: border, into: $0.baseAddress!)
        }
        let band = (h / 3)..<max(h / 3 + 1, h - h / 4)
        for (rows, sentinel) in [(0..<h, UInt8(0xA5)), (band, 0x5A)] {
            var fast = [UInt8](repeating: sentinel, count: count + 8)
            fast.withUnsafeMutableBufferPointer {
                warpPerspectiveRGB(src, transform: t, width: w, height: h, border: border, into: $0.baseAddress!, rows: rows)
            }
            let inside = (rows.lowerBound * w * 3)..<(rows.upperBound * w * 3)
            let bad = inside.filter { fast[$0] != plain[$0] }.count
            let stray = fast.indices.filter { !inside.contains($0) && fast[$0] != sentinel }
            #expect(bad == 0 && stray.isEmpty,
                    "\(label()) \(src.width)×\(src.height) → \(w)×\(h) \(border) rows \(rows): \(bad) bytes differ from the scalar twin, \(stray.count) written outside the rows (first at \(stray.first.map(String.init) ?? "-"))")
        }
    }

    static func noiseImage(_ w: Int, _ h: Int, seed: UInt32) throws -> Image {
        var state = seed
        let bytes = (0..<(w * h * 3)).map { _ in
            state ^= state << 13; state ^= state >> 17; state ^= state << 5; return UInt8(truncatingIfNeeded: state >> 11)
        }
        return try Image(rgb: bytes, width: w, height: h)
    }

    /// The vector path against its scalar twin: tiny and odd-sized sources (1×1 and 1-wide ones take the scalar
    /// path, 2-wide ones have a single column pair), rotations and perspective that run off every edge, both
    /// borders, outputs whose rows are not whole vector groups or blocks, and bands of rows on their own.
    @Test func warpMatchesItsScalarTwin() throws {
        let sources = try [(1, 1), (2, 1), (1, 3), (2, 2), (3, 2), (5, 7), (64, 48), (129, 67)].map { w, h in
            try Self.noiseImage(w, h, seed: 0x2545_F491 &+ UInt32(w * 1000 + h))
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
                for (w, h) in [(1, 1), (7, 5), (9, 2), (10, 1), (13, 3), (33, 17), (66, 17), (67, 16), (256, 9)] {
                    let t = PerspectiveTransform(sourceQuad: quad,
                                                 destinationQuad: [SIMD2(0, Float(h)), SIMD2(0, 0), SIMD2(Float(w), 0), SIMD2(Float(w), Float(h))])
                    for border in [BorderMode.zero, .replicate] {
                        Self.expectTwinsAgree(src, t, width: w, height: h, border, "quad \(q)")
                    }
                }
            }
        }
    }

    /// Noise YUV 4:2:0 planes of any size, with rows `pad` bytes longer than the planes' widths, in memory
    /// of their own (the planes do not copy it, as a decoder's frame).
    static func noisePlanes(_ w: Int, _ h: Int, pad: Int, seed: UInt32) throws -> YUV420Planes {
        final class Memory {
            let base: UnsafeMutablePointer<UInt8>
            init(count: Int) { base = .allocate(capacity: count) }
            deinit { base.deallocate() }
        }
        let cw = (w + 1) / 2, ch = (h + 1) / 2
        let ys = w + pad, cs = cw + pad
        let memory = Memory(count: ys * h + 2 * cs * ch)
        var state = seed
        for i in 0..<(ys * h + 2 * cs * ch) {
            state ^= state << 13; state ^= state >> 17; state ^= state << 5
            memory.base[i] = UInt8(truncatingIfNeeded: state >> 11)
        }
        let base = UnsafePointer(memory.base)
        return try YUV420Planes(width: w, height: h, y: base, yStride: ys, u: base + ys * h, uStride: cs,
                                v: base + ys * h + cs * ch, vStride: cs, owner: memory)
    }

    /// The vector warp sampling YUV planes directly against the scalar twin on the planes' RGB: odd sizes
    /// (a last chroma column and row that cover one luma column or row), padded rows, tap pairs starting on
    /// even and odd columns, rotations and perspective off every edge, both borders, and bands of rows.
    @Test func warpOfYUVPlanesMatchesTheTwinOnTheirRGB() throws {
        for (n, (w, h, pad)) in [(2, 1, 0), (2, 2, 3), (3, 2, 0), (5, 7, 1), (64, 48, 16), (129, 67, 5)].enumerated() {
            let planes = try Self.noisePlanes(w, h, pad: pad, seed: 0x1234_5678 &+ UInt32(n))
            let src = Image(yuv420: planes)
            let sw = Float(w), sh = Float(h)
            let quads: [[SIMD2<Float>]] = [
                [SIMD2(0, sh), SIMD2(0, 0), SIMD2(sw, 0), SIMD2(sw, sh)],
                [SIMD2(-0.3 * sw, 1.2 * sh), SIMD2(0.1 * sw, -0.4 * sh), SIMD2(1.3 * sw, 0.05 * sh), SIMD2(0.9 * sw, 1.5 * sh)],
                [SIMD2(0.2 * sw, 0.9 * sh), SIMD2(0.25 * sw, 0.1 * sh), SIMD2(0.8 * sw, 0.2 * sh), SIMD2(0.7 * sw, 0.8 * sh)],
            ]
            for (q, quad) in quads.enumerated() {
                for (ow, oh) in [(1, 1), (9, 2), (33, 17), (67, 16)] {
                    let t = PerspectiveTransform(sourceQuad: quad,
                                                 destinationQuad: [SIMD2(0, Float(oh)), SIMD2(0, 0), SIMD2(Float(ow), 0), SIMD2(Float(ow), Float(oh))])
                    for border in [BorderMode.zero, .replicate] {
                        Self.expectTwinsAgree(src, t, width: ow, height: oh, border, "YUV quad \(q)")
                    }
                }
            }
            // Half-pixel shifts put tap pairs on every column parity.
            for dx in [0.0, 0.5, 1.0, 1.5] {
                let t = PerspectiveTransform(rowMajor: [1, 0, -dx, 0, 1, -0.25, 0, 0, 1])
                Self.expectTwinsAgree(src, t, width: w, height: h, .replicate, "YUV shift \(dx)")
            }
        }
    }

    /// Shifts that put samples exactly on, just inside and just outside the first and last source
    /// rows and columns (whole pixels, where OpenCV's (0, 0) weights are `32767, 0, 0, 1`, and fractions),
    /// for narrow sources and outputs 1…11 pixels wide.
    @Test func warpTwinsAgreeOnEdgeShifts() throws {
        for (sw, sh) in [(2, 1), (2, 3), (3, 1), (4, 2), (9, 3)] {
            let src = try Self.noiseImage(sw, sh, seed: 0x9E37_79B9 &+ UInt32(sw * 100 + sh))
            let s = Double(sw)
            let xShifts = [-12, -2, -1.5, -1, -1.0 / 32, 0, 1.0 / 32, 0.5, s - 2, s - 1.5, s - 1, s - 1 + 1.0 / 32, s, s + 3]
            let yShifts = [-1.0, -1.0 / 32, 0, 0.75, Double(sh) - 1, Double(sh) - 0.5, Double(sh)]
            for w in 1...11 {
                for tx in xShifts {
                    for ty in yShifts {
                        // Destination → source is (x + tx − (w − 1)·[tx ≥ s − 2], y + ty): the right end of a
                        // row lands on the shift when it is near the last column.
                        let dx = tx >= s - 2 ? tx - Double(w - 1) : tx
                        let t = PerspectiveTransform(rowMajor: [1, 0, -dx, 0, 1, -ty, 0, 0, 1])
                        for border in [BorderMode.zero, .replicate] {
                            Self.expectTwinsAgree(src, t, width: w, height: 3, border, "shift (\(dx), \(ty))")
                        }
                    }
                }
            }
        }
    }

    /// Transforms whose coordinates leave the 1/32-pixel range: huge scales and shifts (saturated to
    /// ±32768 pixels, or clamped to the Int32 range before that), a projective term that makes `W` exactly
    /// 0 in the middle of a row and flips its sign, NaN and infinite elements, and singular matrices.
    @Test func warpTwinsAgreeOnDegenerateTransforms() throws {
        let src = try Self.noiseImage(7, 5, seed: 77)
        let nan = Double.nan, inf = Double.infinity
        let transforms: [[Double]] = [
            [1e-5, 0, 0, 0, 1e-5, 0, 0, 0, 1],              // 10^5 source pixels per output pixel
            [1, 0, 1e6, 0, 1, -1e6, 0, 0, 1], [1, 0, -3e9, 0, 1, 3e9, 0, 0, 1], [1, 0, 1048.6, 0, 1, 1048.9, 0, 0, 1],
            [1e-160, 0, 0, 0, 1, 0, 0, 0, 1],               // inverse 1e160: beyond Int32 before rounding
            [1, 0, 0, 0, 1, 0, 1, 0, -4],                   // inverse W = (x − 1)/4: 0 at x = 1
            [1, 0.5, 0, -0.25, 1, 0, 0.5, 0.25, -2],
            [nan, 0, 0, 0, 1, 0, 0, 0, 1], [1, 0, inf, 0, 1, 0, 0, 0, 1], [1, 0, 0, 0, 1, 0, 0, 0, -inf],
            [Double](repeating: 0, count: 9), [1, 2, 3, 2, 4, 6, 0, 0, 1],
        ]
        for (i, m) in transforms.enumerated() {
            for (w, h) in [(1, 1), (9, 3), (17, 2)] {
                for border in [BorderMode.zero, .replicate] {
                    Self.expectTwinsAgree(src, PerspectiveTransform(rowMajor: m), width: w, height: h, border, "transform \(i)")
                }
            }
        }
    }

    /// The computed weights of the vector path are OpenCV's table, all 32×32 sub-pixel cells.
    @Test func computedWeightsAreOpenCVsTable() {
        for fy in Int32(0)..<32 {
            for fx0 in stride(from: Int32(0), to: 32, by: 8) {
                let fx = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7) &+ fx0
                let (w0, w1, w2, w3) = bilinearWeightsFixed(fx: fx, fy: SIMD8(repeating: fy))
                for lane in 0..<8 {
                    let i = Int(fy * 32 + fx[lane]) * 4
                    let table = Array(bilinearTabFixed[i..<(i + 4)])
                    #expect([w0[lane], w1[lane], w2[lane], w3[lane]] == table, "cell fx \(fx[lane]), fy \(fy)")
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
