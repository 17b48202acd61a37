import BlazeStages
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// How identities are kept across frames (BlazeKit's addition: MediaPipe gives none). Used in video and
/// live-stream mode only; image mode has no identities.
public struct IdentityOptions: Sendable, Equatable, Hashable, Codable {
    /// How many processed frames in a row a subject may go unseen and still get its ID back when it
    /// reappears; after that its ID is retired. Default 45 (1.5 s at 30 fps). ≥ 0.
    public var maxAbsentFrames: Int
    /// The lowest similarity, in [0, 1], at which a subject found in a frame continues a track rather
    /// than starting a new one. Default 0.2.
    public var minSimilarity: Float
    /// Hands: report each track's handedness by a vote over its frames so far instead of each frame's
    /// own label (the score stays the frame's probability of the label given). Default false.
    public var votesHandedness: Bool

    public init(maxAbsentFrames: Int = 45, minSimilarity: Float = 0.2, votesHandedness: Bool = false) {
        self.maxAbsentFrames = maxAbsentFrames
        self.minSimilarity = minSimilarity
        self.votesHandedness = votesHandedness
    }

    /// The first option out of range (its name, the range, the value), or nil.
    public var invalidOption: (name: String, expected: String, actual: String)? {
        if maxAbsentFrames < 0 { return ("maxAbsentFrames", "≥ 0", "\(maxAbsentFrames)") }
        if !(minSimilarity >= 0 && minSimilarity <= 1) { return ("minSimilarity", "a value in [0, 1]", "\(minSimilarity)") }
        return nil
    }
}

/// One subject (a pose or a hand) as a frame shows it, for ``IdentityTracker``.
public struct IdentityObservation: Sendable, Equatable {
    /// The landmarks in pixels of the upright image.
    public var points: [SIMD2<Float>]
    /// Per landmark, how much it counts in the similarity (pose: its visibility; hand: 1).
    public var weights: [Float]
    /// Hands: this frame's probability of handedness index 1 (nil for poses).
    public var index1Probability: Float?

    public init(points: [SIMD2<Float>], weights: [Float], index1Probability: Float? = nil) {
        self.points = points
        self.weights = weights
        self.index1Probability = index1Probability
    }

    /// Normalized landmarks of a `width × height` image; `weights` from visibility when `weighted`.
    public init(landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int, weighted: Bool, index1Probability: Float? = nil) {
        let w = Float(imageWidth), h = Float(imageHeight)
        self.init(points: landmarks.map { SIMD2($0.x * w, $0.y * h) },
                  weights: landmarks.map { weighted ? min(max($0.visibility ?? 1, 0), 1) : 1 },
                  index1Probability: index1Probability)
    }

    /// The axis-aligned box of the points: (min, max).
    var box: (lo: SIMD2<Float>, hi: SIMD2<Float>) {
        guard var lo = points.first else { return (.zero, .zero) }
        var hi = lo
        for p in points.dropFirst() { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        return (lo, hi)
    }
}

/// Gives each subject of each frame a stable integer ID (BlazeKit's addition; MediaPipe's pose and hand
/// lists have no identity and their order changes from frame to frame).
///
/// Per frame, ``assign(_:)`` compares every live track with every subject found:
/// - **motion**: the track's landmarks and box are moved on by its velocity (of the landmarks' box
///   centre, smoothed), for as many frames as it has been unseen, at most ``maxExtrapolatedFrames``;
/// - **landmark similarity** (OKS-like): `Σ wᵢ·exp(−dᵢ² / (2·s²·kᵢ²·g²)) / Σ wᵢ` over the landmarks, `dᵢ`
///   the distance between the moved-on and the new landmark, `s²` the mean square of the two boxes' longer
///   sides, `kᵢ` the landmark's falloff (pose: COCO's per-keypoint constants mapped to BlazePose's 33 points; hand:
///   0.12 for every point), `wᵢ` the smaller of the two weights (pose: visibility), `g` a spread growing
///   by 0.1 per unseen frame (at most 4) so a subject that was away may be found farther off;
/// - **region overlap**: the IoU of the moved-on box and the new one;
/// - similarity = (0.6·OKS + 0.4·IoU) × the ratio of the boxes' longer sides (smaller over larger), so a track
///   of another size (a stale duplicate, another hand) does not take a subject the size of a recent one.
///
/// Pairs are then taken greedily, most similar first (ties: lower ID, then earlier subject), while the
/// similarity is at least ``IdentityOptions/minSimilarity``. What is left is paired by the nearest moved-on
/// box centre, within ``reachLimit(gap:)`` box sides and for boxes of like size (``reach(_:_:)``). A subject
/// left over after both starts a new track with the next ID (IDs count up from 1 and are never reused by one tracker, also across ``reset()``); a track
/// unseen for more than ``IdentityOptions/maxAbsentFrames`` frames is retired. Everything is a plain
/// function of the frames seen, so the IDs are deterministic.
///
/// With ``IdentityOptions/votesHandedness`` each hand track sums the clamped log-odds (±4) of its frames'
/// handedness; the vote is the sign of the sum (the frame's own label on a tie).
public struct IdentityTracker: Sendable, Equatable {
    /// What is tracked: it sets the landmark falloffs.
    public enum Subject: Sendable, Equatable { case pose, hand }

