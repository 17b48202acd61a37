import Testing

/// A fixed-seed generator so every case is reproducible.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        var z = state
        z = (z ^ (z >> 33)) &* 0xff51_afd7_ed55_8ccd
        return z ^ (z >> 33)
    }
    mutating func uniform(_ lo: Float = -1, _ hi: Float = 1) -> Float {
        lo + (hi - lo) * Float(next() >> 40) / Float(1 << 24)
    }
    mutating func array(_ n: Int, _ lo: Float = -1, _ hi: Float = 1) -> [Float] { (0..<n).map { _ in uniform(lo, hi) } }
}

/// Fails with the first offending index and the max error when `a` and `b` differ by more than
/// `atol + rtol·|b|` anywhere.
func expectClose(_ a: [Float], _ b: [Float], rtol: Float = 1e-5, atol: Float = 1e-5, _ what: String,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(a.count == b.count, "\(what): count \(a.count) vs \(b.count)", sourceLocation: sourceLocation)
    guard a.count == b.count else { return }
    var worst = 0, maxErr: Float = 0, firstBad = -1
    for i in a.indices {
        let e = abs(a[i] - b[i])
        if e > maxErr { maxErr = e; worst = i }
        if firstBad < 0, !(e <= atol + rtol * abs(b[i])) { firstBad = i }
    }
    #expect(firstBad < 0, "\(what): first mismatch at \(firstBad), max |Δ| = \(maxErr) at \(worst) (\(a[worst]) vs \(b[worst]))",
            sourceLocation: sourceLocation)
}

/// Records an issue when any element's bits differ (so −0 vs +0 counts), naming how many and the first.
/// NaN payloads count too unless `nanMatchesAnyNaN` (where the contract says only "NaN").
func expectBitIdentical(_ a: [Float], _ b: [Float], _ what: String, nanMatchesAnyNaN: Bool = false,
                        sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(a.count == b.count, "\(what): count \(a.count) vs \(b.count)", sourceLocation: sourceLocation)
    guard a.count == b.count else { return }
    let bad = a.indices.filter { a[$0].bitPattern != b[$0].bitPattern && !(nanMatchesAnyNaN && a[$0].isNaN && b[$0].isNaN) }
    if let first = bad.first {
        Issue.record("\(what): \(bad.count) of \(a.count) differ, first at \(first): \(a[first]) vs \(b[first])",
                     sourceLocation: sourceLocation)
    }
}
