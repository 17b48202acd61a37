import BlazeImage
import BlazeKernels
import BlazeRuntime
import BlazeStages
import BlazeTracking
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The hand pipeline of the accurate mode (``HandAccurateMode``): the same palm detector and hand
/// landmark network as ``HandPipeline``, driven differently. Chosen only when `accurateMode` is set, so
/// the default pipeline is untouched.
///
/// A photo: the palm detector on the whole image (as MediaPipe), then on overlapping square tiles at
/// several scales (the smallest `tileToHand ×` the smallest hand size, doubling up to `maxTileFraction`
/// of the long side), all detections merged by weighted NMS in image coordinates; each candidate's hand
/// region, best first, goes through the landmark network on the full-resolution image, averaged with the
/// pass on the mirrored crop (flip averaging), optionally again on the region its own landmarks give
/// (refinement); a hand MediaPipe's de-duplication (``HandDeduplication``) would suppress against one
/// already kept is dropped; up to `numHands`.
///
/// Video and live stream: MediaPipe's hand tracking carries the hands from frame to frame; when the
/// detector must run, it runs on the whole image and on the next few tiles only (a bounded cost per
/// frame, cycling), so the whole pyramid is searched over a few frames.
final class AccurateHandPipeline: TaskPipeline {
    typealias Result = HandLandmarkerResult

    /// Tile side / smallest hand size: the palm detector (192×192) sees a hand of the smallest size at
    /// about 192 / tileToHand = 48 pixels.
    /// (Measured on wide frames made from the hand photos, `Tools/accuracy/make_small_hands.py`, smallest
    /// size 60: 3 and 4 find all 60 px hands, 3 at twice the tiles; 5 loses some 40 px hands, 6 some
    /// 60 px ones: the detector's limit is about 32–38 px.)
    static let tileToHand: Float = 4
    /// Fraction of a tile its neighbours overlap, in both directions.
    /// (0.35 found no more hands on the same frames, 10 % more tiles.)
    static let tileOverlap: Float = 0.25
    /// Tiles are made while their side is under this fraction of the image's long side (the whole-image
    /// pass finds larger hands).
    static let maxTileFraction: Float = 0.75
    /// Tiles searched per video frame while the detector runs.
    static let tilesPerVideoFrame = 8
    /// Hand regions (from detections) looked at per photo: each costs one to four landmark passes
    /// (flip averaging, refinement).
    static func candidateBudget(numHands: Int) -> Int { 2 * numHands + 2 }

    private let detectors: TileSearch.Lanes<PalmDetectorStage>
    private var detector: PalmDetectorStage { detectors.shared }
    private let landmarkStage: HandLandmarkStage
    private let mode: HandAccurateMode
    private let presenceThreshold: Float
    private let minScore: Float
    private let numHands: Int
    private var tracker: HandTracker
    private var tileCycle = TileSearch.Cycle()
    let workers: WorkerPool

    init(options: HandLandmarkerOptions, mode: HandAccurateMode, resources: TaskResources) throws {
        guard mode.smallestHandSize >= HandAccurateMode.smallestAcceptedHandSize else {
            throw TaskError.invalidOption(name: "accurateMode.smallestHandSize", expected: ">= \(HandAccurateMode.smallestAcceptedHandSize)",
                                          actual: "\(mode.smallestHandSize)")
        }
        workers = resources.workers
        detectors = try TileSearch.Lanes(model: resources.model("detector"), workers: workers, planning: resources.planning)
        landmarkStage = try HandLandmarkStage(model: resources.model("landmarks"), workers: workers, planning: resources.planning)
        tracker = HandTracker(numHands: options.numHands, minTrackingConfidence: options.minTrackingConfidence)
        presenceThreshold = options.minHandPresenceConfidence
        minScore = options.minHandDetectionConfidence
        numHands = options.numHands
        self.mode = mode
    }

    func resetTracking() {
        tracker.reset()
        tileCycle.reset()
    }

    var trackingStatistics: (frames: Int, detectorRuns: Int) { (tracker.frameCount, tracker.detectorRunCount) }

    func setIdleWork(_ work: (@Sendable () -> Bool)?) { workers.setIdleWork(work) }

