#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What the CPU reports, read once from `/proc/cpuinfo` (Linux); empty elsewhere. The one place that file is read.
public enum CPUFeatures {
    /// The first processor's fields (`vendor_id`, `model name`, `flags`, …), keys and values without their padding.
    private static let fields: [String: String] = {
        #if canImport(Glibc)
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return [:] }
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        func trimmed(_ s: Substring) -> String { String(s.drop(while: blank).reversed().drop(while: blank).reversed()) }
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(while: { !$0.isEmpty }) {
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 { fields[trimmed(parts[0])] = trimmed(parts[1]) }
        }
        return fields
        #else
        return [:]
        #endif
    }()

    /// The instruction-set flags (`avx2`, `avx512f`, …); empty where unknown.
    public static let flags: Set<String> = Set((fields["flags"] ?? "").split(separator: " ").map(String.init))

    /// The CPU's marketing name, e.g. `Intel(R) Xeon(R) Processor @ 2.50GHz`; empty where unknown.
    public static var modelName: String { fields["model name"] ?? "" }

    /// The CPU's make and model (vendor, family/model/stepping and model name), e.g.
    /// `GenuineIntel 6/85/7 Intel(R) Xeon(R) Processor @ 2.50GHz`; empty where unknown. Kernel timings carry over
    /// between machines with the same identity.
    public static let identity: String = fields.isEmpty ? ""
        : "\(fields["vendor_id"] ?? "") \(fields["cpu family"] ?? "")/\(fields["model"] ?? "")/\(fields["stepping"] ?? "") \(modelName)"

    /// AVX-512 F, BW, DQ and VL, all four (what `skylake-avx512` codegen may use).
    public static let hasAVX512: Bool = {
        #if arch(x86_64)
        return ["avx512f", "avx512bw", "avx512dq", "avx512vl"].allSatisfy(flags.contains)
        #else
        return false
        #endif
    }()
}
