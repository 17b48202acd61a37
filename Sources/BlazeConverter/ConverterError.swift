#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import BlazeModelFormat

/// One operator the converter cannot translate, with enough context to find it in the model.
public struct UnsupportedOperator: Sendable, Equatable, CustomStringConvertible {
    /// The TFLite builtin name, e.g. `SQUEEZE`.
    public var op: String
    /// The operator's index in the subgraph.
    public var index: Int
    public var inputs: [String]
    public var outputs: [String]
    /// Why it cannot be converted (`not supported` for an unknown op).
    public var reason: String

    public init(op: String, index: Int, inputs: [String], outputs: [String], reason: String) {
        self.op = op
        self.index = index
        self.inputs = inputs
        self.outputs = outputs
        self.reason = reason
    }

    public var description: String {
        "operator \(index) \(op): \(reason) (inputs: \(inputs.map { "'\($0)'" }.joined(separator: ", ")); "
            + "outputs: \(outputs.map { "'\($0)'" }.joined(separator: ", ")))"
    }
}

/// Why a conversion failed.
public enum ConverterError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The bytes are not a TFLite FlatBuffer (wrong file identifier).
    case notTFLite(identifier: String)
    /// The model has a structure the converter does not handle (e.g. several subgraphs).
    case unsupportedModel(String)
    /// Operators that cannot be converted, all of them.
    case unsupportedOperators([UnsupportedOperator])
    /// A tensor is malformed (bad index, data size that does not match its shape, …).
    case badTensor(name: String, reason: String)
    /// A sparse constant whose sparsity parameters are inconsistent.
    case badSparsity(tensor: String, reason: String)
    /// The graph breaks an invariant after a pass (a converter bug or a corrupt model).
    case badGraph(String)
    /// The input value range of an unknown model was not given.
    case unknownInputRange(model: String)
    /// A bad command-line or API argument.
    case invalidArgument(String)
    /// A `.task` bundle problem.
    case bundle(String)

    public var description: String {
        switch self {
        case .notTFLite(let id):
            return "not a TFLite model: file identifier expected \"TFL3\", found \"\(id)\""
        case .unsupportedModel(let reason):
            return "unsupported model: \(reason)"
        case .unsupportedOperators(let ops):
            return "\(ops.count) operator(s) cannot be converted:\n"
                + ops.map { "  \($0)" }.joined(separator: "\n")
        case let .badTensor(name, reason):
            return "bad tensor '\(name)': \(reason)"
        case let .badSparsity(tensor, reason):
            return "bad sparse tensor '\(tensor)': \(reason)"
        case .badGraph(let reason):
            return "bad graph: \(reason)"
        case .unknownInputRange(let model):
            return "model '\(model)' is not one of the known Blaze models (\(KnownModel.all.map(\.name).joined(separator: ", ")) "
                + "or their .task entries), so its input value range is unknown; pass it with --input-range LO,HI (e.g. --input-range 0,1)"
        case .invalidArgument(let reason):
            return reason
        case .bundle(let reason):
            return "task bundle: \(reason)"
        }
    }
}

/// `localizedDescription` is the message that names the file, option or value at fault.
extension ConverterError: LocalizedError {
    /// The same message as `description`.
    public var errorDescription: String? { description }
}
