import ArgumentParser
import BlazeConverter
import BlazeModelFormat

/// `blaze-convert models`: the built-in models whose input range the converter knows.
struct Models: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the known Blaze models: source file and SHA-256, input shape and value range, .task entry.")

    @Flag(help: "Print Tools/models/builtin_models.json, the table the repository's scripts read.")
    var json = false

    func run() {
        if json {
            print(KnownModelsFile.render(), terminator: "")
            return
        }
        for m in KnownModel.all {
            let size = m.inputShape.count == 4 ? "\(m.inputShape[1])×\(m.inputShape[2])" : "\(m.inputShape)"
            let range = m.inputRange.map { $0 == $0.rounded() ? String(Int($0)) : String($0) }.joined(separator: ", ")
            print("\(m.name)  \(m.sourceFile) sha256 \(m.sourceSHA256)  input \(size) [\(range)]  .task entry \(m.taskBundleEntry)")
        }
    }
}
