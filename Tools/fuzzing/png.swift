// libFuzzer target `png` (Tools/fuzzing/fuzz.sh png SECONDS): BlazeImage's PNG decoder, through the content sniffer.
import BlazeImage

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    if let image = try? Image(pngData: bytes, name: "fuzz.png") {
        precondition(image.pixels.count == image.width * image.height * 3, "decoded buffer does not match its size")
    }
    _ = Image.sniffFormat(bytes)
    return 0
}
