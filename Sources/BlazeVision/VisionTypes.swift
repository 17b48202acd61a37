import BlazeKit
import Foundation

/// A confidence in [0, 1] (Vision's `VNConfidence`).
public typealias VNConfidence = Float

/// A point in normalized image coordinates with the origin at the **lower-left**, as Vision reports them
/// (`VNPoint`).
public class VNPoint: @unchecked Sendable, CustomStringConvertible {
    public let location: CGPoint
    public var x: CGFloat { location.x }
    public var y: CGFloat { location.y }

    public init(location: CGPoint) { self.location = location }
    public convenience init(x: CGFloat, y: CGFloat) { self.init(location: CGPoint(x: x, y: y)) }

    public var description: String { "(\(x), \(y))" }
}

/// A point with a confidence (`VNDetectedPoint`).
public class VNDetectedPoint: VNPoint, @unchecked Sendable {
    public let confidence: VNConfidence

    public init(location: CGPoint, confidence: VNConfidence) {
        self.confidence = confidence
        super.init(location: location)
    }
}

/// A named point with a confidence (`VNRecognizedPoint`).
public final class VNRecognizedPoint: VNDetectedPoint, @unchecked Sendable {
    /// The joint's name (its raw value, e.g. `"head_joint"`).
    public let identifier: String

    public init(location: CGPoint, confidence: VNConfidence, identifier: String) {
        self.identifier = identifier
        super.init(location: location, confidence: confidence)
    }
}

/// A 3D joint position in metres around the root (hips' midpoint): x to the image's right, y up, z toward the
/// camera (right-handed). BlazeKit's stand-in for Vision's separate 3D body request.
public struct VNPoint3D: Sendable, Equatable, Codable {
    public var x: Float
    public var y: Float
    public var z: Float

    public init(x: Float, y: Float, z: Float) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// Vision's errors, with what was asked for.
public enum VNError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A joint or group this observation does not have.
    case unknownPointKey(String)

    public var description: String {
        switch self {
        case let .unknownPointKey(key): return "this observation has no point or group named \(key)"
        }
    }
}

/// An observation: something a request found (`VNObservation`).
public class VNObservation: @unchecked Sendable {
    /// How confident the request is in the observation as a whole, in [0, 1].
    public let confidence: VNConfidence
    public let uuid = UUID()

    init(confidence: VNConfidence) { self.confidence = confidence }
}

/// The pixel position of a normalized point (origin unchanged): `(x·W, y·H)` (Vision's `VNImagePointForNormalizedPoint`).
public func VNImagePointForNormalizedPoint(_ normalizedPoint: CGPoint, _ imageWidth: Int, _ imageHeight: Int) -> CGPoint {
    CGPoint(x: normalizedPoint.x * CGFloat(imageWidth), y: normalizedPoint.y * CGFloat(imageHeight))
}

/// The normalized position of a pixel point (origin unchanged): `(x/W, y/H)` (Vision's `VNNormalizedPointForImagePoint`).
public func VNNormalizedPointForImagePoint(_ imagePoint: CGPoint, _ imageWidth: Int, _ imageHeight: Int) -> CGPoint {
    CGPoint(x: imagePoint.x / CGFloat(imageWidth), y: imagePoint.y / CGFloat(imageHeight))
}

/// What a request calls when it finishes (`VNRequestCompletionHandler`).
public typealias VNRequestCompletionHandler = (VNRequest, (any Error)?) -> Void

/// An image analysis request (`VNRequest`). Subclasses run on the image a ``VNImageRequestHandler`` gives them.
public class VNRequest: @unchecked Sendable {
    public let completionHandler: VNRequestCompletionHandler?
    /// The observations of the last `perform`, nil before.
    public internal(set) var results: [VNObservation]?

    public init(completionHandler: VNRequestCompletionHandler? = nil) {
        self.completionHandler = completionHandler
    }

    /// Runs on the upright image; subclasses override.
    func perform(on image: Image) throws -> [VNObservation] {
        preconditionFailure("VNRequest.perform(on:) must be overridden")
    }
}

/// Runs requests on one image (`VNImageRequestHandler`).
public final class VNImageRequestHandler: Sendable {
    public let image: Image
    /// How the stored pixels are to be turned for display; results are in the displayed image's coordinates.
    public let orientation: ImageOrientation

    /// A handler for `image` shown with `orientation` (Vision's `CGImagePropertyOrientation`, mirrored ones included).
    public init(image: Image, orientation: ImageOrientation? = nil, options: [String: Any] = [:]) {
        self.image = image
        self.orientation = orientation ?? image.orientation
    }

    /// Runs each request in order, sets its `results` and calls its completion handler; rethrows the first
    /// error (after passing it to that request's handler).
    public func perform(_ requests: [VNRequest]) throws {
        var upright = image
        upright.orientation = orientation
        upright = try upright.oriented()
        for request in requests {
            do {
                request.results = try request.perform(on: upright)
                request.completionHandler?(request, nil)
            } catch {
                request.results = nil
                request.completionHandler?(request, error)
                throw error
            }
        }
    }
}

/// Normalized MediaPipe-style (top-left origin) position → Vision's lower-left origin.
func visionLocation(x: Float, y: Float) -> CGPoint { CGPoint(x: CGFloat(x), y: 1 - CGFloat(y)) }
