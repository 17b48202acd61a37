import CFFmpeg
import Foundation

/// A 64-byte-aligned 24-bit buffer (RGB, or BGR as libswscale converts some formats; see ``FFmpegDecoder``)
/// with 64-byte-aligned rows and spare rows at the end, for libswscale: its SIMD converters read and write
/// whole vectors and may run a few bytes past a row's (and the last row's) end, so they must never see a
/// tightly packed Swift array. One buffer is reused for every frame of a stream (no per-frame page faults);
/// frames are copied out of it as RGB, turned upright on the way.
final class RGBStaging {
    /// The order of a staged pixel's bytes.
    enum Order { case rgb, bgr }

    private(set) var width = 0
    private(set) var height = 0
    private(set) var rowBytes = 0
    private(set) var order = Order.rgb
    private(set) var base: UnsafeMutablePointer<UInt8>?
    private var capacity = 0

    deinit { base?.deallocate() }

    /// Makes room for a `width × height` frame (keeping the buffer when it is large enough).
    func prepare(width: Int, height: Int) -> UnsafeMutablePointer<UInt8> {
        // Room for whole 16-pixel groups: libswscale's x86 converter shortens a row that would not fit and
        // leaves its last pixels unconverted.
        let stride = ((width + 15) / 16 * 16 * 3 + 63) / 64 * 64
        let needed = stride * (height + 2)
        if needed > capacity {
            base?.deallocate()
            base = UnsafeMutableRawPointer.allocate(byteCount: needed, alignment: 64).bindMemory(to: UInt8.self, capacity: needed)
            capacity = needed
        }
        self.width = width
        self.height = height
        self.rowBytes = stride
        self.order = .rgb
        return base!
    }

    /// The staged pixels as a packed RGB array (swapped from BGR if staged so), turned clockwise by `degrees` (0, 90, 180 or 270), written
    /// into `reusing` when that array has the right size (see ``PixelRecycler``), else into a new one.
    func packed(rotatedClockwiseBy degrees: Int, reusing: consuming [UInt8]? = nil) -> (pixels: [UInt8], width: Int, height: Int) {
        let w = width, h = height
        guard base != nil else { return ([], 0, 0) }
        let (ow, oh) = degrees % 180 == 0 ? (w, h) : (h, w)
        // Moved, not copied: a second reference would make the write below copy the whole array.
        if var pixels = consume reusing, pixels.count == w * h * 3 {
            pixels.withUnsafeMutableBufferPointer { write(rotatedClockwiseBy: degrees, into: $0.baseAddress!) }
            return (pixels, ow, oh)
        }
        let pixels = [UInt8](unsafeUninitializedCapacity: w * h * 3) { buffer, initialized in
            write(rotatedClockwiseBy: degrees, into: buffer.baseAddress!)
            initialized = w * h * 3
        }
        return (pixels, ow, oh)
    }

    /// Writes the staged pixels as RGB, packed and turned clockwise by `degrees`, to `dst` (`width · height · 3` bytes).
    private func write(rotatedClockwiseBy degrees: Int, into dst: UnsafeMutablePointer<UInt8>) {
        let w = width, h = height, rowStride = rowBytes
        guard let src = base else { return }
        let ow = degrees % 180 == 0 ? w : h
        // Where a pixel's red and blue bytes are.
        let (r, b) = order == .rgb ? (0, 2) : (2, 0)
        switch degrees {
        case 90, 180, 270:
            // Blocks of 32×32 source pixels keep both sides of the transpose in cache.
            let block = 32
            for by in stride(from: 0, to: h, by: block) {
                for bx in stride(from: 0, to: w, by: block) {
                    for y in by..<min(by + block, h) {
                        let row = src + y * rowStride
                        for x in bx..<min(bx + block, w) {
                            // Destination of stored pixel (x, y).
                            let dx: Int, dy: Int
                            switch degrees {
                            case 90: dx = h - 1 - y; dy = x
                            case 180: dx = w - 1 - x; dy = h - 1 - y
                            default: dx = y; dy = w - 1 - x
                            }
                            let s = row + x * 3, d = dst + (dy * ow + dx) * 3
                            d[0] = s[r]; d[1] = s[1]; d[2] = s[b]
                        }
                    }
                }
            }
        default:
            if order == .rgb {
                for y in 0..<h { (dst + y * w * 3).update(from: src + y * rowStride, count: w * 3) }
            } else {
                for y in 0..<h {
                    let s = src + y * rowStride, d = dst + y * w * 3
                    for x in 0..<w {
                        d[3 * x] = s[3 * x + 2]; d[3 * x + 1] = s[3 * x + 1]; d[3 * x + 2] = s[3 * x]
                    }
                }
            }
        }
    }

    /// Copies packed RGB rows in (for encoding).
    func load(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int) {
        let dst = prepare(width: width, height: height)
        for y in 0..<height { (dst + y * rowBytes).update(from: pixels.baseAddress! + y * width * 3, count: width * 3) }
    }
}

extension RGBStaging {
    /// Converts `frame` (any pixel format) into the staging buffer with `scaler`, a context of the frame's size
    /// whose output has the bytes in `order`.
    func convert(from frame: UnsafeMutablePointer<AVFrame>, with scaler: OpaquePointer, order: Order) {
        let destination = prepare(width: Int(frame.pointee.width), height: Int(frame.pointee.height))
        RGBStaging.scale(frame, with: scaler, into: destination, rowBytes: rowBytes)
        self.order = order
    }

