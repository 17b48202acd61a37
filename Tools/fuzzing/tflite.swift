// libFuzzer target `tflite` (Tools/fuzzing/fuzz.sh tflite SECONDS): BlazeConverter's TFLite FlatBuffer reader, the
// inspector, and the whole conversion pipeline (import graph, densify / dequantize folding, lowering,
// pad fusion, dead-value elimination, the writer and the converter's self-check with the `.bkm` reader).
import BlazeConverter
import BlazeModelFormat

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTFLite(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size <= 4 << 20 else { return 0 }
    let bytes = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    guard (try? TFLiteModel(bytes: bytes)) != nil else { return 0 }
    _ = try? ModelSummary(tflite: bytes)
    // An explicit input range, so that models with any name get through to the end.
    if let model = try? ModelConverter.convert(ConversionRequest(tflite: bytes, sourceFile: "fuzz.tflite", inputRange: [0, 1])),
       let file = try? model.serialized() {
        precondition((try? ModelFile(bytes: file, name: "fuzz.bkm")) != nil, "a converted model does not load")
    }
    return 0
}
