import Foundation
import Testing
@testable import BlazeImage

@Suite struct ImageTests {
    // 3×2 test pattern: pixel (x, y) = (10x + y, 100 + x, 200 + y).
    static let w = 3, h = 2
    static func rgb(_ x: Int, _ y: Int) -> [UInt8] { [UInt8(10 * x + y), UInt8(100 + x), UInt8(200 + y)] }
    static let packed: [UInt8] = (0..<h).flatMap { y in (0..<w).flatMap { x in rgb(x, y) } }

    @Test func rawFormatsWithPaddedStrides() throws {
        for format in [PixelFormat.rgb8, .rgba8, .bgra8, .gray8] {
            let bpp = format.bytesPerPixel
            let stride = Self.w * bpp + 5
            var buffer = [UInt8](repeating: 0xEE, count: stride * (Self.h - 1) + Self.w * bpp)  // minimal length
            for y in 0..<Self.h {
                for x in 0..<Self.w {
                    let p = Self.rgb(x, y), o = y * stride + x * bpp
                    switch format {
                    case .rgb8: buffer[o] = p[0]; buffer[o + 1] = p[1]; buffer[o + 2] = p[2]
                    case .rgba8: buffer[o] = p[0]; buffer[o + 1] = p[1]; buffer[o + 2] = p[2]; buffer[o + 3] = 7
                    case .bgra8: buffer[o] = p[2]; buffer[o + 1] = p[1]; buffer[o + 2] = p[0]; buffer[o + 3] = 7
                    case .gray8: buffer[o] = p[0]
                    }
                }
            }
            let image = try buffer.withUnsafeBytes {
                try Image(pixels: $0, width: Self.w, height: Self.h, bytesPerRow: stride, format: format, orientation: .left)
            }
            #expect(image.orientation == .left)
            if format == .gray8 {
                #expect(image.pixels == Self.packed.enumerated().map { Self.packed[$0.offset - $0.offset % 3] })
            } else {
                #expect(image.pixels == Self.packed, "\(format)")
            }
        }
    }

