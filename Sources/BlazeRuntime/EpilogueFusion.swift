import BlazeModelFormat

/// The `add`, `prelu` and `relu` nodes that run inside the convolution before them, as its
/// ``BlazeKernels/ConvolutionEpilogue``, instead of as passes of their own.
///
/// A convolution absorbs the `add` that is the only reader of its output when the add's other input
/// (the residual) is ready before the convolution runs, and then the `prelu` or `relu` that is the only
/// reader of the add's output (or of its own output, with no add). A residual that is a `pad` of
/// trailing zero channels read only by the add (face detection's 24 → 28 shortcuts) is absorbed too:
/// the add reads the pad's input, and the padded channels add zero. Values that are graph outputs are
/// never absorbed. The fused step writes the last absorbed node's output, so the values in between get
/// no memory at all. Outputs are the same bits either way (``RuntimeOptions/fusesEpilogues``).
struct EpilogueFusion {
    struct Group {
        /// The `add` node absorbed, and the value it adds to the convolution's output.
        var add: (node: Int, residual: Int)?
        /// The `pad` node absorbed into the add (its input is then the residual), and the residual's channels.
        var pad: (node: Int, residualChannels: Int)?
        /// The `prelu` node absorbed, and its slope constant.
        var prelu: (node: Int, alpha: Int)?
        /// The `relu` node absorbed.
        var relu: Int?
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
        /// Whether `n` is a ReLU over `v`.
        func isRelu(_ n: Int, over v: Int) -> Bool {
            let node = g.nodes[n]
            return node.op == .relu && node.inputs == [v] && node.outputs.count == 1
                && g.values[node.outputs[0]].shape == g.values[v].shape
        }
        /// The value `v` is the zero padding of, if `v` is an NHWC activation made by a `pad` of trailing
        /// channels only and read by nothing else, and that pad's node.
        func paddedChannels(_ v: Int) -> (node: Int, input: Int, channels: Int)? {
            let n = producer[v]
            guard n >= 0, onlyReader(v) != nil else { return nil }
            let node = g.nodes[n]
            guard node.op == .pad, node.inputs.count == 1, node.outputs == [v], isActivation(node.inputs[0]),
                  let pads = try? node.ints("pads", count: 8, nodeIndex: n), pads.dropLast().allSatisfy({ $0 == 0 }),
                  pads[7] > 0 else { return nil }
            let x = g.values[node.inputs[0]].shape, y = g.values[v].shape
            guard x.count == 4, y.count == 4, Array(x.dropLast()) == Array(y.dropLast()), x[3] + pads[7] == y[3] else { return nil }
            return (n, node.inputs[0], x[3])
        }
        /// Absorbs the PReLU or ReLU that is the only reader of `v` into `group`.
        func absorbActivation(after v: Int, into group: inout Group) {
            guard let p = onlyReader(v) else { return }
            if let alpha = preluSlopes(p, over: v) {
                group.prelu = (p, alpha)
            } else if isRelu(p, over: v) {
                group.relu = p
            } else {
                return
            }
            group.output = g.nodes[p].outputs[0]
            absorbed.insert(p)
        }

        for (j, node) in g.nodes.enumerated() where neededNode[j] && node.op == .add {
            guard node.inputs.count == 2, node.outputs.count == 1, node.inputs[0] != node.inputs[1],
                  node.inputs.allSatisfy(isActivation),
                  node.inputs.allSatisfy({ g.values[$0].shape == g.values[node.outputs[0]].shape }) else { continue }
            /// The add's other input as the convolution reads it: through the pad it comes from, if any.
            func residual(_ other: Int) -> (value: Int, pad: (node: Int, residualChannels: Int)?) {
                guard let p = paddedChannels(other) else { return (other, nil) }
                return (p.input, (p.node, p.channels))
            }
            // The convolution that runs last of the two inputs' producers, so that the residual is ready.
            let candidates = node.inputs.indices.filter { k in
                let v = node.inputs[k], other = residual(node.inputs[1 - k]).value
                return isConvolution(producer[v]) && onlyReader(v) == j && producer[other] < producer[v]
            }
            guard let k = candidates.max(by: { producer[node.inputs[$0]] < producer[node.inputs[$1]] }) else { continue }
            let conv = producer[node.inputs[k]]
            let (residualValue, pad) = residual(node.inputs[1 - k])
            var group = Group(add: (j, residualValue), pad: pad, prelu: nil, relu: nil, output: node.outputs[0])
            absorbActivation(after: node.outputs[0], into: &group)
            groups[conv] = group
            absorbed.insert(j)
            if let pad { absorbed.insert(pad.node) }
        }
        for (i, node) in g.nodes.enumerated() where neededNode[i] && isConvolution(i) {
            var group = Group(add: nil, pad: nil, prelu: nil, relu: nil, output: node.outputs[0])
            absorbActivation(after: node.outputs[0], into: &group)
            if group.prelu != nil || group.relu != nil { groups[i] = group }
        }
    }
}
