import BlazeImage
import Foundation

/// `Tests/BlazeKitTests/Fixtures`, the photos (and MediaPipe's results for them) that several test targets
/// read by path: they are the resources of BlazeKitTests only. Found from this file's own path.
public let fixturePhotosDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("BlazeKitTests/Fixtures")

/// The PNG photo `name` (e.g. `"pose/mpii_052475643.png"`) of `Tests/BlazeKitTests/Fixtures`.
public func fixturePhoto(_ name: String) throws -> Image {
    try Image(contentsOfPNGFile: fixturePhotosDirectory.appendingPathComponent(name).path)
}

/// `photo` halved (2×2 box average, rounded) and pasted with its top-left corner at `origin` into a flat grey
/// `width × height` frame: a person small in a wide frame, made at test time from the project's own photos.
public func pastedHalved(_ photo: Image, at origin: (x: Int, y: Int), width: Int = 1920, height: Int = 1080) throws -> Image {
    let source = photo.pixels
    var frame = [UInt8](repeating: 128, count: width * height * 3)
    for y in 0..<(photo.height / 2) {
        for x in 0..<(photo.width / 2) {
            for c in 0..<3 {
                var sum = 2
                for (dy, dx) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                    sum += Int(source[((2 * y + dy) * photo.width + 2 * x + dx) * 3 + c])
                }
                frame[((origin.y + y) * width + origin.x + x) * 3 + c] = UInt8(sum / 4)
            }
        }
    }
    return try Image(rgb: frame, width: width, height: height)
}

/// Frame `i` of a 1600×900 window panning right over `frame` (at least 1760×990), 4 px per frame from (40, 90):
/// a slow camera pan over a wide frame, for video-mode tests.
public func panWindow(over frame: Image, frame i: Int) throws -> Image {
    let w = 1600, h = 900, x0 = 40 + 4 * i, y0 = 90
    let source = frame.pixels
    var out = [UInt8](repeating: 0, count: w * h * 3)
    for y in 0..<h {
        let from = ((y0 + y) * frame.width + x0) * 3
        out.replaceSubrange((y * w * 3)..<((y + 1) * w * 3), with: source[from..<(from + w * 3)])
    }
    return try Image(rgb: out, width: w, height: h)
}

/// The `width × height` region of `photo` at (`x`, `y`) made `factor` times smaller by box averages (rounded): a
/// small photo that a person fills, made at test time from the project's own photos.
public func croppedShrunk(_ photo: Image, x: Int, y: Int, width: Int, height: Int, factor: Int) throws -> Image {
    let source = photo.pixels
    let w = width / factor, h = height / factor
    var out = [UInt8](repeating: 0, count: w * h * 3)
    for oy in 0..<h {
        for ox in 0..<w {
            for c in 0..<3 {
                var sum = factor * factor / 2
                for dy in 0..<factor {
                    for dx in 0..<factor { sum += Int(source[((y + oy * factor + dy) * photo.width + x + ox * factor + dx) * 3 + c]) }
                }
                out[(oy * w + ox) * 3 + c] = UInt8(sum / (factor * factor))
            }
        }
    }
    return try Image(rgb: out, width: w, height: h)
}
