import BlazeModelFormat

/// A human-readable summary of a `.tflite` or `.bkm` model for `blaze-convert inspect`.
public struct ModelSummary: Sendable {
    public var format: String
    public var inputs: [TensorDescription]
    public var outputs: [TensorDescription]
    /// Op name → count, sorted by name.
    public var opHistogram: [(op: String, count: Int)]
    /// Sum of the element counts of all constant tensors.
    public var parameterCount: Int
    /// Further facts (metadata), sorted by key.
    public var facts: [(key: String, value: String)]

    /// The summary of a TFLite model.
    public init(tflite bytes: [UInt8]) throws {
        let model = try TFLiteModel(bytes: bytes)
        guard let sub = model.subgraphs.first else { throw ConverterError.unsupportedModel("the model has no subgraph") }
        func describe(_ t: Int) -> TensorDescription {
            guard t >= 0, t < sub.tensors.count else { return TensorDescription(name: "<bad tensor \(t)>", shape: []) }
            return TensorDescription(name: sub.tensors[t].name, shape: sub.tensors[t].shape)
        }
        format = "tflite"
        inputs = sub.inputs.map(describe)
        outputs = sub.outputs.map(describe)
        var histogram: [String: Int] = [:]
        for op in sub.operators {
            let name = op.opcodeIndex < model.operatorCodes.count ? model.operatorCodes[op.opcodeIndex].name : "<bad opcode>"
            histogram[name, default: 0] += 1
        }
        opHistogram = histogram.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        parameterCount = sub.tensors.reduce(0) { sum, t in
            t.buffer > 0 && t.buffer < model.buffers.count && !model.buffers[t.buffer].isEmpty
                ? sum + (checkedElementCount(t.shape) ?? 0) : sum
        }
        var facts: [(String, String)] = [
            ("version", String(model.version)), ("subgraphs", String(model.subgraphs.count)),
            ("tensors", String(sub.tensors.count)), ("operators", String(sub.operators.count)),
            ("sha256", SHA256.hexDigest(of: bytes)),
        ]
        if let d = model.description { facts.append(("description", d)) }
        if !model.metadataNames.isEmpty { facts.append(("metadata", model.metadataNames.joined(separator: ", "))) }
        let sparse = sub.tensors.filter { $0.sparsity != nil }.count
        if sparse > 0 { facts.append(("sparse tensors", String(sparse))) }
        self.facts = facts.sorted { $0.0 < $1.0 }.map { (key: $0.0, value: $0.1) }
    }

    /// The summary of a BlazeKit model file.
    public init(bkm file: ModelFile) {
        let g = file.graph
        format = "bkm"
        inputs = g.inputs.map { TensorDescription(name: g.values[$0].name, shape: g.values[$0].shape) }
        outputs = g.outputs.map { TensorDescription(name: g.values[$0].name, shape: g.values[$0].shape) }
        var histogram: [String: Int] = [:]
        for n in g.nodes { histogram[n.op.rawValue, default: 0] += 1 }
        opHistogram = histogram.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        parameterCount = file.header.tensors.reduce(0) { $0 + $1.shape.reduce(1, *) }
        let m = file.metadata
        var facts: [(String, String)] = [
            ("format version", String(file.formatVersion)), ("opset version", String(file.opsetVersion)),
            ("name", m.name), ("source file", m.sourceFile), ("source sha256", m.sourceSHA256),
            ("converter version", m.converterVersion),
            ("input contract", "\(m.input.name) \(m.input.shape) \(m.input.colorOrder) range \(m.input.valueRange)"),
            ("nodes", String(g.nodes.count)), ("values", String(g.values.count)), ("constants", String(file.header.tensors.count)),
        ]
        for (k, v) in m.properties { facts.append(("property \(k)", v)) }
        self.facts = facts.sorted { $0.0 < $1.0 }.map { (key: $0.0, value: $0.1) }
    }

    /// The summary as text.
    public var text: String {
        var lines: [String] = ["format: \(format)"]
        lines.append("inputs:")
        lines += inputs.map { "  \($0.name) \($0.shape)" }
        lines.append("outputs:")
        lines += outputs.map { "  \($0.name) \($0.shape)" }
        lines.append("ops (\(opHistogram.reduce(0) { $0 + $1.count })):")
        lines += opHistogram.map { "  \($0.op): \($0.count)" }
        lines.append("parameters: \(parameterCount)")
        lines.append("metadata:")
        lines += facts.map { "  \($0.key): \($0.value)" }
        return lines.joined(separator: "\n")
    }
}
