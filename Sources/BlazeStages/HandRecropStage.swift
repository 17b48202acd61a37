import BlazeImage
import BlazeKernels
import BlazeModelFormat
import BlazeRuntime

/// Holistic's hand re-crop (`mediapipe/modules/holistic_landmark/hand_recrop_by_roi_cpu.pbtxt`): the region
/// from the pose letterboxed into 256×256 (border replicate, values in [0, 1]), `hand_recrop`'s two points
/// (`TensorsToLandmarksCalculator`: `x/256`, `y/256`), letterbox removal, projection onto the region, and
/// ``HolisticRegions/handFromRecrop(_:imageWidth:imageHeight:)``.
///
/// Holds a planned session and its crop buffer; one instance per thread.
public final class HandRecropStage {
    public let network: CroppedNetwork

    /// - Parameter planning: how the session picks among kernels that give the same bits (`RuntimeOptions.planning`).
    /// - Throws: `RuntimeError.modelMismatch` unless the model outputs `[1,1,1,4]` (two points, x and y).
    public init(model: ModelFile, workers: WorkerPool, planning: Planning = .measured) throws {
        network = try CroppedNetwork(model: model, workers: workers, role: "a hand re-crop model (hand_recrop)", outputs: [[1, 1, 1, 4]],
                                     planning: planning)
    }

    /// The network's two points in image-normalized coordinates, for `roi`.
    public func points(in image: Image, roi: NormalizedRect) throws -> [NormalizedLandmark] {
        let geometry = try network.run(on: image, rect: roi, keepAspectRatio: true, border: .replicate)
        let raw = network.session.output(0)
        let w = Float(network.tensorWidth), h = Float(network.tensorHeight)
        return (0..<2).map { i in
            LandmarkProjection.project(geometry.letterboxPadding.removing(from: NormalizedLandmark(x: raw[2 * i] / w, y: raw[2 * i + 1] / h)),
                                       onto: roi)
        }
    }

    /// The hand's region refined from `roi` (the region from the pose).
    public func region(in image: Image, roi: NormalizedRect) throws -> NormalizedRect? {
        HolisticRegions.handFromRecrop(try points(in: image, roi: roi), imageWidth: image.width, imageHeight: image.height)
    }
}
