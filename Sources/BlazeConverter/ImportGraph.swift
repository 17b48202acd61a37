/// The constant contents of a tensor, decoded by element type.
public enum ConstantData: Sendable, Equatable {
    case float32([Float])
    /// IEEE binary16 bit patterns.
    case float16([UInt16])
    case int32([Int32])
    /// Any other element type, undecoded.
    case raw([UInt8])

    public var count: Int {
        switch self {
        case .float32(let v): return v.count
        case .float16(let v): return v.count
        case .int32(let v): return v.count
        case .raw(let v): return v.count
        }
    }
}

/// A tensor of the import graph: the TFLite tensor plus its decoded constant data, if any.
public struct ImportTensor: Sendable, Equatable {
    public var name: String
    public var shape: [Int]
    public var typeCode: Int
    /// The constant data; for a sparse constant, only the stored (non-zero) values.
    public var data: ConstantData?
    public var sparsity: SparsityParameters?

    public init(name: String, shape: [Int], typeCode: Int, data: ConstantData? = nil, sparsity: SparsityParameters? = nil) {
        self.name = name
        self.shape = shape
        self.typeCode = typeCode
        self.data = data
        self.sparsity = sparsity
    }

    public var type: TFLiteTensorType? { TFLiteTensorType(rawValue: typeCode) }
    public var isConstant: Bool { data != nil }
    public var typeName: String { type?.description ?? "type \(typeCode)" }
}

/// An operator of the import graph.
public struct ImportOperator: Sendable, Equatable {
    /// The operator's index in the TFLite subgraph (kept for messages after passes remove ops).
    public var index: Int
    /// The builtin operator code.
    public var code: Int
    /// The operator's name for messages: builtin name or `CUSTOM(code)`.
    public var name: String
    /// Tensor indices; -1 marks an omitted optional input.
    public var inputs: [Int]
    public var outputs: [Int]
    public var options: OperatorOptions
    /// A custom operator's code, e.g. `TransformLandmarks`, its version and its FlexBuffer options; nil for builtins.
    public var custom: CustomOperator?

    public init(index: Int, code: Int, name: String? = nil, inputs: [Int], outputs: [Int], options: OperatorOptions = .none,
                custom: CustomOperator? = nil) {
        self.index = index
        self.code = code
        self.name = name ?? TFLiteSchema.operatorName(code)
        self.inputs = inputs
        self.outputs = outputs
        self.options = options
        self.custom = custom
    }

    public var builtin: BuiltinOperator? { BuiltinOperator(rawValue: code) }
}

/// What identifies a custom operator: its `custom_code`, the `version` of its operator code and its options.
public struct CustomOperator: Sendable, Equatable {
    public var code: String
    public var version: Int
    public var options: [UInt8]

    public init(code: String, version: Int, options: [UInt8]) {
        self.code = code
        self.version = version
        self.options = options
    }
}

/// A TFLite subgraph with decoded constants: what the TFLite-level passes
/// (``DensifyPass``, ``DequantizeFoldingPass``) rewrite before lowering.
public struct ImportGraph: Sendable, Equatable {
    public var tensors: [ImportTensor]
    public var operators: [ImportOperator]
    public var inputs: [Int]
    public var outputs: [Int]

    public init(tensors: [ImportTensor], operators: [ImportOperator], inputs: [Int], outputs: [Int]) {
        self.tensors = tensors
        self.operators = operators
        self.inputs = inputs
        self.outputs = outputs
    }

