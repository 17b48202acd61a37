import BlazeModelFormat

/// Lowers an ``ImportGraph`` (after the TFLite-level passes) to a BlazeKit ``LoweredGraph``.
///
/// Each supported TFLite operator becomes one node; SAME/VALID padding becomes explicit
/// `pads`; constant shape/size/axis tensors become attributes. Every value gets the static
/// shape of its TFLite tensor, and window ops are checked against the shapes their pads imply.
/// Operators that cannot be lowered are collected and reported together in
/// ``ConverterError/unsupportedOperators(_:)``. MUL, STRIDED_SLICE and MediaPipe's custom operators are
/// lowered in `TFLiteImporter+MediaPipe.swift`.
public struct TFLiteImporter {
    private let source: ImportGraph
    private var values: [ValueInfo] = []
    private var constants: [ConstantTensor] = []
    private var nodes: [Node] = []
    /// TFLite tensor → value id, for activations.
    private var activationValue: [Int: Int] = [:]
    /// "tensor|shape" → value id, for constants (a constant may be used under several shapes).
    private var constantValue: [String: Int] = [:]
    private var issues: [UnsupportedOperator] = []

    /// Lowers `graph`; throws ``ConverterError/unsupportedOperators(_:)`` listing every
    /// operator that cannot be converted.
    public static func lower(_ graph: ImportGraph) throws -> LoweredGraph {
        var importer = TFLiteImporter(source: graph)
        return try importer.run()
    }

    private init(source: ImportGraph) {
        self.source = source
    }

    /// A per-operator problem; becomes an ``UnsupportedOperator``.
    struct OperatorIssue: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private mutating func run() throws -> LoweredGraph {
        var inputs: [Int] = []
        for t in source.inputs {
            let tensor = source.tensors[t]
            guard !tensor.isConstant else {
                throw ConverterError.unsupportedModel("graph input '\(tensor.name)' is a constant")
            }
            do {
                inputs.append(try activation(t))
            } catch let issue as OperatorIssue {
                throw ConverterError.unsupportedModel("graph input: \(issue.reason)")
            }
        }
        for op in source.operators {
            do {
                try lower(op)
            } catch let issue as OperatorIssue {
                issues.append(UnsupportedOperator(op: op.name, index: op.index,
                                                  inputs: op.inputs.map { $0 >= 0 ? source.tensors[$0].name : "<none>" },
                                                  outputs: op.outputs.map { source.tensors[$0].name },
                                                  reason: issue.reason))
            }
        }
        guard issues.isEmpty else { throw ConverterError.unsupportedOperators(issues) }
        var outputs: [Int] = []
        for t in source.outputs {
            guard let v = activationValue[t] else {
                throw ConverterError.unsupportedModel("graph output '\(source.tensors[t].name)' is not computed by any operator")
            }
            outputs.append(v)
        }
        return LoweredGraph(graph: Graph(values: values, nodes: nodes, inputs: inputs, outputs: outputs),
                            constants: constants)
    }

    // MARK: - Values

    /// The value of activation tensor `t`: float32, with a static positive shape.
    private mutating func activation(_ t: Int) throws -> Int {
        if let v = activationValue[t] { return v }
        let tensor = source.tensors[t]
        guard tensor.type == .float32 else {
            throw OperatorIssue("activation '\(tensor.name)' is \(tensor.typeName), only FLOAT32 activations are supported")
        }
        guard tensor.shape.allSatisfy({ $0 > 0 }) else {
            throw OperatorIssue("activation '\(tensor.name)' has shape \(tensor.shape), expected static positive dimensions")
        }
        values.append(ValueInfo(name: tensor.name, shape: tensor.shape))
        activationValue[t] = values.count - 1
        return values.count - 1
    }

    /// The float32 values of constant tensor `t`.
    func floats(_ t: Int, _ role: String) throws -> [Float] {
        guard t >= 0 else { throw OperatorIssue("\(role) is missing") }
        let tensor = source.tensors[t]
        guard tensor.sparsity == nil else { throw OperatorIssue("\(role) '\(tensor.name)' is still sparse") }
        switch tensor.data {
        case .float32(let v)?: return v
        case nil: throw OperatorIssue("\(role) '\(tensor.name)' must be a constant")
        default: throw OperatorIssue("\(role) '\(tensor.name)' is \(tensor.typeName), expected a FLOAT32 constant")
        }
    }

