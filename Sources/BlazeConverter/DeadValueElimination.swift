import BlazeModelFormat

/// Removes nodes whose outputs nobody needs, then values and constants nobody refers to.
/// Surviving values and constants keep their relative order, so the result is deterministic.
public enum DeadValueElimination {
    public static func run(_ lowered: inout LoweredGraph) {
        let graph = lowered.graph
        var live = [Bool](repeating: false, count: graph.values.count)
        for o in graph.outputs { live[o] = true }
        var keepNode = [Bool](repeating: false, count: graph.nodes.count)
        for i in stride(from: graph.nodes.count - 1, through: 0, by: -1) {
            let node = graph.nodes[i]
            guard node.outputs.contains(where: { live[$0] }) else { continue }
            keepNode[i] = true
            for v in node.inputs { live[v] = true }
            for v in node.outputs { live[v] = true }
        }
        for i in graph.inputs { live[i] = true }

        var newValueID = [Int](repeating: -1, count: graph.values.count)
        var newConstantID = [Int: Int]()
        var values: [ValueInfo] = []
        var constants: [ConstantTensor] = []
        for (id, value) in graph.values.enumerated() where live[id] {
            var v = value
            if let c = value.constant {
                if let existing = newConstantID[c] {
                    v.constant = existing
                } else {
                    newConstantID[c] = constants.count
                    v.constant = constants.count
                    constants.append(lowered.constants[c])
                }
            }
            newValueID[id] = values.count
            values.append(v)
        }
        let nodes = graph.nodes.enumerated().filter { keepNode[$0.offset] }.map { _, node -> Node in
            var n = node
            n.inputs = n.inputs.map { newValueID[$0] }
            n.outputs = n.outputs.map { newValueID[$0] }
            return n
        }
        lowered = LoweredGraph(graph: Graph(values: values, nodes: nodes,
                                            inputs: graph.inputs.map { newValueID[$0] },
                                            outputs: graph.outputs.map { newValueID[$0] }),
                               constants: constants)
    }
}