    /// Builds the import graph of the model's only subgraph, checking every tensor index and
    /// that each constant's byte count matches its shape and type.
    public init(model: TFLiteModel) throws {
        guard model.subgraphs.count == 1 else {
            throw ConverterError.unsupportedModel("expected exactly 1 subgraph, found \(model.subgraphs.count)")
        }
        let sub = model.subgraphs[0]
        var tensors: [ImportTensor] = []
        tensors.reserveCapacity(sub.tensors.count)
        for t in sub.tensors {
            guard t.buffer >= 0, t.buffer < max(model.buffers.count, 1) else {
                throw ConverterError.badTensor(name: t.name, reason: "buffer \(t.buffer) out of range (\(model.buffers.count) buffers)")
            }
            _ = try elementCount(t.shape, tensor: t.name)
            let bytes = t.buffer < model.buffers.count ? model.buffers[t.buffer] : []
            var data: ConstantData?
            if !bytes.isEmpty {
                data = try ImportGraph.decode(bytes, tensor: t)
            }
            tensors.append(ImportTensor(name: t.name, shape: t.shape, typeCode: t.typeCode, data: data, sparsity: t.sparsity))
        }
        func checkIndex(_ i: Int, _ what: String, optional: Bool) throws {
            guard (i >= 0 && i < tensors.count) || (optional && i == -1) else {
                throw ConverterError.badGraph("\(what) refers to tensor \(i), the subgraph has \(tensors.count)")
            }
        }
        var operators: [ImportOperator] = []
        for (index, op) in sub.operators.enumerated() {
            guard let code = model.builtinCode(ofOpcode: op.opcodeIndex) else {
                throw ConverterError.badGraph("operator \(index) has opcode index \(op.opcodeIndex), the model has \(model.operatorCodes.count) operator codes")
            }
            for i in op.inputs { try checkIndex(i, "operator \(index) input", optional: true) }
            for o in op.outputs { try checkIndex(o, "operator \(index) output", optional: false) }
            let opcode = model.operatorCodes[op.opcodeIndex]
            let custom = code == BuiltinOperator.custom.rawValue
                ? CustomOperator(code: opcode.customCode ?? "", version: opcode.version, options: op.customOptions) : nil
            operators.append(ImportOperator(index: index, code: code, name: opcode.name,
                                            inputs: op.inputs, outputs: op.outputs, options: op.options, custom: custom))
        }
        for i in sub.inputs { try checkIndex(i, "subgraph input", optional: false) }
        for o in sub.outputs { try checkIndex(o, "subgraph output", optional: false) }
        self.init(tensors: tensors, operators: operators, inputs: sub.inputs, outputs: sub.outputs)
    }

    /// Decodes a constant buffer. A dense tensor must hold exactly its shape's element count; a
    /// sparse one any whole number of elements (its stored values).
    static func decode(_ bytes: [UInt8], tensor t: TFLiteTensor) throws -> ConstantData {
        guard let type = t.type else { return .raw(bytes) }
        let size = type.size
        if type != .string {
            guard bytes.count % size == 0 else {
                throw ConverterError.badTensor(name: t.name, reason: "\(bytes.count) bytes is not a whole number of \(type) elements")
            }
            if t.sparsity == nil {
                let expected = try elementCount(t.shape, tensor: t.name)
                guard bytes.count / size == expected else {
                    throw ConverterError.badTensor(name: t.name,
                        reason: "shape \(t.shape) needs \(expected) \(type) elements, the buffer holds \(bytes.count / size)")
                }
            }
        }
        func word<T: FixedWidthInteger>(_ i: Int, _: T.Type) -> T {
            var v: T = 0
            for k in 0..<MemoryLayout<T>.size { v |= T(truncatingIfNeeded: bytes[i * MemoryLayout<T>.size + k]) << (8 * k) }
            return v
        }
        let n = bytes.count / size
        switch type {
        case .float32: return .float32((0..<n).map { Float(bitPattern: word($0, UInt32.self)) })
        case .float16: return .float16((0..<n).map { word($0, UInt16.self) })
        case .int32: return .int32((0..<n).map { word($0, Int32.self) })
        default: return .raw(bytes)
        }
    }

    /// The ids of the operators that read each tensor.
    public func consumers() -> [Int: [Int]] {
        var result: [Int: [Int]] = [:]
        for (i, op) in operators.enumerated() {
            for t in op.inputs where t >= 0 { result[t, default: []].append(i) }
        }
        return result
    }
}

/// The element count of `shape`, or nil when a dimension is negative or the count overflows.
func checkedElementCount(_ shape: [Int]) -> Int? {
    try? elementCount(shape, tensor: "")
}

/// The element count of `shape`, checked against overflow and the model format's limit.
///
/// The product of the dimensions with every 0 counted as 1 must stay within 2^31 too: a zero-sized
/// tensor like `[0, 2^40, 2^40]` has no elements, yet the lowering multiplies subsets of its dimensions
/// (a MEAN over axis 0 keeps `[1, 2^40, 2^40]`), which would overflow. Found by `Tools/fuzzing/fuzz.sh tflite`.
func elementCount(_ shape: [Int], tensor: String) throws -> Int {
    var n = 1, bound = 1
    for d in shape {
        guard d >= 0 else { throw ConverterError.badTensor(name: tensor, reason: "shape \(shape) has a negative dimension") }
        let (m, overflow) = n.multipliedReportingOverflow(by: d)
        let (b, boundOverflow) = bound.multipliedReportingOverflow(by: max(d, 1))
        guard !overflow, !boundOverflow, m <= (1 << 31), b <= (1 << 31) else {
            throw ConverterError.badTensor(name: tensor, reason: "shape \(shape) has too many elements")
        }
        n = m
        bound = b
    }
    return n
}
