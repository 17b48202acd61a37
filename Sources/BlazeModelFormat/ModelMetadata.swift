/// What a model file says about itself: where it came from, who converted it, and the
/// pre-processing contract its input expects.
public struct ModelMetadata: Codable, Sendable, Equatable {
    /// The model's name, e.g. `pose_landmark_full`.
    public var name: String
    /// The file name the model was converted from, e.g. `pose_landmark_full.tflite`.
    public var sourceFile: String
    /// Lowercase hex SHA-256 of the source `.tflite` bytes.
    public var sourceSHA256: String
    /// The `blaze-convert` version that wrote the file.
    public var converterVersion: String
    /// The input contract.
    public var input: InputContract
    /// Output names and shapes, in graph output order.
    public var outputs: [TensorDescription]
    /// Further string facts (e.g. the TFLite description, the `.task` entry name).
    public var properties: [String: String]

    public init(name: String, sourceFile: String, sourceSHA256: String, converterVersion: String,
                input: InputContract, outputs: [TensorDescription], properties: [String: String] = [:]) {
        self.name = name
        self.sourceFile = sourceFile
        self.sourceSHA256 = sourceSHA256
        self.converterVersion = converterVersion
        self.input = input
        self.outputs = outputs
        self.properties = properties
    }
}

/// A name and a shape.
public struct TensorDescription: Codable, Sendable, Equatable {
    public var name: String
    public var shape: [Int]

    public init(name: String, shape: [Int]) {
        self.name = name
        self.shape = shape
    }
}

/// The pre-processing a model's input expects.
public struct InputContract: Codable, Sendable, Equatable {
    /// The input tensor's name.
    public var name: String
    /// NHWC shape, e.g. `[1, 256, 256, 3]`.
    public var shape: [Int]
    /// Channel order of the image, `rgb` for every Blaze model.
    public var colorOrder: String
    /// The float range that pixel values 0…255 map to, e.g. `[0, 1]` or `[-1, 1]`.
    public var valueRange: [Float]

    public init(name: String, shape: [Int], colorOrder: String, valueRange: [Float]) {
        self.name = name
        self.shape = shape
        self.colorOrder = colorOrder
        self.valueRange = valueRange
    }

    /// Input height (`shape[1]`).
    public var height: Int { shape.count == 4 ? shape[1] : 0 }
    /// Input width (`shape[2]`).
    public var width: Int { shape.count == 4 ? shape[2] : 0 }
}
