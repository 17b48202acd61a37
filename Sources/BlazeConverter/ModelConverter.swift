import BlazeModelFormat

/// A converted model: metadata, graph and constants, ready to serialize.
public struct ConvertedModel: Sendable {
    public var metadata: ModelMetadata
    public var lowered: LoweredGraph

    /// The `.bkm` file bytes (deterministic: the same model always gives the same bytes).
    public func serialized() throws -> [UInt8] {
        try ModelFileWriter.serialize(metadata: metadata, graph: lowered.graph, constants: lowered.constants)
    }
}

/// What to convert and how to describe it.
public struct ConversionRequest: Sendable {
    /// The `.tflite` bytes.
    public var tflite: [UInt8]
    /// The source file name recorded in the metadata, e.g. `pose_detection.tflite`.
    public var sourceFile: String
    /// The model name; defaults to the source file's stem.
    public var name: String?
    /// The input value range `[lo, hi]`; required unless the model is a known Blaze model.
    public var inputRange: [Float]?
    /// Extra metadata properties (e.g. `task.entry`).
    public var properties: [String: String]

    public init(tflite: [UInt8], sourceFile: String, name: String? = nil, inputRange: [Float]? = nil,
                properties: [String: String] = [:]) {
        self.tflite = tflite
        self.sourceFile = sourceFile
        self.name = name
        self.inputRange = inputRange
        self.properties = properties
    }
}

/// The TFLite → BlazeKit conversion pipeline:
/// decode → ``DensifyPass`` → ``DequantizeFoldingPass`` → ``TFLiteImporter`` →
/// ``PadFusionPass`` → ``DeadValueElimination`` → metadata → self-check with the model-file validator.
public enum ModelConverter {
    /// The converter version written into every model's metadata.
    public static let version = "0.1.0"

    /// Converts one `.tflite` model.
    public static func convert(_ request: ConversionRequest) throws -> ConvertedModel {
        let stem = fileStem(request.sourceFile)
        let name = request.name ?? stem
        let model = try TFLiteModel(bytes: request.tflite)
        var graph = try ImportGraph(model: model)
        try DensifyPass.run(&graph)
        DequantizeFoldingPass.run(&graph)
        var lowered = try TFLiteImporter.lower(graph)
        try PadFusionPass.run(&lowered)
        DeadValueElimination.run(&lowered)

        guard lowered.graph.inputs.count == 1 else {
            throw ConverterError.unsupportedModel("expected exactly 1 input, found \(lowered.graph.inputs.count)")
        }
        let input = lowered.graph.values[lowered.graph.inputs[0]]
        guard input.shape.count == 4, input.shape[0] == 1, input.shape[3] == 3 else {
            throw ConverterError.unsupportedModel("input '\(input.name)' has shape \(input.shape), expected an RGB image [1,H,W,3]")
        }
        guard let range = request.inputRange ?? knownInputRange(stem) ?? knownInputRange(name) else {
            throw ConverterError.unknownInputRange(model: name)
        }
        guard range.count == 2, range[0] < range[1], range.allSatisfy(\.isFinite) else {
            throw ConverterError.invalidArgument("input range \(range) must be two finite numbers LO < HI")
        }
        var properties = request.properties
        properties["tflite.version"] = String(model.version)
        if let d = model.description { properties["tflite.description"] = d }
        let metadata = ModelMetadata(
            name: name, sourceFile: request.sourceFile, sourceSHA256: SHA256.hexDigest(of: request.tflite),
            converterVersion: version,
            input: InputContract(name: input.name, shape: input.shape, colorOrder: "rgb", valueRange: range),
            outputs: lowered.graph.outputs.map { TensorDescription(name: lowered.graph.values[$0].name,
                                                                   shape: lowered.graph.values[$0].shape) },
            properties: properties)
        let converted = ConvertedModel(metadata: metadata, lowered: lowered)
        // Self-check: the runtime's validator must accept what we write.
        do {
            _ = try ModelFile(bytes: try converted.serialized(), name: name)
        } catch {
            throw ConverterError.badGraph("the converted model fails validation: \(error)")
        }
        return converted
    }

    /// The input range of the known Blaze models (`KnownModel.all`), by model name, `.task` entry name
    /// or family prefix (see `KnownModel.matching(_:)`); nil for any other model.
    public static func knownInputRange(_ name: String) -> [Float]? {
        KnownModel.matching(name)?.inputRange
    }

    /// The file name without directories and extension.
    public static func fileStem(_ path: String) -> String {
        let base = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return base }
        return String(base[..<dot])
    }
}