    /// Converts a frame held as `planes` (with `strides`) with `scaler`, a context of `width × height` whose output
    /// has the bytes in `order`, into the staging buffer.
    func convert(from planes: UnsafePointer<UnsafePointer<UInt8>?>, strides: UnsafePointer<Int32>, with scaler: OpaquePointer,
                 width: Int, height: Int, order: Order) {
        var destination: [UnsafeMutablePointer<UInt8>?] = [prepare(width: width, height: height), nil, nil, nil]
        var stride: [Int32] = [Int32(rowBytes), 0, 0, 0]
        _ = sws_scale(scaler, planes, strides, 0, Int32(height), &destination, &stride)
        self.order = order
    }

    /// Converts all of `frame` with `scaler` into packed RGB rows `rowBytes` apart at `destination`.
    private static func scale(_ frame: UnsafeMutablePointer<AVFrame>, with scaler: OpaquePointer,
                              into destination: UnsafeMutablePointer<UInt8>, rowBytes: Int) {
        var planes: [UnsafeMutablePointer<UInt8>?] = [destination, nil, nil, nil]
        var stride: [Int32] = [Int32(rowBytes), 0, 0, 0]
        withPlanes(of: frame) { source, strides in
            _ = sws_scale(scaler, UnsafeRawPointer(source).assumingMemoryBound(to: UnsafePointer<UInt8>?.self), strides, 0,
                          frame.pointee.height, &planes, &stride)
        }
    }

    /// Converts `frame` (8-bit YUV 4:2:0 of even height, whose width is a multiple of 16, with the unscaled
    /// converter's RGB24 context: it writes 16-pixel groups, so no group reaches past a row) into a packed RGB array, `reusing`'s memory when it
    /// has the right size. The array keeps 64 bytes of spare capacity past its end in case a vector store
    /// of the converter runs over.
    static func convert(from frame: UnsafeMutablePointer<AVFrame>, with scaler: OpaquePointer, reusing: consuming [UInt8]?) -> [UInt8] {
        let w = Int(frame.pointee.width), h = Int(frame.pointee.height), count = w * h * 3
        let slack = 64
        func write(into pixels: inout [UInt8]) {
            pixels.withUnsafeMutableBufferPointer { scale(frame, with: scaler, into: $0.baseAddress!, rowBytes: w * 3) }
        }
        // Moved, not copied (a second reference would make the write copy the whole array).
        if var pixels = consume reusing, pixels.count == count {
            // A no-op for an array of ours held nowhere else; otherwise a copy of our own, with the slack
            // (not the one the write would make, without it).
            pixels.reserveCapacity(count + slack)
            write(into: &pixels)
            return pixels
        }
        var pixels = [UInt8](unsafeUninitializedCapacity: count + slack) { _, initialized in initialized = count }
        write(into: &pixels)
        return pixels
    }

    /// Converts the staged pixels into `frame` (allocated in the encoder's pixel format) with `scaler`.
    func convert(into frame: UnsafeMutablePointer<AVFrame>, with scaler: OpaquePointer) {
        var source: [UnsafePointer<UInt8>?] = [UnsafePointer(base), nil, nil, nil]
        var stride: [Int32] = [Int32(rowBytes), 0, 0, 0]
        RGBStaging.withPlanes(of: frame) { planes, strides in
            _ = sws_scale(scaler, &source, &stride, 0, Int32(height), planes, strides)
        }
    }

    /// An AVFrame's plane pointers and line sizes as the arrays libswscale takes.
    static func withPlanes(of frame: UnsafeMutablePointer<AVFrame>,
                            _ body: (UnsafePointer<UnsafeMutablePointer<UInt8>?>, UnsafePointer<Int32>) -> Void) {
        withUnsafePointer(to: &frame.pointee.data) { data in
            data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { planes in
                withUnsafePointer(to: &frame.pointee.linesize) { sizes in
                    sizes.withMemoryRebound(to: Int32.self, capacity: 8) { strides in body(planes, strides) }
                }
            }
        }
    }
}

/// Pixel arrays of frames the reader's user is done with (``VideoFileReader/recycle(_:)``), for the decoder
/// to write later frames into: a 1080p frame is 6 MB, and a fresh allocation of that size comes from the
/// kernel as zeroed pages on every frame (measured: page clearing was the largest single cost of decoding
/// a 1080p clip). Shared between the reader's user and the decoding thread, so guarded by a lock.
final class PixelRecycler: @unchecked Sendable {
    private let lock = NSLock()
    private var arrays: [[UInt8]] = []
    private let limit: Int
    private var handedOut = 0
    /// How many arrays ``take(count:)`` has handed out again (for tests).
    var reuses: Int { lock.withLock { handedOut } }

    init(limit: Int) { self.limit = limit }

    func put(_ pixels: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        if arrays.count < limit { arrays.append(pixels) }
    }

    /// An array of `count` bytes handed back earlier, if any (others are dropped).
    func take(count: Int) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        while let last = arrays.popLast() {
            if last.count == count {
                handedOut += 1
                return last
            }
        }
        return nil
    }
}
