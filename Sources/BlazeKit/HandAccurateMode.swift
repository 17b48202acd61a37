/// The accurate mode of a ``HandLandmarker``: the same two networks, driven to find hands too small for
/// MediaPipe's full-frame palm detector and to place their landmarks better, at a higher cost. Off by
/// default (the landmarker then gives MediaPipe's exact results); set
/// ``HandLandmarkerOptions/accurateMode`` to turn it on. Each part can be switched off on its own.
///
/// A hand's size, here, is the longer side of the upright box around its 21 landmarks, in pixels of the
/// displayed image: for an open hand about the length from the wrist to the tip of the middle finger.
public struct HandAccurateMode: Sendable, Equatable, Hashable, Codable {
    /// Runs the palm detector over overlapping square tiles at several scales, down to
    /// ``smallestHandSize``, and merges the detections with the whole-image pass (finds hands under
    /// about a tenth of the image's long side, which the 192×192 full-frame detector misses).
    public var tiledSearch = true
    /// The smallest hand (the longer side of the box around its landmarks, in pixels of the displayed
    /// image) the tiled search looks for. Smaller means more tiles, so more time. At least 24.
    public var smallestHandSize = 80
    /// A second landmark pass on the region computed from the first pass's landmarks, as MediaPipe's
    /// tracking does between video frames.
    public var refinement = true
    /// Averages each landmark pass with the pass on the mirrored crop (mirrored back; the mirrored hand's
    /// handedness is the other hand's, so its score is swapped back too).
    public var flipAveraging = true

    /// The parts' short names, as `blaze hand --accurate-off` takes them.
    public static let partNames = ["tiles", "refine", "flip"]

    /// The smallest accepted ``smallestHandSize``.
    public static let smallestAcceptedHandSize = 24

    /// Turns off the parts named in `list`, comma-separated short names (``partNames``); throws
    /// ``TaskError/invalidOption(name:expected:actual:)`` naming an unknown one.
    public mutating func turnOff(parts list: String) throws {
        for part in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            switch part {
            case "tiles": tiledSearch = false
            case "refine": refinement = false
            case "flip": flipAveraging = false
            default:
                throw TaskError.invalidOption(name: "hand accurate mode part", expected: "one of \(Self.partNames.joined(separator: ", "))",
                                              actual: "'\(part)'")
            }
        }
    }

    /// Every part on, hands of 80 px and larger.
    public init() {}

    /// Hands of `smallestHandSize` px and larger, with the parts named in `list` turned off (as
    /// ``turnOff(parts:)`` reads it, e.g. from `blaze hand --accurate-off`).
    public init(smallestHandSize: Int, turningOff list: String) throws {
        self.smallestHandSize = smallestHandSize
        try turnOff(parts: list)
    }

    public init(tiledSearch: Bool = true, smallestHandSize: Int = 80, refinement: Bool = true, flipAveraging: Bool = true) {
        self.tiledSearch = tiledSearch
        self.smallestHandSize = smallestHandSize
        self.refinement = refinement
        self.flipAveraging = flipAveraging
    }

    /// How many tiles the tiled search runs the palm detector on, for a displayed image of
    /// `width × height` pixels (besides the whole-image pass): the cost of the search, about one
    /// detector run each.
    public func tileCount(width: Int, height: Int) -> Int {
        tiledSearch ? AccurateHandPipeline.tiles(width: width, height: height, smallestHandSize: smallestHandSize).count : 0
    }
}
