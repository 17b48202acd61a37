/// Expands TFLite's sparse tensor format into a dense row-major array, following
/// `tflite::internal::sparsity::FormatConverter::SparseToDense`.
///
/// The format: the tensor's `rank` dimensions, some split into blocks (`block_map[k]` is the
/// dimension that block dimension `rank + k` subdivides, with block size
/// `dim_metadata[rank + k].dense_size`), are visited in `traversal_order`. Each visited level is
/// either dense (all `dense_size` coordinates) or CSR (coordinates `array_indices[s..<e]` where
/// `s, e = array_segments[p], array_segments[p + 1]` and `p` is the position in the parent
/// level). The stored values are the leaves in visiting order. Every index is checked, so an
/// inconsistent tensor throws ``ConverterError/badSparsity(tensor:reason:)``.
public enum SparseDensifier {
    public static func densify<T>(values: [T], zero: T, shape: [Int], sparsity: SparsityParameters,
                                  tensor: String) throws -> [T] {
        func fail(_ reason: String) -> ConverterError { .badSparsity(tensor: tensor, reason: reason) }
        let rank = shape.count
        let blockRank = sparsity.blockMap.count
        let levels = rank + blockRank
        guard levels <= 16 else { throw fail("\(levels) dimensions, at most 16 are supported") }
        guard sparsity.traversalOrder.count == levels else {
            throw fail("traversal_order has \(sparsity.traversalOrder.count) entries, expected rank \(rank) + \(blockRank) block dimensions")
        }
        guard sparsity.dimMetadata.count == levels else {
            throw fail("dim_metadata has \(sparsity.dimMetadata.count) entries, expected \(levels)")
        }
        guard Set(sparsity.traversalOrder.prefix(rank)) == Set(0..<rank),
              Set(sparsity.traversalOrder.dropFirst(rank)) == Set(rank..<levels) else {
            throw fail("traversal_order \(sparsity.traversalOrder) must list the \(rank) tensor dimensions, then the \(blockRank) block dimensions")
        }
        guard sparsity.blockMap.allSatisfy({ $0 >= 0 && $0 < rank }), Set(sparsity.blockMap).count == blockRank else {
            throw fail("block_map \(sparsity.blockMap) must name distinct dimensions below \(rank)")
        }
        let denseCount = try elementCount(shape, tensor: tensor)

        // Block sizes and the blocked (outer) shape.
        var blockSize = [Int](repeating: 1, count: blockRank)
        var blockedShape = shape
        for k in 0..<blockRank {
            let size = sparsity.dimMetadata[rank + k].denseSize
            let dim = sparsity.blockMap[k]
            guard size > 0, shape[dim] % size == 0 else {
                throw fail("block size \(size) does not divide dimension \(dim) of shape \(shape)")
            }
            blockSize[k] = size
            blockedShape[dim] = shape[dim] / size
        }
        // The coordinate range of each traversal level.
        let levelSize: [Int] = sparsity.traversalOrder.map { d in d < rank ? blockedShape[d] : blockSize[d - rank] }
        for (level, meta) in sparsity.dimMetadata.enumerated() where meta.format == .dense {
            guard meta.denseSize == levelSize[level] else {
                throw fail("dense level \(level) has dense_size \(meta.denseSize), its dimension has \(levelSize[level])")
            }
        }
        var strides = [Int](repeating: 1, count: rank)
        if rank > 1 { for d in stride(from: rank - 2, through: 0, by: -1) { strides[d] = strides[d + 1] * shape[d + 1] } }

        var dense = [T](repeating: zero, count: denseCount)
        var coordinates = [Int](repeating: 0, count: levels)
        var nextValue = 0

        func emit() throws {
            guard nextValue < values.count else {
                throw fail("the sparsity structure visits more than the \(values.count) stored values")
            }
            var original = [Int](repeating: 0, count: rank)
            for level in 0..<rank { original[sparsity.traversalOrder[level]] = coordinates[level] }
            for level in rank..<levels {
                let k = sparsity.traversalOrder[level] - rank
                let dim = sparsity.blockMap[k]
                original[dim] = original[dim] * blockSize[k] + coordinates[level]
            }
            var flat = 0
            for d in 0..<rank {
                guard original[d] < shape[d] else {
                    throw fail("a stored value lands at index \(original), outside shape \(shape)")
                }
                flat += original[d] * strides[d]
            }
            dense[flat] = values[nextValue]
            nextValue += 1
        }

        func visit(level: Int, parent: Int) throws {
            if level == levels { return try emit() }
            let meta = sparsity.dimMetadata[level]
            switch meta.format {
            case .dense:
                for i in 0..<meta.denseSize {
                    coordinates[level] = i
                    try visit(level: level + 1, parent: parent * meta.denseSize + i)
                }
            case .sparseCSR:
                guard parent + 1 < meta.segments.count else {
                    throw fail("level \(level) has \(meta.segments.count) segment boundaries, position \(parent) needs \(parent + 2)")
                }
                let start = meta.segments[parent], end = meta.segments[parent + 1]
                guard start >= 0, start <= end, end <= meta.indices.count else {
                    throw fail("level \(level) segment \(parent) is \(start)..<\(end), expected an ordered range inside \(meta.indices.count) indices")
                }
                for i in start..<end {
                    let coordinate = meta.indices[i]
                    guard coordinate >= 0, coordinate < levelSize[level] else {
                        throw fail("level \(level) index \(coordinate) is outside 0..<\(levelSize[level])")
                    }
                    coordinates[level] = coordinate
                    try visit(level: level + 1, parent: i)
                }
            }
        }
        try visit(level: 0, parent: 0)
        guard nextValue == values.count else {
            throw fail("the sparsity structure visits \(nextValue) values, the buffer stores \(values.count)")
        }
        return dense
    }
}
