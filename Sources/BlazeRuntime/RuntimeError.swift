#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// Why a model could not be planned or run. Messages name the node, op, tensor or option at
/// fault, with the expected and actual values.
public enum RuntimeError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A node's attributes, shapes or constants are not what its op requires.
    case invalidNode(index: Int, op: String, name: String, reason: String)
    /// An option is out of range.
    case invalidOption(name: String, expected: String, actual: String)
    /// An input given to `run` does not fit the model.
    case invalidInput(name: String, expected: String, actual: String)
    /// A model file does not declare what the caller needs.
    case modelMismatch(model: String, reason: String)

    public var description: String {
        switch self {
        case let .invalidNode(index, op, name, reason):
            return "node \(index) (\(op) '\(name)'): \(reason)"
        case let .invalidOption(name, expected, actual):
            return "option \(name): expected \(expected), found \(actual)"
        case let .invalidInput(name, expected, actual):
            return "input '\(name)': expected \(expected), found \(actual)"
        case let .modelMismatch(model, reason):
            return "model '\(model)': \(reason)"
        }
    }
}

/// `localizedDescription` is the message that names the file, option or value at fault.
extension RuntimeError: LocalizedError {
    /// The same message as `description`.
    public var errorDescription: String? { description }
}