    func process(_ image: MPImage, timestampInMilliseconds: Int, tracking: Bool) throws -> HandLandmarkerResult {
        var hands: [HandLandmarkDecoding] = []
        var context = FrameContext(image: image)
        if tracking {
            let regions = try tracker.regionsOfInterest { () throws -> [NormalizedRect] in
                let detections = try search(image, tiles: nextVideoTiles(for: image))
                return detector.regionsOfInterest(for: detections, imageWidth: image.width, imageHeight: image.height)
            }
            for roi in regions {
                if let hand = try hand(in: roi, context: &context) { hands.append(hand) }
            }
            let kept = tracker.finishFrame(hands: hands.map(\.landmarks), imageWidth: image.width, imageHeight: image.height)
            hands = kept.map { hands[$0] }
        } else {
            let detections = try search(image, tiles: mode.tiledSearch ? tiles(for: image) : [])
            var regions: [NormalizedRect] = []
            var budget = Self.candidateBudget(numHands: numHands)
            for roi in detector.regionsOfInterest(for: detections, imageWidth: image.width, imageHeight: image.height) {
                guard hands.count < numHands, budget > 0 else { break }
                // A region nearly one already looked at: the same hand.
                if regions.contains(where: { RegionAssociation.intersectionOverUnion($0, roi) > 0.7 }) { continue }
                regions.append(roi)
                budget -= 1
                guard let hand = try hand(in: roi, context: &context) else { continue }
                let kept = HandDeduplication.retainedIndices(of: hands.map(\.landmarks) + [hand.landmarks],
                                                             imageWidth: image.width, imageHeight: image.height)
                if kept.last == hands.count { hands.append(hand) }
            }
        }
        var result = HandLandmarkerResult(timestampInMilliseconds: timestampInMilliseconds)
        for hand in hands {
            result.handedness.append([ResultCategory(hand.handedness)])
            result.landmarks.append(hand.landmarks.map { var l = $0; l.presence = hand.presenceScore; return l })
            result.worldLandmarks.append(hand.worldLandmarks)
        }
        return result
    }

    // MARK: - Finding hands

    /// The whole image and `tiles`, merged by weighted NMS in image coordinates, best first.
    private func search(_ image: Image, tiles: [NormalizedRect]) throws -> [Detection] {
        let all = try detector.detect(in: image, rect: .fullImage, minScore: minScore)
            + detectors.detections(in: image, rects: tiles, minScore: minScore)
        return tiles.isEmpty ? all : NonMaxSuppression.weighted(all, iouThreshold: detector.nmsThreshold)
    }

    func tiles(for image: Image) -> [NormalizedRect] {
        Self.tiles(width: image.width, height: image.height, smallestHandSize: mode.smallestHandSize)
    }

    /// The tile pyramid: squares of side `tileToHand · smallestHandSize`, doubling while under
    /// `maxTileFraction` of the long side (and at most the short side), overlapping by `tileOverlap`,
    /// spread evenly from edge to edge.
    static func tiles(width: Int, height: Int, smallestHandSize: Int) -> [NormalizedRect] {
        TileSearch.pyramid(width: width, height: height, firstSide: tileToHand * Float(smallestHandSize),
                           maxFraction: maxTileFraction, overlapX: tileOverlap, overlapY: tileOverlap)
    }

    /// The next `tilesPerVideoFrame` tiles of the pyramid, cycling.
    private func nextVideoTiles(for image: Image) -> [NormalizedRect] {
        mode.tiledSearch ? tileCycle.next(Self.tilesPerVideoFrame, of: tiles(for: image)) : []
    }

    /// The image and, made when first needed, its mirror (for flip averaging).
    struct FrameContext {
        let image: Image
        private var mirrored: Image?

        init(image: Image) { self.image = image }

        mutating func mirroredImage() throws -> Image {
            if let mirrored { return mirrored }
            let made = try TileSearch.mirrored(image)
            mirrored = made
            return made
        }
    }

    /// The hand in `roi`, if the landmark network finds one there; with `refinement`, from a second pass
    /// on the region the first pass's landmarks give (kept only if that pass finds the hand too).
    private func hand(in roi: NormalizedRect, context: inout FrameContext) throws -> HandLandmarkDecoding? {
        guard let first = try pass(in: roi, context: &context) else { return nil }
        guard mode.refinement,
              let refined = NextFrameROI.hand(landmarks: first.landmarks, imageWidth: context.image.width, imageHeight: context.image.height),
              let second = try pass(in: refined, context: &context) else { return first }
        return second
    }

    /// One landmark pass on `roi`, averaged with the pass on the mirrored crop when `flipAveraging`
    /// (landmarks and world landmarks mirrored back; the mirrored hand's handedness is the other one, so
    /// its "Right" score counts as the "Left" score). Nil when the direct pass finds no hand.
    private func pass(in roi: NormalizedRect, context: inout FrameContext) throws -> HandLandmarkDecoding? {
        guard var hand = try landmarkStage.landmarks(in: context.image, roi: roi, presenceThreshold: presenceThreshold) else { return nil }
        guard mode.flipAveraging else { return hand }
        var mirroredROI = roi
        mirroredROI.xCenter = 1 - roi.xCenter
        mirroredROI.rotation = -roi.rotation
        guard let mirrored = try landmarkStage.landmarks(in: context.mirroredImage(), roi: mirroredROI,
                                                         presenceThreshold: presenceThreshold) else { return hand }
        hand.landmarks = zip(hand.landmarks, mirrored.landmarks).map { a, b in
            var l = a
            (l.x, l.y, l.z) = ((a.x + 1 - b.x) / 2, (a.y + b.y) / 2, (a.z + b.z) / 2)
            return l
        }
        hand.worldLandmarks = zip(hand.worldLandmarks, mirrored.worldLandmarks).map { a, b in
            var l = a
            (l.x, l.y, l.z) = ((a.x - b.x) / 2, (a.y + b.y) / 2, (a.z + b.z) / 2)
            return l
        }
        hand.handednessScore = (hand.handednessScore + 1 - mirrored.handednessScore) / 2
        hand.presenceScore = (hand.presenceScore + mirrored.presenceScore) / 2
        return hand
    }
}
