// Re-exported, so a port changes one import: `Image`, `MPImage` and the landmarkers come with this module.
@_exported import BlazeKit
import Foundation

/// A confidence in [0, 1] (Vision's `VNConfidence`).
public typealias VNConfidence = Float

/// A point in normalized image coordinates with the origin at the **lower-left**, as Vision reports them
/// (`VNPoint`).
public class VNPoint: @unchecked Sendable, CustomStringConvertible {
    /// The point, each coordinate a fraction of the image's width or height, y measured from the bottom.
    public let location: CGPoint
    /// The horizontal coordinate, from 0 at the left edge to 1 at the right edge.
    public var x: CGFloat { location.x }
    /// The vertical coordinate, from 0 at the bottom edge to 1 at the top edge.
    public var y: CGFloat { location.y }

    /// A point at a normalized location (origin at the lower-left).
    public init(location: CGPoint) { self.location = location }
    /// A point at normalized coordinates (origin at the lower-left).
    public convenience init(x: CGFloat, y: CGFloat) { self.init(location: CGPoint(x: x, y: y)) }

    /// The coordinates as `(x, y)`.
    public var description: String { "(\(x), \(y))" }
}

/// A point with a confidence (`VNDetectedPoint`).
public class VNDetectedPoint: VNPoint, @unchecked Sendable {
    /// How sure the request is of the point, in [0, 1]. BlazeVision reports exactly 0 for a joint it did not
    /// find (see ``VNRecognizedPointsObservation/minimumLandmarkScore``); the location is still filled in.
    public let confidence: VNConfidence

    /// A point at a normalized location with a confidence.
    public init(location: CGPoint, confidence: VNConfidence) {
        self.confidence = confidence
        super.init(location: location)
    }
}

/// A named point with a confidence (`VNRecognizedPoint`).
public final class VNRecognizedPoint: VNDetectedPoint, @unchecked Sendable {
    /// The point's key as a string: the raw value of its ``VNRecognizedPointKey`` and of its joint name
    /// (e.g. `"head_joint"`, `"VNHLKITIP"`).
    public let identifier: String

    /// A named point at a normalized location with a confidence.
    public init(location: CGPoint, confidence: VNConfidence, identifier: String) {
        self.identifier = identifier
        super.init(location: location, confidence: confidence)
    }
}

/// The key of one point of a ``VNRecognizedPointsObservation`` (`VNRecognizedPointKey`), Vision's iOS 14
/// string key. Its raw value is the raw value of the matching joint name, so
/// `VNRecognizedPointKey.bodyLandmarkKeyNose.rawValue == VNHumanBodyPoseObservation.JointName.nose.rawValue`.
public struct VNRecognizedPointKey: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The key's string, e.g. `"head_joint"`.
    public let rawValue: String
    /// A key with this string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A key with this string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The raw value.
    public var description: String { rawValue }
}

/// The key of a group of points of a ``VNRecognizedPointsObservation`` (`VNRecognizedPointGroupKey`), Vision's
/// iOS 14 string key; ``all`` names every point. Its raw value is the raw value of the matching joints-group name.
public struct VNRecognizedPointGroupKey: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The key's string, e.g. `"VNBLKLARM"`.
    public let rawValue: String
    /// A group key with this string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A group key with this string.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// The raw value.
    public var description: String { rawValue }

    /// Every point of the observation (Vision's raw value `"VNIPOAll"`).
    public static let all = VNRecognizedPointGroupKey(rawValue: "VNIPOAll")
}

/// Every point of the observation: the Objective-C name of ``VNRecognizedPointGroupKey/all``.
@available(*, deprecated, renamed: "VNRecognizedPointGroupKey.all")
public let VNRecognizedPointGroupKeyAll = VNRecognizedPointGroupKey.all

/// A 3D joint position in metres around the root (hips' midpoint): x to the image's right, y up, z toward the
/// camera (right-handed). BlazeKit's stand-in for Vision's separate 3D body request.
public struct VNPoint3D: Sendable, Equatable, Codable {
    /// Metres to the image's right of the root.
    public var x: Float
    /// Metres above the root.
    public var y: Float
    /// Metres from the root toward the camera.
    public var z: Float

    /// A position in metres around the root.
    public init(x: Float, y: Float, z: Float) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// The errors BlazeVision's observations throw (Vision reports these as `NSError`s of `VNErrorDomain`).
public enum VNError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The observation has no point or group with this raw value; `available` lists the ones it has.
    case unknownPointKey(String, observation: String, available: [String])

    /// The key asked for, the observation's class and the keys it does have.
    public var description: String {
        switch self {
        case let .unknownPointKey(key, observation, available):
            return "\(observation) has no point or group named \"\(key)\"; expected one of: \(available.joined(separator: ", "))"
        }
    }
}

/// An observation: something a request found (`VNObservation`).
public class VNObservation: @unchecked Sendable {
    /// How confident the request is in the observation as a whole, in [0, 1].
    public let confidence: VNConfidence
    /// An identifier unique to this observation.
    public let uuid = UUID()

