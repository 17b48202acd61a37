import BlazeModelFormat

/// Folds a zero `pad` into the convolution that reads it.
///
/// A pad is fused when it pads only the H and W axes of a rank-4 tensor, its output is not a
/// graph output, and exactly one node input reads it: input 0 of a `conv2d` or
/// `depthwise_conv2d`. The pad amounts are added to the convolution's `pads`
/// `[top, left, bottom, right]` and the convolution reads the pad's input. Pads feeding
/// `max_pool2d` are never fused: pooling ignores padded cells, whereas a PAD makes them zeros.
public enum PadFusionPass {
    /// Returns the number of pads fused. The dead pad outputs are left for ``DeadValueElimination``.
    @discardableResult
    public static func run(_ lowered: inout LoweredGraph) throws -> Int {
        var graph = lowered.graph
        let uses = lowered.useCounts()
        let graphOutputs = Set(graph.outputs)
        var consumer: [Int: Int] = [:]
        for (i, node) in graph.nodes.enumerated() { for v in node.inputs { consumer[v] = i } }

        var removed = Set<Int>()
        for (padIndex, pad) in graph.nodes.enumerated() where pad.op == .pad {
            guard pad.inputs.count == 1, pad.outputs.count == 1,
                  case .ints(let p)? = pad.attributes["pads"], p.count == 8,
                  p[0] == 0, p[1] == 0, p[6] == 0, p[7] == 0 else { continue }
            let out = pad.outputs[0]
            guard !graphOutputs.contains(out), uses[out] == 1, let c = consumer[out] else { continue }
            var conv = graph.nodes[c]
            guard conv.op == .conv2d || conv.op == .depthwiseConv2d, conv.inputs.first == out else { continue }
            let old = try conv.ints("pads", count: 4, nodeIndex: c)
            conv.attributes["pads"] = .ints([old[0] + p[2], old[1] + p[4], old[2] + p[3], old[3] + p[5]])
            conv.inputs[0] = pad.inputs[0]
            graph.nodes[c] = conv
            removed.insert(padIndex)
        }
        graph.nodes = graph.nodes.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
        lowered.graph = graph
        return removed.count
    }
}
