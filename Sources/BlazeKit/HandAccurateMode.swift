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
    /// tracking does between video frames. Off by default: on the small-hand frames of
    /// `Tools/accuracy/make_small_hands.py` it moved the landmarks no closer to the human labels (with
    /// flip averaging: 0.093 of the hand size on average either way) and further from MediaPipe's, at one
    /// or two more passes.
    public var refinement = false
    /// Averages each landmark pass with the pass on the mirrored crop (mirrored back; the mirrored hand's
    /// handedness is the other hand's, so its score is swapped back too).
    public var flipAveraging = true

    /// The parts' short names, as `blaze hand --accurate-off` takes them.
    public static let partNames = ["tiles", "refine", "flip"]

    /// The smallest accepted ``smallestHandSize``.
    public static let smallestAcceptedHandSize = 24

    /// Turns off the parts named in `list`, comma-separated short names (``partNames``); throws
    /// ``TaskError/invalidOption(name:expected:actual:)`` naming an unknown one.
    public mutating func turnOff(parts list: String) throws { try set(parts: list, on: false) }

    /// Turns on the parts named in `list` (e.g. `refine`, off by default), as ``turnOff(parts:)`` reads it.
    public mutating func turnOn(parts list: String) throws { try set(parts: list, on: true) }

    private mutating func set(parts list: String, on: Bool) throws {
        for part in list.split(separator: ",").map({ $0.trimmingWhitespace() }) where !part.isEmpty {
            switch part {
            case "tiles": tiledSearch = on
            case "refine": refinement = on
            case "flip": flipAveraging = on
            default:
                throw TaskError.invalidOption(name: "hand accurate mode part", expected: "one of \(Self.partNames.joined(separator: ", "))",
                                              actual: "'\(part)'")
            }
        }
    }

    /// Tiled search and flip averaging on, refinement off, hands of 80 px and larger.
    public init() {}

    private enum CodingKeys: String, CodingKey { case tiledSearch, smallestHandSize, refinement, flipAveraging }

    /// Decodes the JSON ``HandAccurateMode`` encodes; a missing key (a part added after the JSON was written)
    /// takes its default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = HandAccurateMode()
        tiledSearch = try c.decodeIfPresent(Bool.self, forKey: .tiledSearch) ?? d.tiledSearch
        smallestHandSize = try c.decodeIfPresent(Int.self, forKey: .smallestHandSize) ?? d.smallestHandSize
        refinement = try c.decodeIfPresent(Bool.self, forKey: .refinement) ?? d.refinement
        flipAveraging = try c.decodeIfPresent(Bool.self, forKey: .flipAveraging) ?? d.flipAveraging
    }

    /// Hands of `smallestHandSize` px and larger, with the parts named in `on` turned on, then those named
    /// in `off` turned off (as ``turnOn(parts:)`` and ``turnOff(parts:)`` read them, e.g. from
    /// `blaze hand --accurate-on` and `--accurate-off`).
    public init(smallestHandSize: Int, turningOn on: String = "", turningOff off: String) throws {
        self.smallestHandSize = smallestHandSize
        try turnOn(parts: on)
        try turnOff(parts: off)
    }

    public init(tiledSearch: Bool = true, smallestHandSize: Int = 80, refinement: Bool = false, flipAveraging: Bool = true) {
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
