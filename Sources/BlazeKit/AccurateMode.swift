/// The accurate mode of a ``PoseLandmarker``: the same networks, driven to find more people and place
/// their landmarks better than MediaPipe does, at a higher cost. Off by default (the landmarker then gives
/// MediaPipe's exact results); set ``PoseLandmarkerOptions/accurateMode`` to turn it on. Each part can be
/// switched off on its own.
public struct PoseAccurateMode: Sendable, Equatable, Hashable, Codable {
    /// Runs the pose detector over overlapping tiles at several scales, down to ``smallestPersonHeight``,
    /// and merges the detections with the full-image pass (finds people too small for the 224×224
    /// full-frame detector).
    public var tiledSearch = true
    /// The smallest person (head to feet, in pixels of the displayed image) the tiled search looks for.
    /// Smaller means more tiles, so more time. At least 32.
    public var smallestPersonHeight = 120
    /// The smallest accepted ``smallestPersonHeight``.
    public static let smallestAcceptedPersonHeight = 32
    /// When a photo yields fewer people than `numPoses`, runs the detector on copies rotated by 90°,
    /// 180° and 270° too (people upside down or lying down).
    public var rotatedSearch = true
    /// When a photo still yields fewer than `numPoses` people, runs the detector on the image zoomed out
    /// (in the middle of a square 1.5 × its long side) at the four rotations: finds people who fill the
    /// photo, whom the detector misses without the context around them.
    public var zoomedOutSearch = true
    /// When a photo too small for any tile of the tiled search still yields no one, runs the detector on
    /// overlapping tiles of a third and two thirds of its short side: finds people who fill a small photo
    /// but whose face, which the detector keys on, is a few pixels wide or hidden (PARSE's athletes).
    public var zoomedInSearch = true
    /// A second landmark pass on the region computed from the first pass's landmarks, as MediaPipe's
    /// tracking does between video frames.
    public var refinement = true
    /// Averages each landmark pass with the pass on the mirrored crop (left and right swapped back), and
    /// keeps a pose only when the two agree: a pose the mirrored pass does not find, or places more than
    /// 15 % of the pose's size away on average, is dropped (most false poses), and the others' presence
    /// drops with the disagreement, each landmark's visibility with its own.
    public var flipAveraging = true
    /// When a candidate region yields a person already found (two people close together), looks at it again
    /// with the people found so far painted out in grey, so the landmark network sees the other one; and
    /// when a photo yields fewer than `numPoses` people, runs the detector again with them (faces too)
    /// painted out, on the whole image. A pose found on a painted image that lies mostly on painted pixels
    /// (a ghost of a painted person) is dropped.
    public var maskedRetry = true

    /// The parts' short names, as `blaze pose --accurate-off` takes them.
    public static let partNames = ["tiles", "rotations", "zoom-out", "zoom-in", "refine", "flip", "masked-retry"]

    /// Turns off the parts named in `list`, comma-separated short names (``partNames``); throws
    /// ``TaskError/invalidOption(name:expected:actual:)`` naming an unknown one.
    public mutating func turnOff(parts list: String) throws {
        for part in list.split(separator: ",").map({ $0.trimmingWhitespace() }) where !part.isEmpty {
            switch part {
            case "tiles": tiledSearch = false
            case "rotations": rotatedSearch = false
            case "zoom-out": zoomedOutSearch = false
            case "zoom-in": zoomedInSearch = false
            case "refine": refinement = false
            case "flip": flipAveraging = false
            case "masked-retry": maskedRetry = false
            default:
                throw TaskError.invalidOption(name: "accurate mode part", expected: "one of \(Self.partNames.joined(separator: ", "))",
                                              actual: "'\(part)'")
            }
        }
    }

    /// Every part on, people of 120 px and taller.
    public init() {}

    /// People of `smallestPersonHeight` px and taller, with the parts named in `list` turned off (as
    /// ``turnOff(parts:)`` reads it, e.g. from `blaze pose --accurate-off`).
    public init(smallestPersonHeight: Int, turningOff list: String) throws {
        self.smallestPersonHeight = smallestPersonHeight
        try turnOff(parts: list)
    }

    public init(tiledSearch: Bool = true, smallestPersonHeight: Int = 120, rotatedSearch: Bool = true,
                zoomedOutSearch: Bool = true, zoomedInSearch: Bool = true, refinement: Bool = true, flipAveraging: Bool = true,
                maskedRetry: Bool = true) {
        self.tiledSearch = tiledSearch
        self.smallestPersonHeight = smallestPersonHeight
        self.rotatedSearch = rotatedSearch
        self.zoomedOutSearch = zoomedOutSearch
        self.zoomedInSearch = zoomedInSearch
        self.refinement = refinement
        self.flipAveraging = flipAveraging
        self.maskedRetry = maskedRetry
    }

    private enum CodingKeys: String, CodingKey {
        case tiledSearch, smallestPersonHeight, rotatedSearch, zoomedOutSearch, zoomedInSearch, refinement, flipAveraging, maskedRetry
    }

    /// Decodes the JSON ``PoseAccurateMode`` encodes; a missing key (a part added after the JSON was written)
    /// takes its default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = PoseAccurateMode()
        tiledSearch = try c.decodeIfPresent(Bool.self, forKey: .tiledSearch) ?? d.tiledSearch
        smallestPersonHeight = try c.decodeIfPresent(Int.self, forKey: .smallestPersonHeight) ?? d.smallestPersonHeight
        rotatedSearch = try c.decodeIfPresent(Bool.self, forKey: .rotatedSearch) ?? d.rotatedSearch
        zoomedOutSearch = try c.decodeIfPresent(Bool.self, forKey: .zoomedOutSearch) ?? d.zoomedOutSearch
        zoomedInSearch = try c.decodeIfPresent(Bool.self, forKey: .zoomedInSearch) ?? d.zoomedInSearch
        refinement = try c.decodeIfPresent(Bool.self, forKey: .refinement) ?? d.refinement
        flipAveraging = try c.decodeIfPresent(Bool.self, forKey: .flipAveraging) ?? d.flipAveraging
        maskedRetry = try c.decodeIfPresent(Bool.self, forKey: .maskedRetry) ?? d.maskedRetry
    }

    /// How many tiles the tiled search runs the detector on, for a displayed image of `width × height`
    /// pixels (besides the whole-image pass): the cost of the search, about one detector run each.
    public func tileCount(width: Int, height: Int) -> Int {
        tiledSearch ? AccuratePosePipeline.tiles(width: width, height: height,
                                                 smallestPersonHeight: searchedPersonHeight(width: width, height: height)).count : 0
    }

    /// The person height the tile pyramid is sized for in a `width × height` image: ``smallestPersonHeight``,
    /// or, in a photo whose short side is under 6 × that, a sixth of the short side but not under 64 px
    /// (people in small photos are few pixels tall: on 640×480 COCO photos this finds 12 % more of them).
    public func searchedPersonHeight(width: Int, height: Int) -> Int {
        min(smallestPersonHeight, max(64, min(width, height) / 6))
    }
}

extension StringProtocol {
    /// Without the spaces and tabs at either end (Foundation's `trimmingCharacters(in: .whitespaces)`: the
    /// Unicode space separators and the tab).
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        var trimmed = String.UnicodeScalarView()
        trimmed.append(contentsOf: scalars[first...last])
        return String(trimmed)
    }
}