    /// One subject's identity in a frame.
    public struct Assignment: Sendable, Equatable {
        public var id: Int
        /// With handedness voting, the track's voted index (0 or 1); else nil.
        public var votedIndex: Int?
    }

    struct Track: Sendable, Equatable {
        var id: Int
        var points: [SIMD2<Float>]
        var weights: [Float]
        var velocity: SIMD2<Float>
        var lastFrame: Int
        var handednessEvidence: Float
    }

    public static let maxExtrapolatedFrames = 10
    public let subject: Subject
    public let options: IdentityOptions
    private(set) var tracks: [Track] = []
    private var frame = 0
    private var nextID = 1

    public init(subject: Subject, options: IdentityOptions = IdentityOptions()) {
        self.subject = subject
        self.options = options
    }

    /// Forgets the tracks (a new stream); IDs already given are still never given again.
    public mutating func reset() { tracks = [] }

    /// The IDs of this frame's subjects, in their order.
    public mutating func assign(_ observations: [IdentityObservation]) -> [Assignment] {
        frame += 1
        tracks.removeAll { frame - $0.lastFrame - 1 > options.maxAbsentFrames }
        var pairs: [(similarity: Float, track: Int, observation: Int)] = []
        for (t, track) in tracks.enumerated() {
            for (o, observation) in observations.enumerated() {
                let s = similarity(track, observation)
                if s >= options.minSimilarity { pairs.append((s, t, o)) }
            }
        }
        pairs.sort { a, b in
            if a.similarity != b.similarity { return a.similarity > b.similarity }
            if tracks[a.track].id != tracks[b.track].id { return tracks[a.track].id < tracks[b.track].id }
            return a.observation < b.observation
        }
        var trackOf = [Int?](repeating: nil, count: observations.count)
        var taken = Set<Int>()
        for pair in pairs where trackOf[pair.observation] == nil && !taken.contains(pair.track) {
            trackOf[pair.observation] = pair.track
            taken.insert(pair.track)
        }
        // Second pass, for what is left: the nearest moved-on box centre within reach.
        var near: [(distance: Float, track: Int, observation: Int)] = []
        for (t, track) in tracks.enumerated() where !taken.contains(t) {
            for (o, observation) in observations.enumerated() where trackOf[o] == nil {
                if let d = reach(track, observation) { near.append((d, t, o)) }
            }
        }
        near.sort { a, b in
            if a.distance != b.distance { return a.distance < b.distance }
            if tracks[a.track].id != tracks[b.track].id { return tracks[a.track].id < tracks[b.track].id }
            return a.observation < b.observation
        }
        for pair in near where trackOf[pair.observation] == nil && !taken.contains(pair.track) {
            trackOf[pair.observation] = pair.track
            taken.insert(pair.track)
        }
        var assignments: [Assignment] = []
        for (o, observation) in observations.enumerated() {
            let t: Int
            if let matched = trackOf[o] {
                t = matched
                update(&tracks[t], with: observation)
            } else {
                tracks.append(Track(id: nextID, points: observation.points, weights: observation.weights, velocity: .zero,
                                    lastFrame: frame, handednessEvidence: 0))
                nextID += 1
                t = tracks.count - 1
            }
            var voted: Int?
            if options.votesHandedness, let p = observation.index1Probability {
                tracks[t].handednessEvidence += Self.clampedLogOdds(p)
                let evidence = tracks[t].handednessEvidence
                voted = evidence > 0 ? 1 : evidence < 0 ? 0 : (p > 0.5 ? 1 : 0)
            }
            assignments.append(Assignment(id: tracks[t].id, votedIndex: voted))
        }
        return assignments
    }

    static func clampedLogOdds(_ p: Float) -> Float {
        guard p.isFinite else { return 0 }
        let q = min(max(p, 1e-6), 1 - 1e-6)
        return min(max(log(q / (1 - q)), -4), 4)
    }