    /// The int32 values of constant tensor `t`.
    func ints(_ t: Int, _ role: String) throws -> [Int] {
        guard t >= 0 else { throw OperatorIssue("\(role) is missing") }
        let tensor = source.tensors[t]
        guard case .int32(let v)? = tensor.data, tensor.sparsity == nil else {
            throw OperatorIssue("\(role) '\(tensor.name)' must be an INT32 constant, found \(tensor.isConstant ? "a" : "a non-constant") \(tensor.typeName) tensor")
        }
        return v.map(Int.init)
    }

    /// A constant value holding `data` under `shape` (the tensor's own shape unless given).
    mutating func constant(_ t: Int, data: [Float], shape: [Int]) -> Int {
        let key = "\(t)|\(shape)"
        if let v = constantValue[key] { return v }
        var name = source.tensors[t].name
        if constantValue.keys.contains(where: { $0.hasPrefix("\(t)|") }) { name += "#\(shape.map(String.init).joined(separator: "x"))" }
        constants.append(ConstantTensor(name: name, shape: shape, values: data))
        values.append(ValueInfo(name: name, shape: shape, constant: constants.count - 1))
        constantValue[key] = values.count - 1
        return values.count - 1
    }

    /// A new constant not backed by a TFLite tensor (e.g. a zero bias).
    mutating func syntheticConstant(name: String, data: [Float], shape: [Int]) -> Int {
        constants.append(ConstantTensor(name: name, shape: shape, values: data))
        values.append(ValueInfo(name: name, shape: shape, constant: constants.count - 1))
        return values.count - 1
    }

    /// A float32 input: an activation, or a float32 constant under its own shape.
    mutating func floatInput(_ t: Int, _ role: String) throws -> Int {
        guard t >= 0 else { throw OperatorIssue("\(role) is missing") }
        let tensor = source.tensors[t]
        if tensor.isConstant {
            let data = try floats(t, role)
            guard tensor.shape.allSatisfy({ $0 > 0 }) else { throw OperatorIssue("\(role) '\(tensor.name)' has shape \(tensor.shape)") }
            return constant(t, data: data, shape: tensor.shape)
        }
        return try activation(t)
    }

    /// The shape of tensor `t`; an omitted optional input (index −1) has the empty shape, which the lowerings'
    /// shape checks then reject with a message (a FULLY_CONNECTED whose weights are omitted trapped here
    /// before; found by `Tools/fuzzing/fuzz.sh tflite`).
    func shape(_ t: Int) -> [Int] { t >= 0 ? source.tensors[t].shape : [] }

    static func activationName(_ code: Int) throws -> String {
        switch code {
        case 0: return Activation.none.rawValue
        case 1: return Activation.relu.rawValue
        case 2: return Activation.reluN1To1.rawValue
        case 3: return Activation.relu6.rawValue
        case 4: throw OperatorIssue("fused activation TANH is not supported")
        case 5: throw OperatorIssue("fused activation SIGN_BIT is not supported")
        default: throw OperatorIssue("unknown fused activation \(code)")
        }
    }

    private static func padding(_ code: Int) throws -> TFLitePadding {
        guard let p = TFLitePadding(rawValue: code) else { throw OperatorIssue("unknown padding \(code)") }
        return p
    }

    func expectCounts(_ op: ImportOperator, inputs: ClosedRange<Int>, outputs: Int = 1) throws {
        guard inputs.contains(op.inputs.count), op.outputs.count == outputs else {
            throw OperatorIssue("expected \(inputs.lowerBound == inputs.upperBound ? "\(inputs.lowerBound)" : "\(inputs)") inputs and \(outputs) output(s), found \(op.inputs.count) and \(op.outputs.count)")
        }
    }

    mutating func emit(_ kind: OpKind, _ op: ImportOperator, inputs: [Int],
                       attributes: [String: AttributeValue] = [:]) throws {
        var outs: [Int] = []
        for o in op.outputs {
            guard activationValue[o] == nil, !source.tensors[o].isConstant else {
                throw OperatorIssue("output '\(source.tensors[o].name)' is written twice or is a constant")
            }
            outs.append(try activation(o))
        }
        nodes.append(Node(op: kind, name: source.tensors[op.outputs[0]].name, inputs: inputs, outputs: outs,
                          attributes: attributes))
    }

    // MARK: - Operators

