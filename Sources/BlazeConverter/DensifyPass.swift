/// Replaces each `DENSIFY` of a sparse constant by a dense constant: the operator's output
/// tensor receives the densified values and the operator is removed.
///
/// A `DENSIFY` whose input is not a sparse constant is left in place; the importer reports it.
public enum DensifyPass {
    /// Returns the number of operators folded.
    @discardableResult
    public static func run(_ graph: inout ImportGraph) throws -> Int {
        var kept: [ImportOperator] = []
        var folded = 0
        for op in graph.operators {
            guard op.builtin == .densify, op.inputs.count == 1, op.outputs.count == 1, op.inputs[0] >= 0,
                  let sparsity = graph.tensors[op.inputs[0]].sparsity,
                  let data = graph.tensors[op.inputs[0]].data,
                  !graph.tensors[op.outputs[0]].isConstant
            else {
                kept.append(op)
                continue
            }
            let source = graph.tensors[op.inputs[0]]
            let output = graph.tensors[op.outputs[0]]
            guard source.shape == output.shape, source.typeCode == output.typeCode else {
                throw ConverterError.badTensor(name: output.name,
                    reason: "DENSIFY output \(output.typeName)\(output.shape) differs from its input \(source.typeName)\(source.shape)")
            }
            let shape = source.shape, name = source.name
            let dense: ConstantData
            switch data {
            case .float32(let v):
                dense = .float32(try SparseDensifier.densify(values: v, zero: 0, shape: shape, sparsity: sparsity, tensor: name))
            case .float16(let v):
                dense = .float16(try SparseDensifier.densify(values: v, zero: 0, shape: shape, sparsity: sparsity, tensor: name))
            case .int32(let v):
                dense = .int32(try SparseDensifier.densify(values: v, zero: 0, shape: shape, sparsity: sparsity, tensor: name))
            case .raw:
                throw ConverterError.badTensor(name: name, reason: "DENSIFY of \(source.typeName) constants is not supported")
            }
            graph.tensors[op.outputs[0]].data = dense
            folded += 1
        }
        graph.operators = kept
        return folded
    }
}
