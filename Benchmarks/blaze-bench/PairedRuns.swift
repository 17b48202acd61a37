import ArgumentParser
import BlazeKit
import BlazeRuntime
import Dispatch

/// What `blaze-bench models --paired-with` runs beside the sessions the other options make.
enum PairedVariant: String, ExpressibleByArgument, CaseIterable {
    /// Depthwise convolutions and the convolutions around them step by step (`RuntimeOptions.runsDepthwiseInBands` off).
    case unbanded
    /// Adds, PReLUs and ReLUs as passes of their own (`RuntimeOptions.fusesEpilogues` off).
    case unfused
    /// The same options: what the comparison reads when nothing differs, its own noise.
    case same
}

extension ModelsBenchmark {
    /// Sessions per side: each places its arena and packed weights differently in memory, which alone moves one
    /// session's time by a few per cent; three per side average that out.
    static let pairedInstances = 3

    /// Times sessions made with the given options (side A, `session` the first) against sessions with `variant`'s
    /// option turned off (side B), all in one process: each round runs every session once, the sides alternating
    /// and the order reversed every other round, so both sides see the same load and neither always runs first.
    /// Prints each side's median and minimum per run, the median over rounds of A's total ÷ B's total, and whether
    /// the two sides compute the same bits.
    func runPaired(_ model: BuiltinModel, _ session: InferenceSession, _ variant: PairedVariant) throws {
        var options = session.options
        switch variant {
        case .unbanded: options.runsDepthwiseInBands = false
        case .unfused: options.fusesEpilogues = false
        case .same: break
        }
        let first = session.options
        func make(_ o: RuntimeOptions) throws -> InferenceSession {
            var o = o
            o.planning = .reusing(session.kernelPlan)
            return try InferenceSession(model: session.model, options: o)
        }
        var sides: [[InferenceSession]] = [[session], []]
        for k in 0..<Self.pairedInstances {
            sides[1].append(try make(options))
            if k + 1 < Self.pairedInstances { sides[0].append(try make(first)) }
        }
        // A run may reuse the input's memory for later values: each run gets the input afresh, untimed.
        let input = Array(session.input)
        let order = (0..<Self.pairedInstances).flatMap { [sides[0][$0], sides[1][$0]] }
        func time(_ s: InferenceSession) -> Double {
            _ = s.input.update(fromContentsOf: input)
            let t0 = DispatchTime.now().uptimeNanoseconds
            s.run()
            return Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
        }
        for _ in 0..<warmup { for s in order { _ = time(s) } }
        var times: [[Double]] = [[], []], ratios: [Double] = []
        for round in 0..<runs {
            var total = [0.0, 0.0]
            for (k, s) in (round % 2 == 0 ? order : order.reversed()).enumerated() {
                let side = (round % 2 == 0 ? k : k + 1) % 2
                let t = time(s)
                times[side].append(t)
                total[side] += t
            }
            ratios.append(total[0] / total[1])
        }
        let same = session.outputDescriptions.indices.allSatisfy { o in
            sides[1].allSatisfy { zip(session.output(o), $0.output(o)).allSatisfy { $0.bitPattern == $1.bitPattern } }
        }
        func median(_ v: [Double]) -> Double {
            let s = v.sorted()
            return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }
        print("\(model.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0)) threads=\(threads)  "
              + "median \(fmt(median(times[0]))) ms  min \(fmt(times[0].min()!)) ms  |  \(variant.rawValue): "
              + "median \(fmt(median(times[1]))) ms  min \(fmt(times[1].min()!)) ms  |  paired ratio \(fmt(median(ratios)))  "
              + (same ? "same outputs" : "OUTPUTS DIFFER") + "  (\(session.regionCount) against \(sides[1][0].regionCount) regions)")
    }
}
