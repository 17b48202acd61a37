import BlazeKernels

/// Process-wide settings that BlazeKit never makes by itself, for programs that own their process (the
/// `blaze` CLI and `blaze-bench` call ``tuneOpenBLAS()`` at startup). A library or service that embeds
/// BlazeKit beside other code leaves them alone: creating and running tasks changes no environment
/// variable, no OpenBLAS setting and no signal handler of the host.
public enum ProcessTuning {
    /// Tunes OpenBLAS for a process whose BLAS calls are BlazeKit's, once per process, and says what it did:
    /// - switches OpenBLAS to its AVX-512 (SkylakeX) kernels when it took an AVX-512 CPU for an AVX2 one and
    ///   `OPENBLAS_CORETYPE` is not set (by setting that variable while OpenBLAS re-selects its kernels, then
    ///   unsetting it);
    /// - sets OpenBLAS to one thread and stops its thread server: BlazeKit calls BLAS from its own worker
    ///   threads, so OpenBLAS's threads never get work, and right after start-up they spin for about a tenth
    ///   of a second, taking CPU from planning and the first frames.
    ///
    /// Results are the same either way; only speed changes.
    @discardableResult
    public static func tuneOpenBLAS() -> String {
        "\(BLASKernelSelection.upgradeIfBeneficial()); \(BLASKernelSelection.useCallerThreadOnly())"
    }
}
