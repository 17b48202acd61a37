import CBLAS
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Chooses OpenBLAS's kernel set for this CPU.
///
/// OpenBLAS builds with `DYNAMIC_ARCH` (Debian's among them) pick their kernels from a CPU table
/// fixed at release time. OpenBLAS 0.3.21 does not know recent AMD cores with AVX-512 and falls
/// back to its Haswell (AVX2) kernels, which run sgemm at half the speed of its own SkylakeX
/// (AVX-512) kernels on the same machine (measured: 2048³ at 110 vs 208 GFLOP/s; the Blaze 1×1
/// shapes at 80–110 vs 150–200). When the CPU reports AVX-512 F/BW/DQ/VL, OpenBLAS chose an
/// AVX2-era core, and the user has not set `OPENBLAS_CORETYPE`, ``upgradeIfBeneficial()`` re-runs
/// OpenBLAS's own core selection with `OPENBLAS_CORETYPE=SkylakeX`, once per process.
public enum BLASKernelSelection {
    /// OpenBLAS's current core name, e.g. `Haswell`, `SkylakeX`.
    public static var coreName: String {
        guard let f = symbol("openblas_get_corename", as: (@convention(c) () -> UnsafeMutablePointer<CChar>?).self),
              let p = f() else { return "unknown" }
        return String(cString: p)
    }

    /// What the one-time selection did, e.g. `Haswell -> SkylakeX (AVX-512)` or why it did nothing.
    public static var outcome: String { upgradeOnce }

    /// Runs the selection once per process (thread-safe); later calls return the first outcome.
    @discardableResult
    public static func upgradeIfBeneficial() -> String { upgradeOnce }

    private static let upgradeOnce: String = {
        let before = coreName
        if getenv("OPENBLAS_CORETYPE") != nil { return "kept \(before): OPENBLAS_CORETYPE is set by the user" }
        let avx2Era: Set<String> = ["haswell", "zen", "sandybridge", "excavator"]
        guard avx2Era.contains(before.lowercased()) else { return "kept \(before)" }
        guard CPUFeatures.hasAVX512 else {
            return "kept \(before): no AVX-512 on this CPU"
        }
        guard let quit = symbol("gotoblas_dynamic_quit", as: (@convention(c) () -> Void).self),
              let initialize = symbol("gotoblas_dynamic_init", as: (@convention(c) () -> Void).self) else {
            return "kept \(before): OpenBLAS is not a DYNAMIC_ARCH build"
        }
        setenv("OPENBLAS_CORETYPE", "SkylakeX", 1)
        quit()
        initialize()
        unsetenv("OPENBLAS_CORETYPE")
        let after = coreName
        if after.lowercased() != "skylakex" {
            // The build lacks the SkylakeX kernels: restore OpenBLAS's own choice.
            quit()
            initialize()
            return "kept \(coreName): OpenBLAS has no SkylakeX kernels"
        }
        return "\(before) -> \(after) (AVX-512)"
    }()

    /// Makes OpenBLAS run every call on the calling thread, once per process, and stops its thread
    /// server; returns what it did.
    ///
    /// BlazeKit calls BLAS from its own worker threads, one call per thread, so OpenBLAS's server
    /// threads never get work. OpenBLAS 0.3.21's pthreads build starts them when the library loads
    /// (`gotoblas_init` → `blas_thread_init`), and `openblas_set_num_threads(1)` leaves them running
    /// (or starts them, if they were stopped: "lazy re-init after fork"). Each spins on `sched_yield`
    /// for about a tenth of a second after it starts: on a 2-core machine, CPU taken from planning,
    /// the first inferences and a video decoder starting up (`perf` of a 3-frame `blaze pose` run: 12 %
    /// of its CPU; stopping them cut its system time from 0.14–0.21 to 0.08–0.12 s). So after
    /// `openblas_set_num_threads(1)` this calls `blas_thread_shutdown_`, the function OpenBLAS itself
    /// runs before a `fork`; level-3 calls with one thread run on the caller's thread and do not start
    /// the server again. A BLAS without that function keeps its threads.
    @discardableResult
    public static func useCallerThreadOnly() -> String { callerThreadOnly }

    private static let callerThreadOnly: String = {
        openblas_set_num_threads(1)
        guard let shutdown = symbol("blas_thread_shutdown_", as: (@convention(c) () -> Int32).self) else {
            return "openblas_set_num_threads(1)"
        }
        return "openblas_set_num_threads(1), thread server stopped (\(shutdown()))"
    }()

    private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
        guard let handle = dlopen(nil, RTLD_NOW), let p = dlsym(handle, name) else { return nil }
        return unsafeBitCast(p, to: type)
    }
}