    @Test func invalidRawBuffersThrow() throws {
        let buffer = [UInt8](repeating: 0, count: 100)
        try buffer.withUnsafeBytes { raw in
            #expect(throws: ImageError.invalidBuffer(option: "bytesPerRow", expected: "≥ 12 (width 3 × 4)", actual: "11")) {
                try Image(pixels: raw, width: 3, height: 2, bytesPerRow: 11, format: .rgba8)
            }
            #expect(throws: ImageError.self) {
                try Image(pixels: UnsafeRawBufferPointer(rebasing: raw[0..<23]), width: 3, height: 2, bytesPerRow: 12, format: .rgba8)
            }
            // Exactly the minimum (12 + 12 = 24 bytes... last row needs only width·bpp).
            _ = try Image(pixels: UnsafeRawBufferPointer(rebasing: raw[0..<24]), width: 3, height: 2, bytesPerRow: 12, format: .rgba8)
            _ = try Image(pixels: UnsafeRawBufferPointer(rebasing: raw[0..<29]), width: 3, height: 2, bytesPerRow: 20, format: .rgb8)
            #expect(throws: ImageError.self) {
                try Image(pixels: UnsafeRawBufferPointer(rebasing: raw[0..<28]), width: 3, height: 2, bytesPerRow: 20, format: .rgb8)
            }
            #expect(throws: ImageError.invalidSize(name: "Image(pixels:)", width: 0, height: 2)) {
                try Image(pixels: raw, width: 0, height: 2, bytesPerRow: 12, format: .rgba8)
            }
        }
        #expect(throws: ImageError.self) { try Image(rgb: [1, 2], width: 1, height: 1) }
        #expect(throws: ImageError.invalidSize(name: "Image(rgb:)", width: 16385, height: 1)) {
            try Image(rgb: [], width: 16385, height: 1)
        }
        #expect(throws: ImageError.invalidSize(name: "Image(rgb:)", width: 16384, height: 4097)) {
            try Image(rgb: [], width: 16384, height: 4097)
        }
    }

    @Test func errorDescriptionsNameTheProblem() {
        #expect("\(ImageError.invalidSize(name: "a.png", width: 0, height: 3))".contains("a.png"))
        #expect("\(ImageError.invalidSize(name: "a.png", width: 0, height: 3))".contains("16384"))
        #expect("\(ImageError.decodingFailed(name: "b.png", reason: "CRC error"))".contains("CRC error"))
        #expect("\(ImageError.unsupportedOrientation(.leftMirrored))".contains("leftMirrored"))
    }

    @Test func orientedRotatesLikeUIImage() throws {
        // 3×2:  a b c
        //       d e f
        var image = try Image(rgb: Self.packed, width: 3, height: 2)
        func px(_ i: Image, _ x: Int, _ y: Int) -> [UInt8] { Array(i.pixels[(y * i.width + x) * 3..<(y * i.width + x) * 3 + 3]) }
        #expect(try image.oriented() == image)

        image.orientation = .down
        let down = try image.oriented()
        #expect(down.width == 3 && down.height == 2 && down.orientation == .up)
        #expect(px(down, 0, 0) == Self.rgb(2, 1) && px(down, 2, 1) == Self.rgb(0, 0))

        image.orientation = .right   // rotate 90° clockwise: d a / e b / f c
        let right = try image.oriented()
        #expect(right.width == 2 && right.height == 3)
        #expect(px(right, 0, 0) == Self.rgb(0, 1) && px(right, 1, 0) == Self.rgb(0, 0) && px(right, 0, 2) == Self.rgb(2, 1))

        image.orientation = .left    // rotate 90° counter-clockwise: c f / b e / a d
        let left = try image.oriented()
        #expect(left.width == 2 && left.height == 3)
        #expect(px(left, 0, 0) == Self.rgb(2, 0) && px(left, 1, 0) == Self.rgb(2, 1) && px(left, 0, 2) == Self.rgb(0, 0))

        image.orientation = .upMirrored     // c b a / f e d
        let upMirrored = try image.oriented()
        #expect(upMirrored.width == 3 && px(upMirrored, 0, 0) == Self.rgb(2, 0) && px(upMirrored, 2, 1) == Self.rgb(0, 1))
        image.orientation = .downMirrored   // d e f / a b c
        let downMirrored = try image.oriented()
        #expect(downMirrored.width == 3 && px(downMirrored, 0, 0) == Self.rgb(0, 1) && px(downMirrored, 2, 1) == Self.rgb(2, 0))
        image.orientation = .leftMirrored   // transpose: a d / b e / c f
        let leftMirrored = try image.oriented()
        #expect(leftMirrored.width == 2 && leftMirrored.height == 3)
        #expect(px(leftMirrored, 1, 0) == Self.rgb(0, 1) && px(leftMirrored, 0, 2) == Self.rgb(2, 0))
        image.orientation = .rightMirrored  // f c / e b / d a
        let rightMirrored = try image.oriented()
        #expect(rightMirrored.width == 2 && rightMirrored.height == 3)
        #expect(px(rightMirrored, 0, 0) == Self.rgb(2, 1) && px(rightMirrored, 1, 2) == Self.rgb(0, 0))
        // Each mirrored orientation is its plain rotation of the left–right flipped image.
        for (mirrored, plain) in [(ImageOrientation.upMirrored, ImageOrientation.up), (.downMirrored, .down),
                                  (.leftMirrored, .left), (.rightMirrored, .right)] {
            image.orientation = .upMirrored
            var flipped = try image.oriented()
            flipped.orientation = plain
            image.orientation = mirrored
            #expect(try image.oriented() == flipped.oriented(), "\(mirrored)")
        }
    }

    @Test func rotationRadiansFollowsIOSTasks() throws {
        var image = try Image(rgb: [0, 0, 0], width: 1, height: 1)
        let expected: [ImageOrientation: Float] = [.up: 0, .right: Float(3 * Double.pi / 2), .down: Float(Double.pi),
                                                   .left: Float(Double.pi / 2)]
        for (o, r) in expected {
            image.orientation = o
            #expect(image.rotationRadians == r, "\(o)")
        }
        #expect(ImageOrientation.allCases.count == 8)
        #expect(ImageOrientation(rawValue: "rightMirrored") == .rightMirrored)
    }
}

