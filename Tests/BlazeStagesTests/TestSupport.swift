import Testing
@testable import BlazeStages

func close(_ a: Float, _ b: Float, _ tolerance: Float = 1e-6) -> Bool { abs(a - b) <= tolerance }

func close(_ a: SIMD2<Float>, _ b: SIMD2<Float>, _ tolerance: Float = 1e-6) -> Bool {
    close(a.x, b.x, tolerance) && close(a.y, b.y, tolerance)
}

/// Runs `body` with read-only buffers over the given arrays.
func withBuffers<R>(_ a: [Float], _ b: [Float], _ body: (UnsafeBufferPointer<Float>, UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
    try a.withUnsafeBufferPointer { pa in try b.withUnsafeBufferPointer { pb in try body(pa, pb) } }
}
