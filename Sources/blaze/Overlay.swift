import BlazeKit

/// Draws landmarks and their connections onto an RGB8 pixel buffer for `--overlay-dir`.
struct OverlayCanvas {
    var pixels: [UInt8]
    let width: Int
    let height: Int

    mutating func plot(_ x: Int, _ y: Int, _ color: (UInt8, UInt8, UInt8)) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let i = (y * width + x) * 3
        pixels[i] = color.0
        pixels[i + 1] = color.1
        pixels[i + 2] = color.2
    }

    /// A filled disc of `radius` pixels around (`cx`, `cy`).
    mutating func disc(_ cx: Double, _ cy: Double, radius: Int, _ color: (UInt8, UInt8, UInt8)) {
        guard cx.isFinite, cy.isFinite, abs(cx) < 1e6, abs(cy) < 1e6 else { return }
        let x0 = Int(cx.rounded()), y0 = Int(cy.rounded())
        for dy in -radius...radius {
            for dx in -radius...radius where dx * dx + dy * dy <= radius * radius {
                plot(x0 + dx, y0 + dy, color)
            }
        }
    }

    /// A line of about `thickness` pixels from (`x0`, `y0`) to (`x1`, `y1`).
    mutating func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, thickness: Int, _ color: (UInt8, UInt8, UInt8)) {
        guard [x0, y0, x1, y1].allSatisfy({ $0.isFinite && abs($0) < 1e6 }) else { return }
        let steps = max(1, Int(max(abs(x1 - x0), abs(y1 - y0)).rounded(.up)))
        let r = max(0, thickness / 2)
        for s in 0...steps {
            let t = Double(s) / Double(steps)
            disc(x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, radius: r, color)
        }
    }

    /// A skeleton over `points` (normalized to the canvas): a line for each connection, then, with `joints`,
    /// a disc on every point. Connections to points that are missing are left out.
    mutating func skeleton(_ points: [NormalizedLandmark], connections: [(Int, Int)], thickness: Int, _ color: (UInt8, UInt8, UInt8),
                           joints: (radius: Int, color: (UInt8, UInt8, UInt8))? = nil) {
        let w = Double(width), h = Double(height)
        for (i, j) in connections where points.indices.contains(i) && points.indices.contains(j) {
            let a = points[i], b = points[j]
            line(Double(a.x) * w, Double(a.y) * h, Double(b.x) * w, Double(b.y) * h, thickness: thickness, color)
        }
        guard let joints else { return }
        for p in points { disc(Double(p.x) * w, Double(p.y) * h, radius: joints.radius, joints.color) }
    }

    /// The colour of identity `id`: one of ten distinct colours, the same for an ID all through a clip.
    static func identityColor(_ id: Int) -> (UInt8, UInt8, UInt8) {
        let palette: [(UInt8, UInt8, UInt8)] = [(0, 230, 64), (255, 64, 200), (0, 200, 255), (255, 220, 0), (160, 90, 255),
                                                (255, 120, 40), (0, 255, 190), (255, 80, 80), (120, 200, 0), (80, 140, 255)]
        return palette[((id - 1) % palette.count + palette.count) % palette.count]
    }

    /// Digits 0–9 in a 3×5 pixel font, one row of three bits per entry, top row first.
    private static let digitRows: [[UInt8]] = [[7, 5, 5, 5, 7], [2, 6, 2, 2, 7], [7, 1, 7, 4, 7], [7, 1, 7, 1, 7], [5, 5, 7, 1, 1],
                                               [7, 4, 7, 1, 7], [7, 4, 7, 5, 7], [7, 1, 1, 2, 2], [7, 5, 7, 5, 7], [7, 5, 7, 1, 7]]

    /// `id` written in its identity colour on a black box just above the landmarks' box (inside the image),
    /// each font pixel `scale` pixels wide.
    mutating func label(_ id: Int, above landmarks: [NormalizedLandmark], imageWidth w: Double, imageHeight h: Double, scale: Int) {
        let xs = landmarks.map { Double($0.x) * w }.filter(\.isFinite), ys = landmarks.map { Double($0.y) * h }.filter(\.isFinite)
        guard let minX = xs.min(), let maxX = xs.max(), let minY = ys.min() else { return }
        let digits = String(id).compactMap(\.wholeNumberValue)
        let s = max(1, scale), boxW = (digits.count * 4 + 1) * s, boxH = 7 * s
        let x0 = min(max(Int(((minX + maxX) / 2).rounded()) - boxW / 2, 0), max(width - boxW, 0))
        let y0 = min(max(Int(minY.rounded()) - boxH - s, 0), max(height - boxH, 0))
        for y in y0..<(y0 + boxH) { for x in x0..<(x0 + boxW) { plot(x, y, (0, 0, 0)) } }
        let color = Self.identityColor(id)
        for (k, digit) in digits.enumerated() {
            for (row, bits) in Self.digitRows[digit].enumerated() {
                for col in 0..<3 where bits & (4 >> col) != 0 {
                    for dy in 0..<s { for dx in 0..<s { plot(x0 + (1 + k * 4 + col) * s + dx, y0 + (1 + row) * s + dy, color) } }
                }
            }
        }
    }
}
