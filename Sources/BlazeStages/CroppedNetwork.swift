import BlazeImage
import BlazeKernels
import BlazeModelFormat
import BlazeRuntime

/// A planned network fed by a crop of an image: checks the model's input contract and output
/// shapes once, owns the session and the 8-bit crop buffer, and for each call samples the crop
/// (`CropSampler`), converts it to the model's value range and runs the network. Every stage of the
/// pose and hand pipelines is one of these plus its decoding. One instance per thread.
public final class CroppedNetwork {
    /// The planned network; its outputs hold the last run's results.
    public let session: InferenceSession
    /// Model input width (the crop's width in pixels).
    public let tensorWidth: Int
    /// Model input height.
    public let tensorHeight: Int
    let valueRange: (min: Float, max: Float)
    private var crop: [UInt8]

    /// - Parameters:
    ///   - workers: the threads the network runs on (shared with the pipeline's other networks).
    ///   - role: what the model should be, for the error message (e.g. "a pose detector").
    ///   - outputs: the exact output shapes, in order.
    ///   - computedOutputs: the outputs to compute (nil: all); see `RuntimeOptions.computedOutputs`.
    ///   - planning: how the session picks among kernels that give the same bits; see `RuntimeOptions.planning`.
    /// - Throws: `RuntimeError.modelMismatch` naming the file, the expected and the actual shapes.
    public init(model: ModelFile, workers: WorkerPool, role: String, outputs expected: [[Int]], computedOutputs: Set<Int>? = nil,
                planning: Planning = .measured) throws {
        session = try InferenceSession(model: model, options: RuntimeOptions(threadCount: workers.threadCount, computedOutputs: computedOutputs,
                                                                             planning: planning),
                                       workers: workers)
        let input = model.metadata.input
        let outputs = session.outputDescriptions.map(\.shape)
        guard input.shape.count == 4, input.shape[0] == 1, input.shape[3] == 3, input.valueRange.count == 2,
              outputs == expected else {
            throw RuntimeError.modelMismatch(model: model.path,
                reason: "expected \(role) ([1,H,W,3] → \(expected.map(\.description).joined(separator: ", "))), "
                    + "found input \(input.shape), outputs \(outputs.map(\.description).joined(separator: ", "))")
        }
        tensorHeight = input.shape[1]
        tensorWidth = input.shape[2]
        valueRange = (input.valueRange[0], input.valueRange[1])
        crop = [UInt8](repeating: 0, count: tensorWidth * tensorHeight * 3)
    }

    /// Crops `rect` of `image` (nil: the whole image), runs the network, and returns the crop's
    /// geometry for mapping the outputs back. Outputs are then in `session.output(_:)`.
    public func run(on image: Image, rect: NormalizedRect?, keepAspectRatio: Bool, border: BorderMode) throws -> ImageToTensorGeometry {
        let geometry = try ImageToTensorGeometry(rect: rect, imageWidth: image.width, imageHeight: image.height,
                                                 tensorWidth: tensorWidth, tensorHeight: tensorHeight, keepAspectRatio: keepAspectRatio)
        let session = self.session
        CropSampler.sample(image, geometry: geometry, border: border, into: &crop, tensor: session.input, valueRange: valueRange,
                           bands: session.options.threadCount) { session.parallelFor($0, $1) }
        session.run()
        return geometry
    }
}