/// Images of YUV 4:2:0 planes.
@Suite struct YUV420ImageTests {
    /// libswscale's fixed point at the ends and middle of the range: limited-range black and white, grey,
    /// and the primaries' usual limited-range codes (values as libswscale's converter gives them).
    @Test func conversionAtKnownSamples() throws {
        let samples: [((Int32, Int32, Int32), (UInt8, UInt8, UInt8))] = [
            ((16, 128, 128), (0, 0, 0)), ((235, 128, 128), (255, 255, 255)), ((126, 128, 128), (128, 128, 128)),
            ((81, 90, 240), (253, 0, 0)), ((145, 54, 34), (0, 254, 0)), ((41, 240, 110), (0, 0, 254)),
        ]
        for ((y, u, v), expected) in samples {
            let l = YUVToRGB.bt601.luma(y)
            let rgb = (YUVToRGB.clamp(l + YUVToRGB.bt601.red(v: v)), YUVToRGB.clamp(l + YUVToRGB.bt601.green(u: u, v: v)), YUVToRGB.clamp(l + YUVToRGB.bt601.blue(u: u)))
            #expect(rgb == expected, "Y \(y) U \(u) V \(v): \(rgb), expected \(expected)")
        }
    }

    /// The coefficients libswscale derives for the matrices and ranges OpenCV's frames use (`ff_yuv2rgb_c_init_tables`
    /// with the default brightness, contrast and saturation): luma gain and offset, V → R, U → B, U → G, V → G.
    @Test func coefficientsPerMatrixAndRange() {
        func terms(_ c: YUVToRGB) -> [Int32] { [c.lumaCoefficient, c.lumaOffset, c.redFromV, c.blueFromU, c.greenFromU, c.greenFromV] }
        #expect(terms(.bt601) == [9539, 128, 13075, 16525, -3209, -6660])
        #expect(terms(YUVToRGB(matrix: .bt709, fullRange: false)) == [9539, 128, 14686, 17305, -1747, -4366])
        #expect(terms(YUVToRGB(matrix: .bt601, fullRange: true)) == [8192, 0, 11485, 14516, -2819, -5850])
        #expect(terms(YUVToRGB(matrix: .bt2020, fullRange: false)) == [9539, 128, 13752, 17545, -1535, -5328])
        // Full range: luma passes through unchanged.
        let full = YUVToRGB(matrix: .bt709, fullRange: true)
        #expect((0...255).allSatisfy { full.luma(Int32($0)) == Int32($0) })
    }

    /// Odd sizes: the last chroma column and row cover a single luma column or row; every pixel's RGB is
    /// the conversion of its luma and the chroma sample of (x/2, y/2), both through `rgbPixels` and `rgb(x:y:)`.
    @Test func pixelsUseTheChromaSampleOfEachTwoByTwoBlock() throws {
        let (w, h) = (5, 3)
        let y = (0..<(w * h)).map { UInt8(16 + 13 * $0) }
        let u = (0..<6).map { UInt8(40 + 30 * $0) }, v = (0..<6).map { UInt8(220 - 31 * $0) }
        let planes = try YUV420Planes(width: w, height: h, y: y, u: u, v: v)
        let image = Image(yuv420: planes)
        #expect(image.width == w && image.height == h && image.yuv420 != nil)
        let pixels = image.pixels
        for row in 0..<h {
            for x in 0..<w {
                let l = YUVToRGB.bt601.luma(Int32(y[row * w + x]))
                let cu = Int32(u[row / 2 * 3 + x / 2]), cv = Int32(v[row / 2 * 3 + x / 2])
                let expected = [YUVToRGB.clamp(l + YUVToRGB.bt601.red(v: cv)), YUVToRGB.clamp(l + YUVToRGB.bt601.green(u: cu, v: cv)),
                                YUVToRGB.clamp(l + YUVToRGB.bt601.blue(u: cu))]
                #expect(Array(pixels[(row * w + x) * 3..<(row * w + x) * 3 + 3]) == expected, "pixel (\(x), \(row))")
                let one = planes.rgb(x: x, y: row)
                #expect([one.r, one.g, one.b] == expected)
            }
        }
        // Compares by its RGB with an RGB image of the same pixels.
        #expect(image == (try Image(rgb: pixels, width: w, height: h)))
        #expect(try image.oriented().yuv420 != nil, "an upright image is returned as it is")
    }

    @Test func wrongPlaneSizesAreRefused() throws {
        #expect(throws: ImageError.invalidBuffer(option: "u.count", expected: "6", actual: "5")) {
            try YUV420Planes(width: 5, height: 3, y: [UInt8](repeating: 0, count: 15), u: [UInt8](repeating: 0, count: 5),
                             v: [UInt8](repeating: 0, count: 6))
        }
        #expect(throws: ImageError.invalidSize(name: "YUV420Planes(width:height:y:u:v:)", width: 0, height: 3)) {
            try YUV420Planes(width: 0, height: 3, y: [], u: [], v: [])
        }
    }
}
