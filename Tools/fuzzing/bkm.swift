// libFuzzer target `bkm` (Tools/fuzzing/fuzz.sh bkm SECONDS): BlazeModelFormat's `.bkm` reader and BlazeRuntime's
// planner. Every input is read twice: as it is (layout fields, checksum), and with its checksum field
// recomputed, so that mutations of the JSON header and the data section get past the checksum and reach
// header decoding, validation and session planning (shapes, attributes, value ids). Planning only: the
// network is never run.
import BlazeModelFormat
import BlazeRuntime

/// Non-constant floats the planner's arena may hold for one input (larger hostile shapes are skipped:
/// they only make the fuzzer slow, the arena is zero-filled at plan time).
private let arenaFloatLimit = 1 << 22

private func plan(_ model: ModelFile) {
    let g = model.graph
    var floats = 0
    for v in g.values where v.constant == nil {
        floats += v.elementCount  // each ≤ ModelFileFormat.maxElementCount (validated)
        if floats > arenaFloatLimit { return }
    }
    // The session's default GEMM choice (packed tiles when the CPU has them), all outputs…
    _ = try? InferenceSession(model: model, options: RuntimeOptions(threadCount: 1))
    // …and cblas_sgemm with only the last output computed (dead-node pruning, partial lifetimes).
    if !g.outputs.isEmpty {
        _ = try? InferenceSession(model: model, options: RuntimeOptions(threadCount: 1,
                                                                        computedOutputs: [g.outputs.count - 1],
                                                                        convolutionGEMM: .blas))
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBKM(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size <= 4 << 20 else { return 0 }
    var bytes = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    if let model = try? ModelFile(bytes: bytes, name: "fuzz.bkm") {
        plan(model)
        return 0
    }
    // Behind a valid checksum: FNV-1a-64 over the words of bytes 64..<end, stored at 40..<48.
    guard bytes.count >= ModelFileFormat.fixedHeaderSize else { return 0 }
    let sum = bytes.withUnsafeBytes { ModelChecksum.fnv1a64Words(UnsafeRawBufferPointer(rebasing: $0[64...])) }
    var changed = false
    for i in 0..<8 {
        let b = UInt8(truncatingIfNeeded: sum >> (8 * UInt64(i)))
        if bytes[40 + i] != b { bytes[40 + i] = b; changed = true }
    }
    if changed, let model = try? ModelFile(bytes: bytes, name: "fuzz.bkm") {
        plan(model)
    }
    return 0
}
