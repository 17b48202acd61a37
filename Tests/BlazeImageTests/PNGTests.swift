import Foundation
import Testing
@testable import BlazeImage
import BlazeTestSupport

@Suite struct PNGTests {
    @Test(arguments: Fixtures.manifest.png.map(\.name))
    func decodesLikeMediaPipe(_ name: String) throws {
        let info = try #require(Fixtures.manifest.png.first { $0.name == name })
        let image = try Image(contentsOfPNGFile: Fixtures.path("png/\(name).png"))
        #expect(image.width == info.width && image.height == info.height)
        #expect(image.orientation == .up)
        let expected = try Fixtures.bytes("png/\(name).rgb")
        #expect(image.pixels.count == expected.count)
        let mismatches = zip(image.pixels, expected).filter { $0 != $1 }.count
        #expect(mismatches == 0, "\(name): \(mismatches) of \(expected.count) bytes differ from MediaPipe's decode")
    }

    @Test func memoryAndFileDecodeAgree() throws {
        let bytes = try Fixtures.bytes("png/rgba8_interlaced.png")
        let a = try Image(pngData: bytes, name: "x")
        let b = try Image(contentsOfPNGFile: Fixtures.path("png/rgba8_interlaced.png"))
        #expect(a == b)
    }

    @Test func missingFileThrowsWithPath() {
        #expect(throws: ImageError.self) { try Image(contentsOfPNGFile: "/nonexistent/dir/x.png") }
        do {
            _ = try Image(contentsOfPNGFile: "/nonexistent/dir/x.png")
        } catch {
            #expect("\(error)".contains("/nonexistent/dir/x.png"))
        }
    }

    @Test func truncatedPNGsThrowNeverCrash() throws {
        for name in ["rgb8_interlaced", "palette8_trns", "gray16", "rgba8"] {
            let full = try Fixtures.bytes("png/\(name).png")
            let reference = try Image(pngData: full)
            // Everything before the final IEND chunk (12 bytes) is required image data.
            for length in 0..<(full.count - 12) {
                do {
                    _ = try Image(pngData: Array(full.prefix(length)), name: "\(name)[..<\(length)]")
                    Issue.record("\(name) truncated to \(length) of \(full.count) bytes decoded without error")
                } catch let error as ImageError {
                    guard case let .decodingFailed(n, reason) = error else {
                        Issue.record("unexpected error \(error)"); continue
                    }
                    #expect(n == "\(name)[..<\(length)]" && !reason.isEmpty)
                }
            }
            // A missing/partial IEND may be tolerated, but then the pixels must be complete.
            for length in (full.count - 12)..<full.count {
                if let image = try? Image(pngData: Array(full.prefix(length))) { #expect(image == reference) }
            }
        }
    }

    @Test func corruptedPNGsNeverCrash() throws {
        let full = try Fixtures.bytes("png/rgb8.png")
        var rng = SplitMix64(seed: 42)
        var failures = 0
        for trial in 0..<400 {
            var bytes = full
            let flips = 1 + trial % 3
            for _ in 0..<flips {
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[i] ^= UInt8.random(in: 1...255, using: &rng)
            }
            do {
                let image = try Image(pngData: bytes)
                #expect(image.pixels.count == image.width * image.height * 3)
            } catch let error as ImageError {
                failures += 1
                switch error {
                case .decodingFailed, .invalidSize: break
                default: Issue.record("unexpected error \(error)")
                }
            }
        }
        #expect(failures > 300)  // nearly every flip hits a CRC-protected critical chunk
    }

    @Test func garbageThrowsDecodingFailed() {
        var rng = SplitMix64(seed: 7)
        for length in [0, 1, 7, 8, 33, 100, 5000] {
            let garbage = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            #expect(throws: ImageError.self) { try Image(pngData: garbage, name: "garbage") }
            // Correct signature followed by garbage.
            let sig: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
            #expect(throws: ImageError.self) { try Image(pngData: sig + garbage, name: "garbage") }
        }
        do {
            _ = try Image(pngData: [1, 2, 3], name: "three-bytes")
        } catch let ImageError.decodingFailed(name, reason) {
            #expect(name == "three-bytes" && !reason.isEmpty)
        } catch { Issue.record("unexpected \(error)") }
    }

    @Test func hostileSizesRejectedBeforeAllocation() {
        for (w, h) in [(100_000, 100_000), (16385, 1), (1, 16385), (16384, 8192), (0x7fff_ffff, 1)] as [(UInt32, UInt32)] {
            do {
                _ = try Image(pngData: headerOnlyPNG(width: w, height: h), name: "huge.png")
                Issue.record("\(w)×\(h) accepted")
            } catch let ImageError.invalidSize(name, width, height) {
                #expect(name == "huge.png" && width == Int(w) && height == Int(h))
            } catch let ImageError.decodingFailed(_, reason) {
                // libpng itself refuses widths beyond its own limits (PNG_USER_WIDTH_MAX = 1e6).
                #expect(w > 1_000_000 || h > 1_000_000, "\(w)×\(h): \(reason)")
            } catch { Issue.record("unexpected \(error)") }
        }
        #expect(throws: ImageError.self) { try Image(pngData: headerOnlyPNG(width: 0, height: 5)) }
        // Largest accepted size passes the header check (then fails on the missing IDAT, not on size).
        do {
            _ = try Image(pngData: headerOnlyPNG(width: 8192, height: 8192))
        } catch let ImageError.decodingFailed(_, reason) {
            #expect(!reason.isEmpty)
        } catch { Issue.record("unexpected \(error)") }
    }

    @Test func encodeDecodeRoundTrip() throws {
        var rng = SplitMix64(seed: 3)
        for (w, h) in [(1, 1), (5, 3), (64, 48), (301, 2)] {
            let rgb = (0..<(w * h * 3)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let image = try Image(rgb: rgb, width: w, height: h)
            let png = try image.pngData()
            #expect(Array(png.prefix(8)) == [137, 80, 78, 71, 13, 10, 26, 10])
            #expect(try Image(pngData: png) == image)
            let gray = (0..<(w * h)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let grayPNG = try Image.pngData(gray: gray, width: w, height: h)
            let decoded = try Image(pngData: grayPNG)
            #expect(decoded.pixels == gray.flatMap { [$0, $0, $0] })
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("blazeimage-\(getpid()).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let image = try Image(contentsOfPNGFile: Fixtures.path("png/rgb8.png"))
        try image.writePNG(to: path)
        #expect(try Image(contentsOfPNGFile: path) == image)
        #expect(throws: ImageError.self) { try image.writePNG(to: "/nonexistent/dir/out.png") }
        #expect(throws: ImageError.self) { try Image.pngData(gray: [1, 2, 3], width: 2, height: 2) }
    }

    @Test func colorSpaceChunksAreStrippedOnlyWhenWellFormed() throws {
        let withGamma = try Fixtures.bytes("png/rgb8_gamma1.png")
        let stripped = stripColorSpaceChunks(withGamma)
        #expect(stripped.count == withGamma.count - 16)  // one gAMA chunk: 12 + 4 bytes
        let truncated = Array(withGamma.prefix(40))
        #expect(stripColorSpaceChunks(truncated) == truncated)
    }
}
