@testable import BlazeTracking
import Foundation
import Testing

/// `LowPassFilter` (`mediapipe/util/filtering/low_pass_filter.cc`).
@Suite struct LowPassFilterSpecTests {
    @Test func theFirstSamplePassesThrough() {
        var f = LowPassFilter(alpha: 0.3)
        #expect(!f.isInitialized)
        #expect(f.apply(7.5) == 7.5)
        #expect(f.isInitialized && f.lastRawValue == 7.5 && f.lastValue == 7.5)
    }

    @Test func laterSamplesBlendWithThePreviousOutput() {
        // α = 0.25 and these values are exact in binary, so the recurrence is exact.
        var f = LowPassFilter(alpha: 0.25)
        #expect(f.apply(8) == 8)
        #expect(f.apply(4) == 0.25 * 4 + 0.75 * 8)          // 7
        #expect(f.lastRawValue == 4 && f.lastValue == 7)
        #expect(f.apply(0) == 0.25 * 0 + 0.75 * 7)          // 5.25: blends with the output, not the raw 4
        #expect(f.apply(-2) == 0.25 * -2 + 0.75 * 5.25)     // 3.4375
        #expect(f.lastRawValue == -2)

        var g = LowPassFilter(alpha: 0.1)
        _ = g.apply(1)
        #expect(approx(g.apply(0), 0.9, 1e-7))
        #expect(approx(g.apply(0), 0.81, 1e-7))
    }

    /// `result = alpha_ * value + (1.0 - alpha_) * stored_value_`: `float·float`, then `1.0 − α` is a double,
    /// so the second product and the sum are in double, rounded once to float on assignment.
    @Test func theBlendIsEvaluatedWithCxxPromotionRules() {
        var f = LowPassFilter(alpha: 0.1)
        _ = f.apply(1)
        let out = f.apply(0.1)
        let a: Float = 0.1, x: Float = 0.1, y: Float = 1
        let cxx = Float(Double(a * x) + (1.0 - Double(a)) * Double(y))
        #expect(out == cxx)
        #expect(cxx != a * x + (1 - a) * y)   // all-float arithmetic would give a different float here
    }

    @Test func anAlphaOutsideZeroToOneIsIgnored() {
        var f = LowPassFilter(alpha: 0.5)
        _ = f.apply(10)
        #expect(f.apply(0, alpha: 1.5) == 5)        // still 0.5: 0.5·0 + 0.5·10
        #expect(f.alpha == 0.5)
        #expect(f.apply(0, alpha: -0.25) == 2.5)    // still 0.5
        #expect(f.alpha == 0.5)
        // The bounds themselves are allowed.
        #expect(f.apply(4, alpha: 1) == 4)
        #expect(f.apply(100, alpha: 0) == 4)
        #expect(f.alpha == 0)
    }
}

/// `OneEuroFilter` of MediaPipe 0.10.14 (`mediapipe/util/filtering/one_euro_filter.cc`),
/// against values worked out from the formulas in `euroStep`.
@Suite struct OneEuroFilterSpecTests {
    static let ms: Int64 = 1_000_000

    @Test func alphaFollowsTheFormulaAtTheInitialFrequency() {
        let f = OneEuroFilter(minCutoff: 0.05, beta: 80, derivateCutoff: 1)
        #expect(f.frequency == 30)
        // 1/(1 + (1/2π)/(1/30)) = 2π/(2π + 30) ≈ 0.1731 ("≈ α 0.17 at 30 fps" in the graph's comment).
        #expect(approx(f.alpha(cutoff: 1), 2 * Double.pi / (2 * Double.pi + 30), 1e-12))
        #expect(abs(f.alpha(cutoff: 1) - 0.17) < 0.01)
        // 0.05 Hz: 1/(1 + 30/(2π·0.05)) = 0.1π/(0.1π + 30).
        #expect(approx(f.alpha(cutoff: 0.05), 0.1 * Double.pi / (0.1 * Double.pi + 30), 1e-12))
    }

