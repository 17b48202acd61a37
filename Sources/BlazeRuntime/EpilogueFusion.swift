import BlazeModelFormat

/// The `add` and `prelu` nodes that run inside the convolution before them, as its
/// ``BlazeKernels/ConvolutionEpilogue``, instead of as passes of their own.
///
/// A convolution absorbs the `add` that is the only reader of its output when the add's other input
/// (the residual) is ready before the convolution runs, and then the `prelu` that is the only reader
/// of the add's output (or of its own output, with no add). Values that are graph outputs are never
/// absorbed. The fused step writes the last absorbed node's output, so the values in between get no
/// memory at all. Outputs are the same bits either way (``RuntimeOptions/fusesEpilogues``).
struct EpilogueFusion {
    struct Group {
        /// The `add` node absorbed, and the value it adds to the convolution's output.
        var add: (node: Int, residual: Int)?
        /// The `prelu` node absorbed, and its slope constant.
        var prelu: (node: Int, alpha: Int)?
        /// The value the fused step writes.
        var output: Int
    }

    /// By convolution node index.
    private(set) var groups: [Int: Group] = [:]
    /// The `add` and `prelu` nodes that run inside a convolution.
    private(set) var absorbed: Set<Int> = []

    /// No fusion.
    init() {}

    init(graph g: Graph, neededNode: [Bool]) {
        var producer = [Int](repeating: -1, count: g.values.count)
        var readers = [[Int]](repeating: [], count: g.values.count)
        for (n, node) in g.nodes.enumerated() where neededNode[n] {
            for o in node.outputs { producer[o] = n }
            for i in node.inputs { readers[i].append(n) }
        }
        let graphOutputs = Set(g.outputs)
        /// The one node reading `v`, if `v` is read once and is not a graph output.
        func onlyReader(_ v: Int) -> Int? {
            readers[v].count == 1 && !graphOutputs.contains(v) ? readers[v][0] : nil
        }
        func isActivation(_ v: Int) -> Bool { g.values[v].constant == nil }
        /// Whether `n` is a PReLU over `v` with one slope per channel.
        func preluSlopes(_ n: Int, over v: Int) -> Int? {
            let node = g.nodes[n]
            guard node.op == .prelu, node.inputs.count == 2, node.outputs.count == 1, node.inputs[0] == v,
                  let c = g.values[v].shape.last, g.values[node.inputs[1]].constant != nil,
                  g.values[node.inputs[1]].elementCount == c, g.values[node.outputs[0]].shape == g.values[v].shape
            else { return nil }
            return node.inputs[1]
        }
        func isConvolution(_ n: Int) -> Bool {
            n >= 0 && g.nodes[n].op == .conv2d && g.nodes[n].outputs.count == 1 && groups[n] == nil
        }

        for (j, node) in g.nodes.enumerated() where neededNode[j] && node.op == .add {
            guard node.inputs.count == 2, node.outputs.count == 1, node.inputs[0] != node.inputs[1],
                  node.inputs.allSatisfy(isActivation),
                  node.inputs.allSatisfy({ g.values[$0].shape == g.values[node.outputs[0]].shape }) else { continue }
            // The convolution that runs last of the two inputs' producers, so that the other input is ready.
            let candidates = node.inputs.indices.filter { k in
                let v = node.inputs[k], other = node.inputs[1 - k]
                return isConvolution(producer[v]) && onlyReader(v) == j && producer[other] < producer[v]
            }
            guard let k = candidates.max(by: { producer[node.inputs[$0]] < producer[node.inputs[$1]] }) else { continue }
            let conv = producer[node.inputs[k]]
            var group = Group(add: (j, node.inputs[1 - k]), prelu: nil, output: node.outputs[0])
            if let p = onlyReader(node.outputs[0]), let alpha = preluSlopes(p, over: node.outputs[0]) {
                group.prelu = (p, alpha)
                group.output = g.nodes[p].outputs[0]
                absorbed.insert(p)
            }
            groups[conv] = group
            absorbed.insert(j)
        }
        for (i, node) in g.nodes.enumerated() where neededNode[i] && isConvolution(i) {
            let v = node.outputs[0]
            guard let p = onlyReader(v), let alpha = preluSlopes(p, over: v) else { continue }
            groups[i] = Group(add: nil, prelu: (p, alpha), output: g.nodes[p].outputs[0])
            absorbed.insert(p)
        }
    }
}
