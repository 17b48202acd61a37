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
