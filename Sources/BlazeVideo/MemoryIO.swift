import CFFmpeg

/// An encoded video held in memory, read by libavformat through a custom `AVIOContext` (read and seek
/// callbacks over the bytes), for uploads and tests that never touch the file system.
final class MemoryIO {
    let bytes: [UInt8]
    var position = 0
    private(set) var context: UnsafeMutablePointer<AVIOContext>?

    init(bytes: [UInt8]) throws {
        self.bytes = bytes
        let bufferSize = 1 << 16
        guard let buffer = av_malloc(bufferSize) else { throw VideoError.openFailed(path: "<memory>", reason: "out of memory") }
        let opaque = Unmanaged.passUnretained(self).toOpaque()
        context = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(bufferSize), 0, opaque,
                                     { opaque, destination, size in
                                         let io = Unmanaged<MemoryIO>.fromOpaque(opaque!).takeUnretainedValue()
                                         return io.read(into: destination!, size: Int(size))
                                     }, nil,
                                     { opaque, offset, whence in
                                         let io = Unmanaged<MemoryIO>.fromOpaque(opaque!).takeUnretainedValue()
                                         return io.seek(to: offset, whence: whence)
                                     })
        guard context != nil else {
            av_free(buffer)
            throw VideoError.openFailed(path: "<memory>", reason: "out of memory")
        }
    }

    deinit {
        if context != nil {
            av_freep(&context!.pointee.buffer)
            avio_context_free(&context)
        }
    }

    private func read(into destination: UnsafeMutablePointer<UInt8>, size: Int) -> Int32 {
        let count = min(size, bytes.count - position)
        guard count > 0 else { return blaze_averror_eof() }
        bytes.withUnsafeBufferPointer { destination.update(from: $0.baseAddress! + position, count: count) }
        position += count
        return Int32(count)
    }

    private func seek(to offset: Int64, whence: Int32) -> Int64 {
        if whence & AVSEEK_SIZE != 0 { return Int64(bytes.count) }
        let base: Int64
        switch whence & ~AVSEEK_FORCE {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = Int64(position)
        case SEEK_END: base = Int64(bytes.count)
        default: return -1
        }
        let target = base.addingReportingOverflow(offset)
        guard !target.overflow, target.partialValue >= 0, target.partialValue <= Int64(bytes.count) else { return -1 }
        position = Int(target.partialValue)
        return target.partialValue
    }
}
