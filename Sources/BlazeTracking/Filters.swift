#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// MediaPipe's `LowPassFilter` (`mediapipe/util/filtering/low_pass_filter.cc`): the first sample
/// passes through; then `y = α·x + (1 − α)·y_prev`.
///
/// The arithmetic mirrors the C++ exactly: `α·x` in `Float`, `(1.0 − α)·y_prev` in `Double`, the
/// sum rounded once to `Float`. An `alpha` outside [0, 1] is ignored (MediaPipe logs and keeps the
/// previous one).
public struct LowPassFilter: Sendable, Equatable {
    public private(set) var alpha: Float
    public private(set) var lastRawValue: Float = 0
    public private(set) var lastValue: Float = 0
    public private(set) var isInitialized = false

    public init(alpha: Float) {
        self.alpha = 0
        setAlpha(alpha)
    }

    public mutating func apply(_ value: Float) -> Float {
        let result: Float
        if isInitialized {
            result = Float(Double(alpha * value) + (1.0 - Double(alpha)) * Double(lastValue))
        } else {
            result = value
            isInitialized = true
        }
        lastRawValue = value
        lastValue = result
        return result
    }

    public mutating func apply(_ value: Float, alpha: Float) -> Float {
        setAlpha(alpha)
        return apply(value)
    }

    private mutating func setAlpha(_ alpha: Float) {
        guard alpha >= 0, alpha <= 1 else { return }
        self.alpha = alpha
    }
}

/// MediaPipe 0.10.14's `OneEuroFilter` (`mediapipe/util/filtering/one_euro_filter.cc`), as the
/// landmark smoothing calculator creates it (`use_filtered_derivative = false`).
///
/// Per sample at time `t` (nanoseconds): a `t` not after the last one returns the value unchanged.
/// Otherwise, if neither the last time nor `t` is 0, `frequency = 1/((t − last)·1e−9)`. Then
/// `d = (value − lastRaw)·valueScale·frequency` (0 on the first sample), `ed = LPF_d(d, α(derivateCutoff))`,
/// `cutoff = minCutoff + beta·|ed|`, result `LPF_x(value, α(cutoff))` with
/// `α(c) = 1/(1 + τ/Te)`, `τ = 1/(2π·c)`, `Te = 1/frequency`.
///
/// Two 0.10.14 details are kept because they change numbers: the last time starts at `Int64.min`
/// (the subtraction wraps, as it does in the C++ build), and a first sample at `t = 0` leaves the
/// frequency at its initial 30 Hz for the next sample too.
public struct OneEuroFilter: Sendable, Equatable {
    public private(set) var frequency: Double
    public let minCutoff: Double
    public let beta: Double
    public let derivateCutoff: Double
    private var x: LowPassFilter
    private var dx: LowPassFilter
    private var lastTime: Int64 = .min

    public init(frequency: Double = 30, minCutoff: Double, beta: Double, derivateCutoff: Double) {
        self.frequency = frequency
        self.minCutoff = minCutoff
        self.beta = beta
        self.derivateCutoff = derivateCutoff
        x = LowPassFilter(alpha: 0)
        dx = LowPassFilter(alpha: 0)
        x = LowPassFilter(alpha: Float(alpha(cutoff: minCutoff)))
        dx = LowPassFilter(alpha: Float(alpha(cutoff: derivateCutoff)))
    }

    /// `GetAlpha`: `1/(1 + τ/Te)`.
    public func alpha(cutoff: Double) -> Double {
        let te = 1.0 / frequency
        let tau = 1.0 / (2 * Double.pi * cutoff)
        return 1.0 / (1.0 + tau / te)
    }

    /// Filters `value` observed at `timestampNanoseconds`.
    public mutating func apply(_ value: Float, timestampNanoseconds t: Int64, valueScale: Double) -> Float {
        if lastTime >= t { return value }
        if lastTime != 0 && t != 0 {
            frequency = 1.0 / (Double(t &- lastTime) * 1e-9)
        }
        lastTime = t
        let v = Double(value)
        let dvalue = x.isInitialized ? (v - Double(x.lastRawValue)) * valueScale * frequency : 0.0
        let edvalue = Double(dx.apply(Float(dvalue), alpha: Float(alpha(cutoff: derivateCutoff))))
        let cutoff = minCutoff + beta * abs(edvalue)
        return x.apply(value, alpha: Float(alpha(cutoff: cutoff)))
    }
}
