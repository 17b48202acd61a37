import Foundation
@testable import BlazeImage

/// Loads `Fixtures/` (written by `Tools/fixtures/make_image_fixtures.py`).
enum Fixtures {
    struct PNGCase: Decodable { let name: String; let width: Int; let height: Int }
    struct PerspectiveCase: Decodable {
        let origin: String
        let sourceQuad: [Float]
        let destinationQuad: [Float]
        let matrix: [Double]
        let width: Int
        let height: Int
        let border: String
        let offset: Int
    }
    struct TransformCase: Decodable {
        let sourceQuad: [Float]
        let destinationQuad: [Float]
        let matrix: [Double]
        let inverse: [Double]
    }
    struct AffineCase: Decodable {
        let rect: [Double]
        let inverseMatrix: [Double]
        let width: Int
        let height: Int
        let offset: Int
    }
    struct Size: Decodable { let width: Int; let height: Int }
    struct Manifest: Decodable {
        let png: [PNGCase]
        let perspective: [PerspectiveCase]
        let transforms: [TransformCase]
        let affine: [AffineCase]
        let source: Size
        let mask: Size
    }

    static let directory: URL = {
        guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            fatalError("BlazeImageTests: Fixtures resource directory missing")
        }
        return url
    }()

    static func bytes(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(relative)))
    }

    static func path(_ relative: String) -> String { directory.appendingPathComponent(relative).path }

    static let manifest: Manifest = {
        do {
            return try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: directory.appendingPathComponent("manifest.json")))
        } catch {
            fatalError("BlazeImageTests: cannot read Fixtures/manifest.json: \(error)")
        }
    }()

    static func points(_ flat: [Float]) -> [SIMD2<Float>] {
        stride(from: 0, to: flat.count, by: 2).map { SIMD2(flat[$0], flat[$0 + 1]) }
    }

    static func floats(_ bytes: [UInt8], offset: Int, count: Int) -> [Float] {
        (0..<count).map { i in
            let b = offset + 4 * i
            return Float(bitPattern: UInt32(bytes[b]) | UInt32(bytes[b + 1]) << 8 | UInt32(bytes[b + 2]) << 16 | UInt32(bytes[b + 3]) << 24)
        }
    }
}

/// CRC-32 (PNG chunk CRC), for building hostile headers.
func crc32(_ bytes: [UInt8]) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for b in bytes {
        c ^= UInt32(b)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }
    return c ^ 0xFFFF_FFFF
}

func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 255), UInt8((v >> 8) & 255), UInt8(v & 255)] }

func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let t = Array(type.utf8)
    return be32(UInt32(data.count)) + t + data + be32(crc32(t + data))
}

/// A PNG signature plus IHDR claiming `width`×`height` (8-bit RGB), with valid CRCs, then a tiny IDAT (a
/// zlib stream of one empty stored block) and IEND: libpng's header read succeeds, the data is missing.
func headerOnlyPNG(width: UInt32, height: UInt32) -> [UInt8] {
    [137, 80, 78, 71, 13, 10, 26, 10] + chunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, 0])
        + chunk("IDAT", [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
}
