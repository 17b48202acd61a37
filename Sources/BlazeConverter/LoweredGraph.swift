import BlazeModelFormat

/// A BlazeKit graph and its constant tensors, as the model-level passes see it:
/// ``ValueInfo/constant`` indexes ``constants``.
public struct LoweredGraph: Sendable, Equatable {
    public var graph: Graph
    public var constants: [ConstantTensor]

    public init(graph: Graph, constants: [ConstantTensor]) {
        self.graph = graph
        self.constants = constants
    }

    /// How many node inputs (counting repeats) read each value.
    public func useCounts() -> [Int] {
        var counts = [Int](repeating: 0, count: graph.values.count)
        for node in graph.nodes { for v in node.inputs { counts[v] += 1 } }
        return counts
    }

    /// Op histogram: op raw value → count, sorted by name.
    public var opHistogram: [(op: String, count: Int)] {
        var h: [String: Int] = [:]
        for n in graph.nodes { h[n.op.rawValue, default: 0] += 1 }
        return h.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