    private mutating func lower(_ op: ImportOperator) throws {
        guard let builtin = op.builtin else { throw OperatorIssue("not supported") }
        switch builtin {
        case .conv2d: try lowerConv(op, depthwise: false)
        case .depthwiseConv2d: try lowerConv(op, depthwise: true)
        case .maxPool2d: try lowerMaxPool(op)
        case .add: try lowerAdd(op)
        case .prelu: try lowerPRelu(op)
        case .pad: try lowerPad(op)
        case .resizeBilinear: try lowerResizeBilinear(op)
        case .depthToSpace: try lowerDepthToSpace(op)
        case .reshape: try lowerReshape(op)
        case .concatenation: try lowerConcatenation(op)
        case .mean: try lowerMean(op)
        case .fullyConnected: try lowerFullyConnected(op)
        case .relu:
            try expectCounts(op, inputs: 1...1)
            let x = try floatInput(op.inputs[0], "input")
            guard shape(op.inputs[0]) == shape(op.outputs[0]) else {
                throw OperatorIssue("output shape \(shape(op.outputs[0])) differs from input shape \(shape(op.inputs[0]))")
            }
            try emit(.relu, op, inputs: [x])
        case .mul: try lowerMul(op)
        case .stridedSlice: try lowerStridedSlice(op)
        case .logistic:
            try expectCounts(op, inputs: 1...1)
            let x = try floatInput(op.inputs[0], "input")
            guard shape(op.inputs[0]) == shape(op.outputs[0]) else {
                throw OperatorIssue("output shape \(shape(op.outputs[0])) differs from input shape \(shape(op.inputs[0]))")
            }
            try emit(.logistic, op, inputs: [x])
        case .dequantize:
            throw OperatorIssue("not supported: only DEQUANTIZE of a FLOAT16 constant can be converted (it is folded)")
        case .densify:
            throw OperatorIssue("not supported: only DENSIFY of a sparse constant can be converted (it is folded)")
        case .custom: try lowerCustom(op)
        }
    }

    private mutating func lowerConv(_ op: ImportOperator, depthwise: Bool) throws {
        try expectCounts(op, inputs: 2...3)
        let xShape = shape(op.inputs[0]), wShape = shape(op.inputs[1]), yShape = shape(op.outputs[0])
        guard xShape.count == 4, xShape[0] == 1, yShape.count == 4, yShape[0] == 1 else {
            throw OperatorIssue("expected input and output [1,H,W,C], found \(xShape) and \(yShape)")
        }
        guard wShape.count == 4 else { throw OperatorIssue("weights have shape \(wShape), expected rank 4") }
        let padding: TFLitePadding, sh: Int, sw: Int, dh: Int, dw: Int, act: Int
        let kh = wShape[1], kw = wShape[2]
        let outChannels: Int
        if depthwise {
            guard case let .depthwiseConv2d(p, strideW, strideH, multiplier, a, dilW, dilH) = op.options else {
                throw OperatorIssue("missing DepthwiseConv2DOptions")
            }
            guard multiplier == 1, yShape[3] == xShape[3], wShape[0] == 1, wShape[3] == xShape[3] else {
                throw OperatorIssue("depth multiplier \(multiplier) with input channels \(xShape[3]), output channels \(yShape[3]) and weights \(wShape): only depth multiplier 1 is supported")
            }
            (padding, sh, sw, dh, dw, act) = (try Self.padding(p), strideH, strideW, dilH, dilW, a)
            outChannels = xShape[3]
        } else {
            guard case let .conv2d(p, strideW, strideH, a, dilW, dilH) = op.options else {
                throw OperatorIssue("missing Conv2DOptions")
            }
            guard wShape[3] == xShape[3], wShape[0] == yShape[3] else {
                throw OperatorIssue("weights \(wShape) do not match input \(xShape) and output \(yShape) (grouped convolution is not supported)")
            }
            (padding, sh, sw, dh, dw, act) = (try Self.padding(p), strideH, strideW, dilH, dilW, a)
            outChannels = wShape[0]
        }
        guard sh > 0, sw > 0, dh > 0, dw > 0, kh > 0, kw > 0 else {
            throw OperatorIssue("strides [\(sh), \(sw)], dilations [\(dh), \(dw)] and kernel \(kh)x\(kw) must be positive")
        }
        let pads = SpatialPadding.pads(padding, inputH: xShape[1], inputW: xShape[2], kernelH: kh, kernelW: kw,
                                       strideH: sh, strideW: sw, dilationH: dh, dilationW: dw)
        try checkWindowOutput(x: xShape, y: yShape, kernel: (kh, kw), strides: (sh, sw), dilations: (dh, dw), pads: pads)
        let activationName = try Self.activationName(act)
        let x = try floatInput(op.inputs[0], "input")
        let weights = try floats(op.inputs[1], "weights")
        let w = depthwise ? constant(op.inputs[1], data: weights, shape: [kh, kw, outChannels])
                          : constant(op.inputs[1], data: weights, shape: wShape)
        let b = try bias(op, index: 2, count: outChannels)
        try emit(depthwise ? .depthwiseConv2d : .conv2d, op, inputs: [x, w, b], attributes: [
            "strides": .ints([sh, sw]), "dilations": .ints([dh, dw]), "pads": .ints(pads),
            "activation": .string(activationName),
        ])
    }