    /// Four samples 40 ms apart (25 Hz), the first at t ≠ 0.
    @Test func fourSamplesAt25HzMatchTheFormulas() {
        let (minCutoff, beta, dCutoff, scale) = (0.5, 0.2, 1.0, 0.1)
        var f = OneEuroFilter(minCutoff: minCutoff, beta: beta, derivateCutoff: dCutoff)
        let values: [Double] = [10, 12, 11, 15]
        let times: [Int64] = [1000, 1040, 1080, 1120].map { $0 * Self.ms }

        // First sample: passes through, derivative 0.
        #expect(f.apply(Float(values[0]), timestampNanoseconds: times[0], valueScale: scale) == 10)
        var y = values[0], ed = 0.0
        for k in 1..<4 {
            // d = (x_k − x_{k−1})·0.1·25, i.e. 5, −2.5, 10: from the raw values.
            (y, ed) = euroStep(value: values[k], previousRaw: values[k - 1], previousOutput: y, previousEd: ed,
                               frequency: 25, valueScale: scale, minCutoff: minCutoff, beta: beta, derivateCutoff: dCutoff)
            let out = f.apply(Float(values[k]), timestampNanoseconds: times[k], valueScale: scale)
            #expect(approx(Double(out), y, 1e-6), "sample \(k): \(out) vs \(y)")
            #expect(approx(f.frequency, 25, 1e-9))
        }
        // Second sample written out: d = 5, ed = α_d(1 Hz, 25 Hz)·5, cutoff = 0.5 + 0.2·ed.
        let ad = 1 / (1 + 25 / (2 * Double.pi))
        let a = 1 / (1 + 25 / (2 * Double.pi * (0.5 + 0.2 * ad * 5)))
        var g = OneEuroFilter(minCutoff: minCutoff, beta: beta, derivateCutoff: dCutoff)
        _ = g.apply(10, timestampNanoseconds: times[0], valueScale: scale)
        #expect(approx(Double(g.apply(12, timestampNanoseconds: times[1], valueScale: scale)), a * 12 + (1 - a) * 10, 1e-6))
    }

    /// 0.10.14 updates the frequency only when neither the last time nor `t` is 0: after a first sample at
    /// t = 0 the second sample still uses the initial 30 Hz; the third uses the real 25 Hz.
    @Test func aFirstSampleAtZeroKeeps30HzForTheSecondSample() {
        let (minCutoff, beta, dCutoff, scale) = (1.0, 0.5, 2.0, 0.02)
        var f = OneEuroFilter(minCutoff: minCutoff, beta: beta, derivateCutoff: dCutoff)
        let values: [Double] = [100, 110, 105, 120]
        let times: [Int64] = [0, 40, 80, 120].map { $0 * Self.ms }
        let frequencies: [Double] = [30, 30, 25, 25]

        #expect(f.apply(100, timestampNanoseconds: 0, valueScale: scale) == 100)
        #expect(f.frequency == 30)
        var y = values[0], ed = 0.0
        for k in 1..<4 {
            (y, ed) = euroStep(value: values[k], previousRaw: values[k - 1], previousOutput: y, previousEd: ed,
                               frequency: frequencies[k], valueScale: scale, minCutoff: minCutoff, beta: beta,
                               derivateCutoff: dCutoff)
            let out = f.apply(Float(values[k]), timestampNanoseconds: times[k], valueScale: scale)
            #expect(approx(Double(out), y, 1e-6), "sample \(k): \(out) vs \(y)")
            #expect(approx(f.frequency, frequencies[k], 1e-9))
        }
        // The quirk changes the numbers: at the real 25 Hz the second sample would come out elsewhere.
        let at25 = euroStep(value: 110, previousRaw: 100, previousOutput: 100, previousEd: 0, frequency: 25,
                            valueScale: scale, minCutoff: minCutoff, beta: beta, derivateCutoff: dCutoff).y
        let at30 = euroStep(value: 110, previousRaw: 100, previousOutput: 100, previousEd: 0, frequency: 30,
                            valueScale: scale, minCutoff: minCutoff, beta: beta, derivateCutoff: dCutoff).y
        #expect(abs(at25 - at30) > 0.1)
    }

