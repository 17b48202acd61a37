#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// Why a model file was rejected. Every case names the file (or node) and the expected and
/// actual values, so the message says what to fix.
public enum ModelFormatError: Error, Equatable, CustomStringConvertible, Sendable {
    case cannotOpen(path: String, reason: String)
    case truncated(path: String, expectedAtLeast: Int, actual: Int)
    case badMagic(path: String, actual: String)
    case unsupportedFormatVersion(path: String, fileVersion: UInt32, supported: UInt32)
    case unsupportedOpset(path: String, fileOpset: UInt32, supported: UInt32)
    case badLayout(path: String, field: String, expected: String, actual: String)
    case checksumMismatch(path: String, expected: UInt64, actual: UInt64)
    case badHeader(path: String, reason: String)
    case badTensor(path: String, tensor: String, reason: String)
    case badGraph(path: String, reason: String)
    case badAttribute(node: Int, op: String, name: String, key: String, expected: String, actual: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason):
            return "\(path): cannot open model file: \(reason)"
        case let .truncated(path, expected, actual):
            return "\(path): model file is truncated: expected at least \(expected) bytes, found \(actual)"
        case let .badMagic(path, actual):
            return "\(path): not a BlazeKit model file: expected magic \"BLZKMDL\" (or \"BLZKM16\"), found \(actual)"
        case let .unsupportedFormatVersion(path, fileVersion, supported):
            if fileVersion > supported {
                return "\(path): model file is format v\(fileVersion), this build of BlazeKit reads v\(supported); "
                    + "update BlazeKit or re-convert the model with this build's blaze-convert"
            }
            return "\(path): model file is format v\(fileVersion), this build reads v\(supported); "
                + "re-convert it with this build's blaze-convert"
        case let .unsupportedOpset(path, fileOpset, supported):
            return "\(path): model file uses op set v\(fileOpset), this build supports up to v\(supported); "
                + "update BlazeKit or re-convert the model with this build's blaze-convert"
        case let .badLayout(path, field, expected, actual):
            return "\(path): corrupt model file: \(field) expected \(expected), found \(actual)"
        case let .checksumMismatch(path, expected, actual):
            return "\(path): corrupt model file: checksum expected \(hex(expected)), computed \(hex(actual))"
        case let .badHeader(path, reason):
            return "\(path): corrupt model header: \(reason)"
        case let .badTensor(path, tensor, reason):
            return "\(path): bad tensor '\(tensor)': \(reason)"
        case let .badGraph(path, reason):
            return "\(path): bad graph: \(reason)"
        case let .badAttribute(node, op, name, key, expected, actual):
            return "node \(node) (\(op) '\(name)'): attribute '\(key)' expected \(expected), found \(actual)"
        }
    }
}

private func hex(_ v: UInt64) -> String { "0x" + String(v, radix: 16) }

/// `localizedDescription` is the message that names the file, option or value at fault.
extension ModelFormatError: LocalizedError {
    /// The same message as `description`.
    public var errorDescription: String? { description }
}
