// libFuzzer target `task` (Tools/fuzzing/fuzz.sh task SECONDS): a MediaPipe `.task` bundle from memory — BlazeConverter's
// zip reader (central directory, ZIP64, stored and deflated entries, size caps, CRC-32) — then the conversion of
// each `.tflite` entry as `blaze-convert` and the landmarkers do it.
//
// `Tools/fuzzing/fuzz.sh task` found that ZIPFoundation 0.9.20, which BlazeConverter used before, spun forever on a
// deflated entry whose stream ran past the file; the regression test holding that input is
// `TaskBundleTests.aDeflateStreamLongerThanItsEntryIsAnErrorNotAHang`.
import BlazeConverter
import BlazeModelFormat

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTask(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size <= 4 << 20 else { return 0 }
    let bytes = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    guard let bundle = try? TaskBundle(bytes: bytes, name: "fuzz.task") else { return 0 }
    _ = try? bundle.select("hand_detector")
    _ = try? bundle.select(bundle.entries.last?.path)
    for entry in bundle.entries.prefix(4) {
        let stem = ModelConverter.fileStem(entry.path)
        let request = ConversionRequest(tflite: entry.bytes, sourceFile: stem + ".tflite",
                                        inputRange: ModelConverter.knownInputRange(stem) == nil ? [0, 1] : nil,
                                        properties: ["task.entry": entry.path, "task.bundle": "fuzz.task"])
        if let model = try? ModelConverter.convert(request), let serialized = try? model.serialized() {
            precondition((try? ModelFile(bytes: serialized, name: "converted.bkm")) != nil, "a converted model must load")
        }
    }
    return 0
}