    /// The same two samples as above, but the first at 5 ms: the second already uses 1/40 ms = 25 Hz.
    @Test func aFirstSampleAtNonZeroTimeGivesTheRealFrequencyAtOnce() {
        let (minCutoff, beta, dCutoff, scale) = (1.0, 0.5, 2.0, 0.02)
        var f = OneEuroFilter(minCutoff: minCutoff, beta: beta, derivateCutoff: dCutoff)
        #expect(f.apply(100, timestampNanoseconds: 5 * Self.ms, valueScale: scale) == 100)
        let out = f.apply(110, timestampNanoseconds: 45 * Self.ms, valueScale: scale)
        #expect(approx(f.frequency, 25, 1e-9))
        let expected = euroStep(value: 110, previousRaw: 100, previousOutput: 100, previousEd: 0, frequency: 25,
                                valueScale: scale, minCutoff: minCutoff, beta: beta, derivateCutoff: dCutoff).y
        #expect(approx(Double(out), expected, 1e-6))

        // 20 ms later: 50 Hz.
        var g = OneEuroFilter(minCutoff: minCutoff, beta: beta, derivateCutoff: dCutoff)
        _ = g.apply(100, timestampNanoseconds: 5 * Self.ms, valueScale: scale)
        let out50 = g.apply(110, timestampNanoseconds: 25 * Self.ms, valueScale: scale)
        #expect(approx(g.frequency, 50, 1e-9))
        let expected50 = euroStep(value: 110, previousRaw: 100, previousOutput: 100, previousEd: 0, frequency: 50,
                                  valueScale: scale, minCutoff: minCutoff, beta: beta, derivateCutoff: dCutoff).y
        #expect(approx(Double(out50), expected50, 1e-6))
    }

    /// A timestamp not after the last one returns the raw value and leaves the state alone.
    @Test func aNonIncreasingTimestampReturnsTheRawValueUnchanged() {
        let (minCutoff, beta, dCutoff, scale) = (0.5, 0.2, 1.0, 0.1)
        var f = OneEuroFilter(minCutoff: minCutoff, beta: beta, derivateCutoff: dCutoff)
        _ = f.apply(10, timestampNanoseconds: 1000 * Self.ms, valueScale: scale)
        _ = f.apply(12, timestampNanoseconds: 1040 * Self.ms, valueScale: scale)
        let snapshot = f
        #expect(f.apply(99, timestampNanoseconds: 1040 * Self.ms, valueScale: scale) == 99)   // equal
        #expect(f.apply(-5.25, timestampNanoseconds: 1000 * Self.ms, valueScale: scale) == -5.25)   // earlier
        #expect(f == snapshot)
        #expect(approx(f.frequency, 25, 1e-9))

        // The next valid sample continues from the samples before the rejected ones.
        let s2 = euroStep(value: 12, previousRaw: 10, previousOutput: 10, previousEd: 0, frequency: 25,
                          valueScale: scale, minCutoff: minCutoff, beta: beta, derivateCutoff: dCutoff)
        let s3 = euroStep(value: 11, previousRaw: 12, previousOutput: s2.y, previousEd: s2.ed, frequency: 25,
                          valueScale: scale, minCutoff: minCutoff, beta: beta, derivateCutoff: dCutoff)
        let out = f.apply(11, timestampNanoseconds: 1080 * Self.ms, valueScale: scale)
        #expect(approx(Double(out), s3.y, 1e-6))
    }

    @Test func aConstantSignalIsReturnedAsIs() {
        var f = OneEuroFilter(minCutoff: 0.05, beta: 80, derivateCutoff: 1)
        for k in 1...15 {
            #expect(f.apply(123.25, timestampNanoseconds: Int64(k) * 33 * Self.ms, valueScale: 1 / 200) == 123.25)
        }
    }
}