    private func update(_ track: inout Track, with observation: IdentityObservation) {
        let gap = Float(frame - track.lastFrame)
        let step = (Self.center(observation.points) - Self.center(track.points)) / gap
        track.velocity = 0.5 * track.velocity + 0.5 * step
        track.points = observation.points
        track.weights = observation.weights
        track.lastFrame = frame
    }

    static func center(_ points: [SIMD2<Float>]) -> SIMD2<Float> {
        let box = IdentityObservation(points: points, weights: []).box
        return (box.lo + box.hi) / 2
    }

    /// The track's landmarks moved on to this frame by its velocity, and how many frames it has been unseen
    /// plus one (1 for a track seen on the previous frame).
    func predicted(_ track: Track) -> (observation: IdentityObservation, gap: Int) {
        let gap = frame - track.lastFrame
        let shift = track.velocity * Float(min(gap, Self.maxExtrapolatedFrames))
        return (IdentityObservation(points: track.points.map { $0 + shift }, weights: track.weights), gap)
    }

    /// How far a subject may be found from where it was expected, in its box's longer sides: 1/2, widening by
    /// 0.05 per unseen frame (at most 2).
    static func reachLimit(gap: Int) -> Float { min(0.5 + 0.05 * Float(gap - 1), 2) }

    /// The distance between the moved-on box centre and the observation's, in the boxes' mean longer side,
    /// when within ``reachLimit(gap:)`` and the boxes' longer sides are within a factor 1.5; else nil.
    func reach(_ track: Track, _ observation: IdentityObservation) -> Float? {
        let (moved, gap) = predicted(track)
        let a = moved.box, b = observation.box
        let sideA = max((a.hi - a.lo).x, (a.hi - a.lo).y), sideB = max((b.hi - b.lo).x, (b.hi - b.lo).y)
        guard sideA > 0, sideB > 0, max(sideA, sideB) <= 1.5 * min(sideA, sideB) else { return nil }
        let d = ((a.lo + a.hi) / 2 - (b.lo + b.hi) / 2)
        let distance = (d * d).sum().squareRoot() / ((sideA + sideB) / 2)
        return distance <= Self.reachLimit(gap: gap) ? distance : nil
    }

    /// (0.6·OKS + 0.4·IoU) × size ratio of the track moved on to this frame and `observation`.
    func similarity(_ track: Track, _ observation: IdentityObservation) -> Float {
        let (predicted, gap) = predicted(track)
        let a = predicted.box, b = observation.box
        let areaA = (a.hi - a.lo).x * (a.hi - a.lo).y, areaB = (b.hi - b.lo).x * (b.hi - b.lo).y
        let sideA = max((a.hi - a.lo).x, (a.hi - a.lo).y), sideB = max((b.hi - b.lo).x, (b.hi - b.lo).y)
        let scale2 = max((sideA * sideA + sideB * sideB) / 2, 1)
        let spread = min(1 + 0.1 * Float(gap - 1), 4)
        let n = min(predicted.points.count, observation.points.count)
        var sum: Float = 0, total: Float = 0
        for i in 0..<n {
            let w = min(predicted.weights[i], observation.weights[i])
            let k = falloff(i) * spread
            let d = predicted.points[i] - observation.points[i]
            sum += w * exp(-(d * d).sum() / (2 * scale2 * k * k))
            total += w
        }
        let oks = total > 0 ? sum / total : 0
        let lo = pointwiseMax(a.lo, b.lo), hi = pointwiseMin(a.hi, b.hi)
        let inter = max(hi.x - lo.x, 0) * max(hi.y - lo.y, 0)
        let union = areaA + areaB - inter
        let iou = union > 0 ? inter / union : 0
        return (0.6 * oks + 0.4 * iou) * min(sideA, sideB) / max(sideA, sideB, 1e-6)
    }

    /// COCO's keypoint constants (2σ) on BlazePose's 33 landmarks: face points as the nose and eyes, ears,
    /// shoulders, elbows, wrists (and the hand points beside them), hips, knees, ankles (and the feet).
    static let poseFalloffs: [Float] = [0.052] + Array(repeating: 0.05, count: 6) + [0.07, 0.07, 0.052, 0.052]
        + [0.158, 0.158, 0.144, 0.144] + Array(repeating: 0.124, count: 8) + [0.214, 0.214, 0.174, 0.174]
        + Array(repeating: 0.178, count: 6)

    func falloff(_ i: Int) -> Float {
        switch subject {
        case .pose: return i < Self.poseFalloffs.count ? Self.poseFalloffs[i] : 0.1
        case .hand: return 0.12
        }
    }
}
