/// Folds `DEQUANTIZE` of a float16 constant into a float32 constant: the output tensor becomes
/// a constant holding the widened values and the operator is removed.
///
/// A `DEQUANTIZE` of anything else (an int8 quantized tensor, a non-constant) is left in place;
/// the importer then reports it as unsupported.
public enum DequantizeFoldingPass {
    /// Returns the number of operators folded.
    @discardableResult
    public static func run(_ graph: inout ImportGraph) -> Int {
        var kept: [ImportOperator] = []
        var folded = 0
        for op in graph.operators {
            guard op.builtin == .dequantize, op.inputs.count == 1, op.outputs.count == 1,
                  op.inputs[0] >= 0,
                  graph.tensors[op.inputs[0]].sparsity == nil,
                  case .float16(let bits)? = graph.tensors[op.inputs[0]].data,
                  graph.tensors[op.outputs[0]].type == .float32,
                  bits.count == checkedElementCount(graph.tensors[op.outputs[0]].shape),
                  !graph.tensors[op.outputs[0]].isConstant
            else {
                kept.append(op)
                continue
            }
            graph.tensors[op.outputs[0]].data = .float32(bits.map(Float16Conversion.float(fromBits:)))
            folded += 1
        }
        graph.operators = kept
        return folded
    }
}