    init(confidence: VNConfidence) { self.confidence = confidence }
}

/// An observation made of named points (`VNRecognizedPointsObservation`), the superclass of
/// ``VNHumanBodyPoseObservation`` and ``VNHumanHandPoseObservation``. It answers Vision's iOS 14 string-keyed
/// API; the subclasses' joint names reach the same ``VNRecognizedPoint`` objects.
///
/// A point is reported with confidence **0** when BlazeKit did not find it, which is what Vision reports for
/// joints it did not find: a landmark whose MediaPipe visibility or presence is below
/// ``minimumLandmarkScore``, or whose location falls outside the image. Such a point keeps the location the
/// network estimated, so `confidence > 0` is the test for "found".
public class VNRecognizedPointsObservation: VNObservation, @unchecked Sendable {
    /// The smallest MediaPipe landmark visibility or presence a found point has: 0.5, the cut MediaPipe's
    /// own `drawing_utils.draw_landmarks` applies before drawing a landmark (not in Vision).
    public static let minimumLandmarkScore: Float = 0.5

    private let keys: [VNRecognizedPointKey]
    private let points: [VNRecognizedPointKey: VNRecognizedPoint]
    private let groupKeys: [VNRecognizedPointGroupKey]
    private let groups: [VNRecognizedPointGroupKey: [VNRecognizedPointKey]]

    /// `points` in the observation's key order; `groups` in its group order (``VNRecognizedPointGroupKey/all``
    /// is added last, with every point).
    init(confidence: VNConfidence, points: [VNRecognizedPoint], groups: [(VNRecognizedPointGroupKey, [VNRecognizedPointKey])]) {
        keys = points.map { VNRecognizedPointKey(rawValue: $0.identifier) }
        self.points = Dictionary(uniqueKeysWithValues: zip(keys, points))
        let allGroups = groups + [(VNRecognizedPointGroupKey.all, keys)]
        groupKeys = allGroups.map(\.0)
        self.groups = Dictionary(uniqueKeysWithValues: allGroups)
        super.init(confidence: confidence)
    }

    /// The keys of every point the observation has.
    public var availableKeys: [VNRecognizedPointKey] { keys }
    /// The keys of every group the observation has, ``VNRecognizedPointGroupKey/all`` included.
    public var availableGroupKeys: [VNRecognizedPointGroupKey] { groupKeys }

    /// The point with this key; throws ``VNError/unknownPointKey(_:observation:available:)`` for a key the
    /// observation does not have (a hand key asked of a body, say).
    public func recognizedPoint(forKey pointKey: VNRecognizedPointKey) throws -> VNRecognizedPoint {
        guard let point = points[pointKey] else {
            throw VNError.unknownPointKey(pointKey.rawValue, observation: "\(type(of: self))", available: keys.map(\.rawValue))
        }
        return point
    }

    /// The points of a group, by key; throws ``VNError/unknownPointKey(_:observation:available:)`` for a group
    /// the observation does not have.
    public func recognizedPoints(forGroupKey groupKey: VNRecognizedPointGroupKey) throws -> [VNRecognizedPointKey: VNRecognizedPoint] {
        guard let members = groups[groupKey] else {
            throw VNError.unknownPointKey(groupKey.rawValue, observation: "\(type(of: self))", available: groupKeys.map(\.rawValue))
        }
        var out: [VNRecognizedPointKey: VNRecognizedPoint] = [:]
        for key in members { out[key] = try recognizedPoint(forKey: key) }
        return out
    }

    /// Whether BlazeKit found a landmark, by the rule above: visibility and presence (where the network gives
    /// them) at least ``minimumLandmarkScore`` and the location inside the image.
    static func found(_ landmark: NormalizedLandmark) -> Bool {
        (landmark.visibility ?? 1) >= minimumLandmarkScore && (landmark.presence ?? 1) >= minimumLandmarkScore
            && (0...1).contains(landmark.x) && (0...1).contains(landmark.y)
    }
}

/// The pixel position of a normalized point (origin unchanged): `(x·W, y·H)` (Vision's `VNImagePointForNormalizedPoint`).
public func VNImagePointForNormalizedPoint(_ normalizedPoint: CGPoint, _ imageWidth: Int, _ imageHeight: Int) -> CGPoint {
    CGPoint(x: normalizedPoint.x * CGFloat(imageWidth), y: normalizedPoint.y * CGFloat(imageHeight))
}

/// The normalized position of a pixel point (origin unchanged): `(x/W, y/H)` (Vision's `VNNormalizedPointForImagePoint`).
public func VNNormalizedPointForImagePoint(_ imagePoint: CGPoint, _ imageWidth: Int, _ imageHeight: Int) -> CGPoint {
    CGPoint(x: imagePoint.x / CGFloat(imageWidth), y: imagePoint.y / CGFloat(imageHeight))
}

/// What a request calls when it finishes (`VNRequestCompletionHandler`): the request, with its `results`
/// set, and the error if it failed. Not `@Sendable`: it runs on the thread that called
/// ``VNImageRequestHandler/perform(_:)``, before `perform` returns, so a method of any class can be passed.
public typealias VNRequestCompletionHandler = (VNRequest, (any Error)?) -> Void

