import ArgumentParser
import BlazeKit
import Foundation

@main
struct Blaze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blaze",
        abstract: "Pose, hand and face landmarks from photos and videos, as MediaPipe computes them (and body joints as Vision reports them).",
        subcommands: [PoseCommand.self, HandCommand.self, HolisticCommand.self, BodyCommand.self])

    /// The CLI owns its process, so it tunes OpenBLAS for BlazeKit once, before any task exists (a library
    /// user's process is left as it is; see `ProcessTuning`).
    static func main() {
        ProcessTuning.tuneOpenBLAS()
        main(nil)
    }
}

/// Creates a task, or prints why it cannot be created and exits with status 2.
func makeTask<T>(_ make: () throws -> T) throws -> T {
    do {
        return try make()
    } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        throw ExitCode(2)
    }
}

/// The line for an input (or a video's damaged tail) that failed.
struct ErrorRecord: Encodable {
    var image: String
    var error: String
}
