import ArgumentParser
import BlazeConverter
import BlazeModelFormat
import Foundation

/// `blaze-convert`: converts TFLite models (or `.task` bundles) to BlazeKit `.bkm` files and
/// inspects either format.
struct BlazeConvert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blaze-convert",
        abstract: "Convert MediaPipe BlazePose/BlazePalm TFLite models to BlazeKit model files (.bkm).",
        version: ModelConverter.version,
        subcommands: [Convert.self, Inspect.self, Models.self],
        defaultSubcommand: Convert.self)
}

BlazeConvert.main()