/// An image analysis request (`VNRequest`). Subclasses run on the image a ``VNImageRequestHandler`` gives them.
///
/// A request may be performed again, on other images; each `perform` replaces ``results``. Perform a
/// request from one thread at a time (its ``results`` are not guarded against two at once).
public class VNRequest: @unchecked Sendable {
    /// What `perform` calls when this request finishes, on the calling thread.
    public let completionHandler: VNRequestCompletionHandler?
    /// The observations of the last `perform`, nil before (and after a failed one).
    public internal(set) var results: [VNObservation]?

    /// A request that calls `completionHandler` (if any) each time it is performed.
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
    /// The stored pixels.
    public let image: Image
    /// How the stored pixels are to be turned for display; results are in the displayed image's coordinates.
    public let orientation: ImageOrientation

    /// A handler for `image` shown with `orientation` (Vision's `CGImagePropertyOrientation`, mirrored ones
    /// included; nil takes the image's own, e.g. its EXIF orientation). `options` is accepted and ignored.
    public init(image: Image, orientation: ImageOrientation? = nil, options: [String: Any] = [:]) {
        self.image = image
        self.orientation = orientation ?? image.orientation
    }

    /// Runs each request in order on the calling thread, sets its `results` and calls its completion handler
    /// before going on; rethrows the first error (after passing it to that request's handler).
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

/// `localizedDescription` is the message that names the file, option or value at fault.
extension VNError: LocalizedError {
    /// The same message as `description`.
    public var errorDescription: String? { description }
}

/// The landmarker behind a request: made on first use and made again when the request's settings change;
/// calls are serialized.
final class RequestLandmarker<Definition: TaskDefinition>: @unchecked Sendable {
    private var task: LandmarkerTask<Definition>?
    private var settings: [AnyHashable] = []
    private let lock = NSLock()

    /// `image` through the landmarker made for `threadCount`, `kernelPlanning` and `settings` (made again, with
    /// default options that `configure` sets, when they differ from the last ones).
    func detect(_ image: Image, threadCount: Int, kernelPlanning: Planning, settings: [AnyHashable],
                configure: (Definition.Options) -> Void) throws -> Definition.Result {
        lock.lock()
        defer { lock.unlock() }
        let settings = settings + [threadCount, kernelPlanning]
        if task == nil || settings != self.settings {
            task = nil
            let options = Definition.Options()
            options.baseOptions.threadCount = threadCount
            options.baseOptions.kernelPlanning = kernelPlanning
            configure(options)
            task = try LandmarkerTask<Definition>(options: options)
            self.settings = settings
        }
        return try task!.detect(image: image)
    }
}

/// A group of named joints (`VNHumanBodyPoseObservation.JointsGroupName`, `VNHumanHandPoseObservation.JointsGroupName`).
public protocol JointsGroup: RawRepresentable, CaseIterable, Hashable where RawValue == String, AllCases == [Self] {
    associatedtype Joint
    /// The group of every joint.
    static var all: Self { get }
    /// The joints in the group.
    var jointNames: [Joint] { get }
}

/// What Vision's body and hand pose observations share: joints and groups named by string-backed enums, and
/// the lookups by those names.
public protocol JointNamedObservation: VNRecognizedPointsObservation {
    associatedtype JointName: RawRepresentable, CaseIterable, Hashable where JointName.RawValue == String, JointName.AllCases == [JointName]
    associatedtype JointsGroupName: JointsGroup where JointsGroupName.Joint == JointName
}

extension JointNamedObservation {
    /// The joints this observation has (all of them).
    public var availableJointNames: [JointName] { JointName.allCases }
    /// The groups this observation has (all of them).
    public var availableJointsGroupNames: [JointsGroupName] { JointsGroupName.allCases }

    /// One joint: the same object as `recognizedPoint(forKey:)` gives for its ``VNRecognizedPointKey``.
    public func recognizedPoint(_ jointName: JointName) throws -> VNRecognizedPoint {
        try recognizedPoint(forKey: VNRecognizedPointKey(rawValue: jointName.rawValue))
    }

    /// The joints of a group, by name.
    public func recognizedPoints(_ jointsGroupName: JointsGroupName) throws -> [JointName: VNRecognizedPoint] {
        var out: [JointName: VNRecognizedPoint] = [:]
        for joint in jointsGroupName.jointNames { out[joint] = try recognizedPoint(joint) }
        return out
    }

    /// Every group but `.all`, as keys, for `VNRecognizedPointsObservation`'s group lookups.
    static var pointGroups: [(VNRecognizedPointGroupKey, [VNRecognizedPointKey])] {
        JointsGroupName.allCases.filter { $0 != .all }.map {
            (VNRecognizedPointGroupKey(rawValue: $0.rawValue), $0.jointNames.map { VNRecognizedPointKey(rawValue: $0.rawValue) })
        }
    }
}
