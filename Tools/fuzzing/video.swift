// libFuzzer target `video` (Tools/fuzzing/fuzz.sh video SECONDS): BlazeVideo's demuxing and decoding wrapper, reading
// from memory through its custom AVIOContext, up to 64 frames per input.
import BlazeImage
import BlazeVideo

private let quiet: Void = FFmpegLogLevel.quiet.apply()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVideo(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    _ = quiet
    let bytes = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    var options = VideoFileReader.Options()
    options.prefetch = 0
    options.decodeThreads = 1
    guard let reader = try? VideoFileReader(data: bytes, name: "fuzz.mp4", options: options) else { return 0 }
    var last: Int?
    for _ in 0..<64 {
        guard let frame = try? reader.nextFrame() else { break }
        precondition(frame.image.pixels.count == frame.image.width * frame.image.height * 3, "frame buffer does not match its size")
        precondition(last.map { frame.timestampMs > $0 } ?? true, "timestamps must increase")
        last = frame.timestampMs
    }
    return 0
}