    /// The bias input `index` as a `[count]` constant; zeros when the input is omitted.
    private mutating func bias(_ op: ImportOperator, index: Int, count: Int) throws -> Int {
        guard index < op.inputs.count, op.inputs[index] >= 0 else {
            return syntheticConstant(name: source.tensors[op.outputs[0]].name + "/zero_bias",
                                     data: [Float](repeating: 0, count: count), shape: [count])
        }
        let data = try floats(op.inputs[index], "bias")
        guard data.count == count else {
            throw OperatorIssue("bias has \(data.count) elements, expected \(count)")
        }
        return constant(op.inputs[index], data: data, shape: [count])
    }

    private func checkWindowOutput(x: [Int], y: [Int], kernel: (Int, Int), strides: (Int, Int),
                                   dilations: (Int, Int), pads: [Int]) throws {
        let oh = SpatialPadding.outputSize(input: x[1], kernel: kernel.0, stride: strides.0, dilation: dilations.0,
                                           before: pads[0], after: pads[2])
        let ow = SpatialPadding.outputSize(input: x[2], kernel: kernel.1, stride: strides.1, dilation: dilations.1,
                                           before: pads[1], after: pads[3])
        guard oh == y[1], ow == y[2] else {
            throw OperatorIssue("output is \(y[1])x\(y[2]) but input \(x[1])x\(x[2]) with kernel \(kernel.0)x\(kernel.1), strides \(strides), dilations \(dilations) and pads \(pads) gives \(oh.map(String.init) ?? "nothing")x\(ow.map(String.init) ?? "nothing")")
        }
    }

    private mutating func lowerMaxPool(_ op: ImportOperator) throws {
        try expectCounts(op, inputs: 1...1)
        guard case let .pool2d(p, sw, sh, fw, fh, a) = op.options else { throw OperatorIssue("missing Pool2DOptions") }
        let xShape = shape(op.inputs[0]), yShape = shape(op.outputs[0])
        guard xShape.count == 4, yShape.count == 4, xShape[0] == yShape[0], xShape[3] == yShape[3] else {
            throw OperatorIssue("expected input and output [N,H,W,C] with equal N and C, found \(xShape) and \(yShape)")
        }
        guard sh > 0, sw > 0, fh > 0, fw > 0 else { throw OperatorIssue("filter \(fh)x\(fw) and strides [\(sh), \(sw)] must be positive") }
        let pads = SpatialPadding.pads(try Self.padding(p), inputH: xShape[1], inputW: xShape[2], kernelH: fh, kernelW: fw,
                                       strideH: sh, strideW: sw)
        try checkWindowOutput(x: xShape, y: yShape, kernel: (fh, fw), strides: (sh, sw), dilations: (1, 1), pads: pads)
        let activationName = try Self.activationName(a)
        let x = try floatInput(op.inputs[0], "input")
        try emit(.maxPool2d, op, inputs: [x], attributes: [
            "filter": .ints([fh, fw]), "strides": .ints([sh, sw]), "pads": .ints(pads), "activation": .string(activationName),
        ])
    }

    private mutating func lowerAdd(_ op: ImportOperator) throws {
        try expectCounts(op, inputs: 2...2)
        guard case let .add(a) = op.options else { throw OperatorIssue("missing AddOptions") }
        let s0 = shape(op.inputs[0]), s1 = shape(op.inputs[1]), y = shape(op.outputs[0])
        guard s0 == s1, s0 == y else {
            throw OperatorIssue("inputs \(s0) and \(s1) with output \(y): only same-shape ADD is supported (no broadcasting)")
        }
        let activationName = try Self.activationName(a)
        let x0 = try floatInput(op.inputs[0], "input 0"), x1 = try floatInput(op.inputs[1], "input 1")
        try emit(.add, op, inputs: [x0, x1], attributes: ["activation": .string(activationName)])
    }

