import BlazeStages
import Foundation

// Helpers shared by the spec tests of MediaPipe's tracking and smoothing (each suite names the MediaPipe
// source file it follows). Expected values in these tests are computed from the formulas, never copied
// from a run of the code under test.

/// `|a − b| ≤ tolerance·max(1, |b|)`.
func approx(_ a: Float, _ b: Float, _ tolerance: Float = 1e-5) -> Bool { abs(a - b) <= tolerance * max(1, abs(b)) }
func approx(_ a: Double, _ b: Double, _ tolerance: Double = 1e-5) -> Bool { abs(a - b) <= tolerance * max(1, abs(b)) }

/// The one-euro smoothing factor: `α(c) = 1/(1 + τ/Te)`, `τ = 1/(2π·c)`, `Te = 1/f`.
func euroAlpha(cutoff: Double, frequency: Double) -> Double {
    let tau = 1 / (2 * Double.pi * cutoff)
    let te = 1 / frequency
    return 1 / (1 + tau / te)
}

/// One step of the one-euro filter written out from the formulas (derivative of the raw values,
/// `ed = α_d·d + (1 − α_d)·ed_prev`, `cutoff = minCutoff + β·|ed|`, `y = α·x + (1 − α)·y_prev`).
/// Returns the new `(y, ed)`.
func euroStep(value: Double, previousRaw: Double, previousOutput: Double, previousEd: Double, frequency: Double,
              valueScale: Double, minCutoff: Double, beta: Double, derivateCutoff: Double) -> (y: Double, ed: Double) {
    let d = (value - previousRaw) * valueScale * frequency
    let ad = euroAlpha(cutoff: derivateCutoff, frequency: frequency)
    let ed = ad * d + (1 - ad) * previousEd
    let a = euroAlpha(cutoff: minCutoff + beta * abs(ed), frequency: frequency)
    return (a * value + (1 - a) * previousOutput, ed)
}

/// `R(θ)·(dx, dy) = (cos θ·dx − sin θ·dy, sin θ·dx + cos θ·dy)` (NormalizedRect's convention).
func rotate(_ v: SIMD2<Double>, by angle: Double) -> SIMD2<Double> {
    SIMD2(cos(angle) * v.x - sin(angle) * v.y, sin(angle) * v.x + cos(angle) * v.y)
}

/// A rect's centre in pixels.
func centerPixels(_ r: NormalizedRect, _ w: Int, _ h: Int) -> SIMD2<Double> {
    SIMD2(Double(r.xCenter) * Double(w), Double(r.yCenter) * Double(h))
}

/// Angles are equal modulo 2π.
func sameAngle(_ a: Float, _ b: Double, _ tolerance: Double = 1e-5) -> Bool {
    let d = remainder(Double(a) - b, 2 * Double.pi)
    return abs(d) <= tolerance
}

/// A synthetic right-ish hand, in pixels relative to the wrist, upright (fingers toward −y, i.e. up).
///
/// The 12-landmark subset {0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18} spans x ∈ [−65, 60] (landmarks 3
/// and 18) and y ∈ [−118·s, 0] (landmark 10 and the wrist): 125 px × 118·s px, its box centre at
/// (−2.5, −59·s). The other nine landmarks (thumb tip, the finger tips and DIPs) reach further
/// (x ∈ [−90, 70], y down to −160·s) so that using all 21 would give a different box.
/// `¼·lm5 + ½·lm9 + ¼·lm13 = (0, −82.5·s)`: straight above the wrist.
func uprightHandPixels(stretchY s: Double = 1) -> [SIMD2<Double>] {
    let p: [SIMD2<Double>] = [
        SIMD2(0, 0),                                                       // 0 wrist
        SIMD2(-30, -10), SIMD2(-50, -30), SIMD2(-65, -50), SIMD2(-90, -70), // 1–4 thumb
        SIMD2(-30, -80), SIMD2(-32, -110), SIMD2(-33, -130), SIMD2(-34, -150), // 5–8 index
        SIMD2(0, -85), SIMD2(0, -118), SIMD2(0, -140), SIMD2(0, -160),     // 9–12 middle
        SIMD2(30, -80), SIMD2(32, -110), SIMD2(33, -130), SIMD2(34, -150), // 13–16 ring
        SIMD2(55, -65), SIMD2(60, -90), SIMD2(63, -105), SIMD2(70, -120),  // 17–20 pinky
    ]
    return p.map { SIMD2($0.x, $0.y * s) }
}

/// The upright hand turned by `angle` (clockwise on screen, y down) about its wrist, placed with the
/// wrist at `wrist` pixels, as image-normalized landmarks of a `w × h` image.
func handLandmarks(wrist: SIMD2<Double>, angle: Double, w: Int, h: Int, stretchY: Double = 1) -> [NormalizedLandmark] {
    uprightHandPixels(stretchY: stretchY).map { p in
        let q = wrist + rotate(p, by: angle)
        return NormalizedLandmark(x: Float(q.x / Double(w)), y: Float(q.y / Double(h)))
    }
}
