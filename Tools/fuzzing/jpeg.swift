// libFuzzer target `jpeg` (Tools/fuzzing/fuzz.sh jpeg SECONDS): BlazeImage's JPEG decoder, EXIF parser and sniffer.
import BlazeImage

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    _ = Image.exifOrientation(jpegData: bytes)
    if let image = try? Image(encodedData: bytes, name: "fuzz.jpg") {
        precondition(image.pixels.count == image.width * image.height * 3, "decoded buffer does not match its size")
        _ = try? image.oriented()
    }
    return 0
}