    private mutating func lowerPRelu(_ op: ImportOperator) throws {
        try expectCounts(op, inputs: 2...2)
        let xShape = shape(op.inputs[0]), aShape = shape(op.inputs[1])
        guard let channels = xShape.last, shape(op.outputs[0]) == xShape else {
            throw OperatorIssue("output shape \(shape(op.outputs[0])) differs from input shape \(xShape)")
        }
        guard aShape.count <= xShape.count, aShape.dropLast().allSatisfy({ $0 == 1 }),
              aShape.last == channels || aShape.last == 1 || aShape.isEmpty else {
            throw OperatorIssue("alpha shape \(aShape) does not broadcast over the last axis (\(channels) channels) only")
        }
        var alpha = try floats(op.inputs[1], "alpha")
        if alpha.count == 1 { alpha = [Float](repeating: alpha[0], count: channels) }
        let x = try floatInput(op.inputs[0], "input")
        let a = aShape.last == channels ? constant(op.inputs[1], data: alpha, shape: [channels])
                                        : syntheticConstant(name: source.tensors[op.inputs[1]].name + "#\(channels)",
                                                            data: alpha, shape: [channels])
        try emit(.prelu, op, inputs: [x, a])
    }

    private mutating func lowerPad(_ op: ImportOperator) throws {
        try expectCounts(op, inputs: 2...2)
        let xShape = shape(op.inputs[0]), yShape = shape(op.outputs[0])
        let pads = try ints(op.inputs[1], "paddings")
        guard shape(op.inputs[1]) == [xShape.count, 2], pads.count == 2 * xShape.count, pads.allSatisfy({ $0 >= 0 }) else {
            throw OperatorIssue("paddings \(pads) (shape \(shape(op.inputs[1]))) must be non-negative [\(xShape.count), 2]")
        }
        let expected = xShape.indices.map { xShape[$0] + pads[2 * $0] + pads[2 * $0 + 1] }
        guard expected == yShape else {
            throw OperatorIssue("output shape \(yShape) differs from input \(xShape) padded by \(pads): \(expected)")
        }
        let x = try floatInput(op.inputs[0], "input")
        try emit(.pad, op, inputs: [x], attributes: ["pads": .ints(pads)])
    }

    private mutating func lowerResizeBilinear(_ op: ImportOperator) throws {
        try expectCounts(op, inputs: 2...2)
        guard case let .resizeBilinear(alignCorners, halfPixelCenters) = op.options else {
            throw OperatorIssue("missing ResizeBilinearOptions")
        }
        let size = try ints(op.inputs[1], "size")
        let xShape = shape(op.inputs[0]), yShape = shape(op.outputs[0])
        guard size.count == 2, xShape.count == 4, yShape == [xShape[0], size[0], size[1], xShape[3]] else {
            throw OperatorIssue("size \(size) does not take input \(xShape) to output \(yShape)")
        }
        let x = try floatInput(op.inputs[0], "input")
        try emit(.resizeBilinear, op, inputs: [x], attributes: [
            "size": .ints(size), "align_corners": .int(alignCorners ? 1 : 0),
            "half_pixel_centers": .int(halfPixelCenters ? 1 : 0),
        ])
    }

    private mutating func lowerDepthToSpace(_ op: ImportOperator) throws {
        try expectCounts(op, inputs: 1...1)
        guard case let .depthToSpace(block) = op.options else { throw OperatorIssue("missing DepthToSpaceOptions") }
        let xShape = shape(op.inputs[0]), yShape = shape(op.outputs[0])
        guard block > 0, xShape.count == 4, xShape[3] % (block * block) == 0,
              yShape == [xShape[0], xShape[1] * block, xShape[2] * block, xShape[3] / (block * block)] else {
            throw OperatorIssue("block size \(block) does not take input \(xShape) to output \(yShape)")
        }
        let x = try floatInput(op.inputs[0], "input")
        try emit(.depthToSpace, op, inputs: [x], attributes: ["block_size": .int(block)])
    }

