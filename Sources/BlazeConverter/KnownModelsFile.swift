import BlazeModelFormat
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `Tools/models/builtin_models.json`: `KnownModel.all` written out for the Python and shell scripts under
/// `Tools/` and `Benchmarks/`, one model a line. `blaze-convert models --json` prints it; a test fails
/// when the checked-in file differs from ``render(_:)``.
public enum KnownModelsFile {
    /// The file's path relative to the package root.
    public static let path = "Tools/models/builtin_models.json"
    /// The command, run from the package root, that rewrites the file.
    public static let command = "swift run blaze-convert models --json > \(path)"

    /// The file's text: a JSON object whose `models` array holds one `KnownModel` a line, keys sorted.
    public static func render(_ models: [KnownModel] = KnownModel.all) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let lines = models.map { model -> String in
            // Encoding a struct of strings, integers and finite floats cannot fail.
            guard let data = try? encoder.encode(model), let line = String(data: data, encoding: .utf8) else {
                preconditionFailure("KnownModel '\(model.name)' did not encode as JSON")
            }
            return "    " + line
        }
        return """
            {
              "generatedBy": "\(command)",
              "source": "KnownModel.all in Sources/BlazeModelFormat/KnownModel.swift",
              "models": [
            \(lines.joined(separator: ",\n"))
              ]
            }

            """
    }
}
