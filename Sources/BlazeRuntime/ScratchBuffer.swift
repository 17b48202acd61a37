/// Scratch memory owned by a step (or the session's activation arena), allocated once at plan time
/// on a 64-byte boundary: with the arena's 64-byte offsets every 16-float vector of a tensor whose
/// channels are a multiple of 16 sits in one cache line (malloc's 16-byte alignment split every
/// AVX-512 load in two).
final class ScratchBuffer {
    let pointer: UnsafeMutablePointer<Float>
    init(floats: Int) {
        let count = max(floats, 1)
        pointer = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 64)
            .bindMemory(to: Float.self, capacity: count)
        pointer.initialize(repeating: 0, count: count)
    }
    deinit { pointer.deallocate() }
}