    private mutating func lowerReshape(_ op: ImportOperator) throws {
        try expectCounts(op, inputs: 1...2)
        let xShape = shape(op.inputs[0]), yShape = shape(op.outputs[0])
        guard xShape.reduce(1, *) == yShape.reduce(1, *) else {
            throw OperatorIssue("input \(xShape) and output \(yShape) have different element counts")
        }
        let x = try floatInput(op.inputs[0], "input")
        try emit(.reshape, op, inputs: [x])
    }

    private mutating func lowerConcatenation(_ op: ImportOperator) throws {
        guard op.inputs.count >= 1, op.outputs.count == 1 else { throw OperatorIssue("expected inputs and 1 output") }
        guard case let .concatenation(rawAxis, a) = op.options else { throw OperatorIssue("missing ConcatenationOptions") }
        let yShape = shape(op.outputs[0])
        let rank = yShape.count
        let axis = rawAxis < 0 ? rawAxis + rank : rawAxis
        guard axis >= 0, axis < rank else { throw OperatorIssue("axis \(rawAxis) is out of range for rank \(rank)") }
        var total = 0
        for t in op.inputs {
            let s = t >= 0 ? shape(t) : []
            guard s.count == rank, s.indices.allSatisfy({ $0 == axis || s[$0] == yShape[$0] }) else {
                throw OperatorIssue("input shape \(s) does not match output \(yShape) outside axis \(axis)")
            }
            total += s[axis]
        }
        guard total == yShape[axis] else { throw OperatorIssue("inputs sum to \(total) along axis \(axis), output has \(yShape[axis])") }
        let activationName = try Self.activationName(a)
        var xs: [Int] = []
        for (i, t) in op.inputs.enumerated() { xs.append(try floatInput(t, "input \(i)")) }
        try emit(.concatenation, op, inputs: xs, attributes: ["axis": .int(axis), "activation": .string(activationName)])
    }

    private mutating func lowerMean(_ op: ImportOperator) throws {
        try expectCounts(op, inputs: 2...2)
        guard case let .reducer(keepDims) = op.options else { throw OperatorIssue("missing ReducerOptions") }
        let xShape = shape(op.inputs[0]), yShape = shape(op.outputs[0])
        let rank = xShape.count
        var axes: [Int] = []
        for raw in try ints(op.inputs[1], "axes") {
            let a = raw < 0 ? raw + rank : raw
            guard a >= 0, a < rank else { throw OperatorIssue("axis \(raw) is out of range for rank \(rank)") }
            if !axes.contains(a) { axes.append(a) }
        }
        axes.sort()
        let expected = keepDims ? xShape.indices.map { axes.contains($0) ? 1 : xShape[$0] }
                                : xShape.indices.filter { !axes.contains($0) }.map { xShape[$0] }
        guard expected.reduce(1, *) == yShape.reduce(1, *), expected.filter({ $0 != 1 }) == yShape.filter({ $0 != 1 }) else {
            throw OperatorIssue("mean of \(xShape) over \(axes) (keep_dims \(keepDims)) gives \(expected), output is \(yShape)")
        }
        let x = try floatInput(op.inputs[0], "input")
        try emit(.mean, op, inputs: [x], attributes: ["axes": .ints(axes)])
    }

    private mutating func lowerFullyConnected(_ op: ImportOperator) throws {
        try expectCounts(op, inputs: 2...3)
        guard case let .fullyConnected(a, weightsFormat, _) = op.options else { throw OperatorIssue("missing FullyConnectedOptions") }
        guard weightsFormat == 0 else { throw OperatorIssue("weights format \(weightsFormat) is not supported (only DEFAULT)") }
        let xShape = shape(op.inputs[0]), wShape = shape(op.inputs[1]), yShape = shape(op.outputs[0])
        guard wShape.count == 2, let k = xShape.last, wShape[1] == k, let n = yShape.last, wShape[0] == n,
              xShape.reduce(1, *) / k * n == yShape.reduce(1, *) else {
            throw OperatorIssue("weights \(wShape) do not take input \(xShape) to output \(yShape)")
        }
        let activationName = try Self.activationName(a)
        let x = try floatInput(op.inputs[0], "input")
        let w = constant(op.inputs[1], data: try floats(op.inputs[1], "weights"), shape: wShape)
        let b = try bias(op, index: 2, count: n)
        try emit(.fullyConnected, op, inputs: [x, w, b], attributes: ["activation": .string(activationName)])
    }
}
