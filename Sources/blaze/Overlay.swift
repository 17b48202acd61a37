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
}
