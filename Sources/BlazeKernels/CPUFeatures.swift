#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What the CPU reports, read once from `/proc/cpuinfo` (Linux); empty elsewhere.
public enum CPUFeatures {
    /// The CPU's make and model as `/proc/cpuinfo` gives them (vendor, family, model, stepping and model name),
    /// e.g. `GenuineIntel 6/85/7 Intel(R) Xeon(R) Processor @ 2.50GHz`; empty where unknown. Kernel timings
    /// carry over between machines with the same identity.
    public static let identity: String = {
        #if canImport(Glibc)
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "" }
        let firstCPU = text.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }
        func field(_ name: String) -> String {
            guard let line = firstCPU.first(where: { $0.hasPrefix(name) && $0.dropFirst(name.count).first.map { $0 == " " || $0 == "\t" || $0 == ":" } == true }),
                  let value = line.split(separator: ":", maxSplits: 1).last else { return "" }
            let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
            return String(value.drop(while: blank).reversed().drop(while: blank).reversed())
        }
        return "\(field("vendor_id")) \(field("cpu family"))/\(field("model"))/\(field("stepping")) \(field("model name"))"
        #else
        return ""
        #endif
    }()

    /// AVX-512 F, BW, DQ and VL, all four (what `skylake-avx512` codegen may use).
    public static let hasAVX512: Bool = {
        #if arch(x86_64) && canImport(Glibc)
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("flags") }),
              let list = line.split(separator: ":", maxSplits: 1).last else { return false }
        let flags = Set(list.split(separator: " "))
        return ["avx512f", "avx512bw", "avx512dq", "avx512vl"].allSatisfy { flags.contains(Substring($0)) }
        #else
        return false
        #endif
    }()
}
