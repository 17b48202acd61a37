/// Assigns every activation value an offset in one arena so that values whose lifetimes overlap
/// never share memory. Lifetimes run from the producing step to the last consuming step; graph
/// inputs live from the start and graph outputs to the end. Greedy: largest values first, each at
/// the lowest 64-byte-aligned offset that does not collide with an already placed, overlapping value.
struct ArenaPlanner {
    struct Interval {
        var value: Int
        var floats: Int
        var first: Int
        var last: Int
    }

    /// Offsets in floats, indexed by value id (nil for values that need no arena slot), and the arena size.
    static func plan(_ intervals: [Interval], valueCount: Int) -> (offsets: [Int?], totalFloats: Int) {
        let align = 16 // floats = 64 bytes
        var offsets = [Int?](repeating: nil, count: valueCount)
        var placed: [(start: Int, end: Int, first: Int, last: Int)] = []
        var total = 0
        for iv in intervals.sorted(by: { ($0.floats, -$0.value) > ($1.floats, -$1.value) }) {
            let size = (iv.floats + align - 1) / align * align
            let conflicts = placed.filter { $0.first <= iv.last && iv.first <= $0.last }.sorted { $0.start < $1.start }
            var offset = 0
            for c in conflicts {
                if offset + size <= c.start { break }
                offset = max(offset, c.end)
            }
            placed.append((offset, offset + size, iv.first, iv.last))
            offsets[iv.value] = offset
            total = max(total, offset + size)
        }
        return (offsets, total)
    }
}
