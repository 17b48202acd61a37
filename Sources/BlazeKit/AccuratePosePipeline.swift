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

/// The pose pipeline of the accurate mode (``PoseAccurateMode``): the same two networks as
/// ``PosePipeline``, driven differently. Chosen only when `accurateMode` is set, so the default pipeline
/// is untouched.
///
/// A photo: the detector on the whole image (as MediaPipe), then on overlapping square tiles at several
/// scales (the smallest about `tileToPerson ×` the smallest person height), all detections merged by
/// weighted NMS in image coordinates; each candidate, best first, goes through the landmark network on
/// the full-resolution image (optionally averaged with the mirrored crop), then again on the region its
/// own landmarks give (refinement); a person whose landmarks match one already kept is dropped. When that
/// yields fewer than `numPoses` people, the detector also looks at the image rotated by 90°, 180°, 270°,
/// then at the image zoomed out (a square 1.5 × its long side around it) at the four rotations; a photo
/// too small for any tile that still yields no one, on zoomed-in tiles (``zoomedInTiles(width:height:)``).
///
/// Video and live stream: MediaPipe's tracker carries the people from frame to frame; when the detector
/// must run, it runs on the whole image and on the next few tiles only (a bounded cost per frame), so the
/// whole pyramid is searched over a few frames.
final class AccuratePosePipeline: TaskPipeline {
    typealias Result = PoseLandmarkerResult

    /// Tile side / smallest person height: the detector sees a person of the smallest height at about
    /// 224 / tileToPerson pixels.
    /// (Measured on the dev sets: 2.5 finds more 60–90 px people at twice the tiles; 4 and more miss
    /// people at the smallest height.)
    static let tileToPerson: Float = 3
    /// Fraction of a tile its horizontal neighbours overlap (people are narrower than tall).
    static let tileOverlap: Float = 0.2
    /// Fraction of a tile its vertical neighbours overlap.
    static let tileOverlapY: Float = 0.35
    /// Tiles stop at this fraction of the image's long side (the whole-image pass finds larger people).
    static let maxTileFraction: Float = 0.75
    /// The zoomed-out pass sees a square this many times the image's long side, the image in its middle.
    static let zoomOut: Float = 1.5
    /// The zoomed-in search's smallest tiles, as a fraction of the photo's short side. On PARSE (100 photos,
    /// 100–300 px) a third found 5 of the 7 athletes nobody else found, against 3 for a half; on LSP (500
    /// photos) 7 more of 500 people. Photos with tiles (minicoco's 640×480, 1080p frames) never run it.
    static let zoomIn: Float = 1 / 3
    /// Tiles searched per video frame when the detector runs.
    static let tilesPerVideoFrame = 8
    /// The most the mirrored pass's body landmarks may differ from the direct pass's (mean distance in units
    /// of the pose's size) for the pose to count as a person. Measured on the dev sets: people found are at
    /// 0.01–0.07, most false poses above 0.15 (or the mirrored pass finds no one at all).
    static let maxFlipDisagreement: Float = 0.15
    /// Half-width of the grey capsules that paint found people out for the masked retry, in units of the
    /// person's size (0.05 found more people than 0.08 or 0.12 on minicoco).
    static let maskedLimbRadius: Float = 0.05
    /// Radius of the disc that paints a found person's face out before the detector looks again, in units of
    /// the person's size (0.2 found more people on minicoco than 0.12; 0.3 no more than 0.2).
    static let maskedHeadRadius: Float = 0.2
    /// A landmark whose direct and mirrored positions are this far apart (in units of the pose's size) gets
    /// visibility 0. On LSP (500 photos) visibility × (1 − distance / 0.1) tells a correct landmark (within
    /// 0.2 of the torso) from a wrong one with AUC 0.84, against 0.71 for the network's visibility alone, and
    /// a labelled-occluded joint from a visible one with 0.76 against 0.68.
    static let guessDistance: Float = 0.1
    /// A pose whose presence, scaled by the passes' agreement, falls under this (or under 0.8 × the presence
    /// threshold, if lower) is dropped. On the dev sets' poses: 1 of 6 false poses on small_people (a pose
    /// hanging off a person's feet), 1 of 13 on minicoco and 3 of 211 on LSP are under 0.4, against 1 of 2,264
    /// true ones (a wrong pose: PCK under 0.5); under 0.5 there are also 12 false ones on LSP, and one true
    /// one on minicoco.
    static let minimumAgreedPresence: Float = 0.4
    /// Mean landmark distance (in units of the person's size) under which two poses are one person.
    static let duplicateDistance: Float = 0.2

    private let detectors: TileSearch.Lanes<PoseDetectorStage>
    private var detector: PoseDetectorStage { detectors.shared }
    private let landmarkStage: PoseLandmarkStage
    private let mode: PoseAccurateMode
    private let segmentation: Bool
    private let presenceThreshold: Float
    private let minScore: Float
    private let numPoses: Int
    private var tracker: PoseTracker
    private var tileCycle = TileSearch.Cycle()
    let workers: WorkerPool

    init(options: PoseLandmarkerOptions, mode: PoseAccurateMode, resources: TaskResources) throws {
        guard mode.smallestPersonHeight >= PoseAccurateMode.smallestAcceptedPersonHeight else {
            throw TaskError.invalidOption(name: "accurateMode.smallestPersonHeight", expected: ">= \(PoseAccurateMode.smallestAcceptedPersonHeight)",
                                          actual: "\(mode.smallestPersonHeight)")
        }
        workers = resources.workers
        detectors = try TileSearch.Lanes(model: resources.model("detector"), workers: workers, planning: resources.planning)
        segmentation = options.shouldOutputSegmentationMasks
        landmarkStage = try PoseLandmarkStage(model: resources.model("landmarks"), workers: workers, segmentation: segmentation,
                                              planning: resources.planning)
        tracker = PoseTracker(numPoses: options.numPoses, minTrackingConfidence: options.minTrackingConfidence)
        presenceThreshold = options.minPosePresenceConfidence
        minScore = options.minPoseDetectionConfidence
        numPoses = options.numPoses
        self.mode = mode
    }

    func resetTracking() {
        tracker.reset()
        tileCycle.reset()
    }

    var trackingStatistics: (frames: Int, detectorRuns: Int) { (tracker.frameCount, tracker.detectorRunCount) }

    func setIdleWork(_ work: (@Sendable () -> Bool)?) { workers.setIdleWork(work) }

    /// One found person.
    struct Person {
        var landmarks: [NormalizedLandmark]
        var worldLandmarks: [Landmark]
        var auxiliaryLandmarks: [NormalizedLandmark]
        var mask: [Float]?
        var roi: NormalizedRect
        /// Mean distance between the direct and mirrored passes' body landmarks, in units of the pose's
        /// size (0 without flip averaging).
        var flipDisagreement: Float = 0
    }

    func process(_ image: MPImage, timestampInMilliseconds: Int, tracking: Bool) throws -> PoseLandmarkerResult {
        var context = FrameContext(image: image)
        var people: [Person] = []
        if tracking {
            let regions = try tracker.regionsOfInterest { () throws -> [NormalizedRect] in
                let candidates = try search(&context, tiles: nextVideoTiles(for: image))
                return detector.regionsOfInterest(for: candidates, imageWidth: image.width, imageHeight: image.height)
            }
            for roi in regions { try consider(roi: roi, into: &people, context: &context) }
        } else {
            let candidates = try search(&context, tiles: mode.tiledSearch ? tiles(for: image) : [])
            try consider(candidates, into: &people, context: &context)
            if mode.maskedRetry, !people.isEmpty, people.count < numPoses {
                // The detector again on the whole image with the people found painted out, faces too (it keys
                // on faces). Not on the tiles: there it found mostly ghosts of the painted people.
                var masked = try Self.maskingOut(people, in: image, heads: true)
                try consider(try detector.detect(in: masked.image, rect: .fullImage, minScore: minScore), into: &people, context: &masked)
            }
            if mode.rotatedSearch && people.count < numPoses {
                let rotated = try detections(in: image, rects: (1...3).map { Self.rotatedFullImage(image, quarterTurns: $0) })
                try consider(NonMaxSuppression.weighted(rotated, iouThreshold: detector.nmsThreshold), into: &people, context: &context)
            }
            if mode.zoomedOutSearch && people.count < numPoses {
                let long = Float(max(image.width, image.height)) * Self.zoomOut
                let rects = (0..<4).map { quarterTurns in
                    var rect = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: long / Float(image.width), height: long / Float(image.height))
                    rect.rotation = Float(quarterTurns) * Float.pi / 2
                    return rect
                }
                let zoomed = try detections(in: image, rects: rects)
                try consider(NonMaxSuppression.weighted(zoomed, iouThreshold: detector.nmsThreshold), into: &people, context: &context)
            }
            if mode.zoomedInSearch && people.isEmpty && tiles(for: image).isEmpty {
                let found = try detections(in: image, rects: Self.zoomedInTiles(width: image.width, height: image.height))
                try consider(NonMaxSuppression.weighted(found, iouThreshold: detector.nmsThreshold), into: &people, context: &context)
            }
        }
        var result = PoseLandmarkerResult(timestampInMilliseconds: timestampInMilliseconds)
        var poses = people.map { PoseTracker.Pose(landmarks: $0.landmarks, worldLandmarks: $0.worldLandmarks, auxiliaryLandmarks: $0.auxiliaryLandmarks) }
        if tracking {
            poses = tracker.finishFrame(poses, imageWidth: image.width, imageHeight: image.height, timestampMilliseconds: timestampInMilliseconds)
        }
        result.landmarks = poses.map(\.landmarks)
        result.worldLandmarks = poses.map(\.worldLandmarks)
        if segmentation {
            result.segmentationMasks = people.compactMap { $0.mask.map { Mask(width: image.width, height: image.height, float32Data: $0) } }
        }
        return result
    }

    /// The image and, made when first needed, its mirror.
    struct FrameContext {
        let image: Image
        var mirrored: Image?
        /// For an image with people painted out (``maskingOut(_:in:heads:)``), which pixels were painted.
        var painted: [Bool]?

        init(image: Image, painted: [Bool]? = nil) {
            self.image = image
            self.painted = painted
        }

        /// Whether more than two thirds of `pose`'s body landmarks lie on painted pixels: a ghost of a painted-out person.
        func isOnPaintedPixels(_ pose: [NormalizedLandmark]) -> Bool {
            guard let painted else { return false }
            let w = image.width, h = image.height
            let on = AccuratePosePipeline.bodyLandmarks.filter { i in
                let x = pose[i].x * Float(w), y = pose[i].y * Float(h)
                guard x.isFinite, y.isFinite, x >= 0, y >= 0, x < Float(w), y < Float(h) else { return false }
                return painted[Int(y) * w + Int(x)]
            }.count
            return 3 * on > 2 * AccuratePosePipeline.bodyLandmarks.count
        }

        mutating func mirroredImage() throws -> Image {
            if let mirrored { return mirrored }
            let made = try TileSearch.mirrored(image)
            mirrored = made
            return made
        }
    }

    // MARK: - Finding people

    /// The whole image and `tiles`, merged by weighted NMS in image coordinates, best first.
    private func search(_ context: inout FrameContext, tiles: [NormalizedRect]) throws -> [Detection] {
        let all = try detector.detect(in: context.image, rect: .fullImage, minScore: minScore)
            + detections(in: context.image, rects: tiles)
        return tiles.isEmpty ? all : NonMaxSuppression.weighted(all, iouThreshold: detector.nmsThreshold)
    }

    /// The detector's detections in each of `rects`, in their order, several at a time on several threads.
    private func detections(in image: Image, rects: [NormalizedRect]) throws -> [Detection] {
        try detectors.detections(in: image, rects: rects, minScore: minScore)
    }

    /// The tile pyramid: squares of side `tileToPerson · smallestPersonHeight`, doubling, up to the
    /// image's short side (the whole-image pass covers larger people), overlapping by `tileOverlap`.
    func tiles(for image: Image) -> [NormalizedRect] {
        Self.tiles(width: image.width, height: image.height,
                   smallestPersonHeight: mode.searchedPersonHeight(width: image.width, height: image.height))
    }

    static func tiles(width: Int, height: Int, smallestPersonHeight: Int) -> [NormalizedRect] {
        // Tiles no smaller than a fraction of the long side: the whole-image pass already sees those people.
        TileSearch.pyramid(width: width, height: height, firstSide: tileToPerson * Float(smallestPersonHeight),
                           maxFraction: maxTileFraction, overlapX: tileOverlap, overlapY: tileOverlapY)
    }

    /// The zoomed-in search's tiles for a photo too small for the tile pyramid: squares of `zoomIn` of the
    /// short side, doubling while under the long side (at most the short side), neighbours overlapping by
    /// half: 41 on a 150×196 photo.
    static func zoomedInTiles(width: Int, height: Int) -> [NormalizedRect] {
        TileSearch.pyramid(width: width, height: height, firstSide: zoomIn * Float(min(width, height)), maxFraction: 1,
                           overlapX: 0.5, overlapY: 0.5)
    }

    /// The next `tilesPerVideoFrame` tiles of the pyramid, cycling.
    private func nextVideoTiles(for image: Image) -> [NormalizedRect] {
        mode.tiledSearch ? tileCycle.next(Self.tilesPerVideoFrame, of: tiles(for: image)) : []
    }

    /// The whole image turned by `quarterTurns` × 90° (the crop covers exactly the image).
    static func rotatedFullImage(_ image: Image, quarterTurns: Int) -> NormalizedRect {
        var rect = NormalizedRect.fullImage
        rect.rotation = Float(quarterTurns) * Float.pi / 2
        if quarterTurns % 2 == 1 {
            rect.width = Float(image.height) / Float(image.width)
            rect.height = Float(image.width) / Float(image.height)
        }
        return rect
    }

    /// Adds the people of `detections` (best first) not already in `people`, up to `numPoses`.
    private func consider(_ detections: [Detection], into people: inout [Person], context: inout FrameContext) throws {
        let image = context.image
        // Each candidate costs landmark passes: look at a bounded number of them.
        var budget = 2 * numPoses + 2
        var retry: [NormalizedRect] = []
        for roi in detector.regionsOfInterest(for: detections, imageWidth: image.width, imageHeight: image.height) {
            guard people.count < numPoses, budget > 0 else { break }
            // A region that is nearly the region of someone already found: the same person.
            if people.contains(where: { RegionAssociation.intersectionOverUnion($0.roi, roi) > 0.7 }) { retry.append(roi); continue }
            budget -= 1
            if try consider(roi: roi, into: &people, context: &context) == .samePerson { retry.append(roi) }
        }
        guard mode.maskedRetry, !retry.isEmpty else { return }
        var masked = try Self.maskingOut(people, in: image)
        var maskedCount = people.count
        for roi in retry {
            guard people.count < numPoses, budget > 0 else { break }
            budget -= 1
            if people.count != maskedCount {
                masked = try Self.maskingOut(people, in: image)
                maskedCount = people.count
            }
            _ = try consider(roi: roi, into: &people, context: &masked)
        }
    }

    /// `image` with each person of `people` painted over in grey: a capsule along each limb, the torso and
    /// the neck, as wide as a fraction of the person's size, and with `heads` a disc on the face.
    static func maskingOut(_ people: [Person], in image: Image, heads: Bool = false) throws -> FrameContext {
        let w = image.width, h = image.height
        var pixels = image.pixels
        var painted = [Bool](repeating: false, count: w * h)
        let limbs = [(11, 13), (13, 15), (12, 14), (14, 16), (23, 25), (25, 27), (24, 26), (26, 28), (11, 12), (23, 24),
                     (11, 23), (12, 24), (11, 24), (12, 23), (0, 11), (0, 12), (27, 31), (28, 32), (15, 19), (16, 20)]
        for person in people {
            let p = person.landmarks.map { SIMD2<Float>($0.x * Float(w), $0.y * Float(h)) }
            let xs = bodyLandmarks.map { p[$0].x }, ys = bodyLandmarks.map { p[$0].y }
            let size = max(xs.max()! - xs.min()!, ys.max()! - ys.min()!, 1)
            let radius = maskedLimbRadius * size
            var segments = limbs.map { ($0.0, $0.1, radius) }
            if heads { segments.append((0, 0, maskedHeadRadius * size)) }
            for (a, b, radius) in segments {
                let pa = p[a], pb = p[b]
                guard pa.x.isFinite, pa.y.isFinite, pb.x.isFinite, pb.y.isFinite else { continue }
                let x0 = max(0, Int(min(pa.x, pb.x) - radius)), x1 = min(w - 1, Int(max(pa.x, pb.x) + radius))
                let y0 = max(0, Int(min(pa.y, pb.y) - radius)), y1 = min(h - 1, Int(max(pa.y, pb.y) + radius))
                guard x0 <= x1, y0 <= y1 else { continue }
                let d = pb - pa, length2 = max((d * d).sum(), 1e-6)
                for y in y0...y1 {
                    for x in x0...x1 {
                        let q = SIMD2<Float>(Float(x) + 0.5, Float(y) + 0.5)
                        let t = min(max(((q - pa) * d).sum() / length2, 0), 1)
                        let e = q - (pa + t * d)
                        if (e * e).sum() <= radius * radius {
                            let i = (y * w + x) * 3
                            pixels[i] = 128; pixels[i + 1] = 128; pixels[i + 2] = 128
                            painted[y * w + x] = true
                        }
                    }
                }
            }
        }
        return FrameContext(image: try Image(rgb: pixels, width: w, height: h), painted: painted)
    }

    /// The person in `roi`, if any and new, added to `people`.
    enum Outcome { case added, noPerson, samePerson }

    @discardableResult
    private func consider(roi: NormalizedRect, into people: inout [Person], context: inout FrameContext) throws -> Outcome {
        guard var person = try pose(in: roi, context: &context) else { return .noPerson }
        if mode.refinement, let refined = NextFrameROI.pose(auxiliaryLandmarks: person.auxiliaryLandmarks,
                                                            imageWidth: context.image.width, imageHeight: context.image.height) {
            // The refined crop is the better one: when it finds no consistent person, neither does the first.
            if let second = try pose(in: refined, context: &context) {
                person = second
            } else {
                return .noPerson
            }
        }
        if context.isOnPaintedPixels(person.landmarks)
            || people.contains(where: { Self.isSamePerson($0.landmarks, person.landmarks, width: context.image.width, height: context.image.height) }) {
            return .samePerson
        }
        people.append(person)
        return .added
    }

    /// One landmark pass on `roi` (averaged with the mirrored pass when `flipAveraging`); nil when the
    /// network finds no person there.
    private func pose(in roi: NormalizedRect, context: inout FrameContext) throws -> Person? {
        guard let direct = try landmarkStage.landmarks(in: context.image, roi: roi, presenceThreshold: presenceThreshold,
                                                       segmentation: segmentation) else { return nil }
        var person = Person(landmarks: direct.decoding.landmarks, worldLandmarks: direct.decoding.worldLandmarks,
                            auxiliaryLandmarks: direct.decoding.auxiliaryLandmarks, mask: direct.mask, roi: roi)
        guard mode.flipAveraging else { return person }
        var mirroredROI = roi
        mirroredROI.xCenter = 1 - roi.xCenter
        mirroredROI.rotation = -roi.rotation
        guard let mirrored = try landmarkStage.landmarks(in: context.mirroredImage(), roi: mirroredROI,
                                                         presenceThreshold: presenceThreshold, segmentation: false) else {
            return nil
        }
        let m = mirrored.decoding
        let back = Self.swapSides(m.landmarks.map { var l = $0; l.x = 1 - l.x; return l })
        let backWorld = Self.swapSides(m.worldLandmarks.map { var l = $0; l.x = -l.x; return l })
        let backAux = m.auxiliaryLandmarks.map { var l = $0; l.x = 1 - l.x; return l }
        let w = context.image.width, h = context.image.height
        person.flipDisagreement = Self.disagreement(person.landmarks, back, w, h)
        if person.flipDisagreement > Self.maxFlipDisagreement { return nil }
        // Where the two passes disagree the network is guessing: each landmark's visibility drops with its own
        // disagreement, to 0 at `guessDistance` of the pose's size.
        let size = Self.size(of: person.landmarks, w, h)
        let agreements = zip(person.landmarks, back).map { d, m -> Float in
            let dx = (d.x - m.x) * Float(w), dy = (d.y - m.y) * Float(h)
            return max(0, 1 - (dx * dx + dy * dy).squareRoot() / size / Self.guessDistance)
        }
        person.landmarks = zip(person.landmarks, back).map(Self.mean)
        for i in person.landmarks.indices { person.landmarks[i].visibility = person.landmarks[i].visibility.map { $0 * agreements[i] } }
        person.worldLandmarks = zip(person.worldLandmarks, backWorld).map(Self.mean)
        person.auxiliaryLandmarks = zip(person.auxiliaryLandmarks, backAux).map(Self.mean)
        // A pose the mirrored pass places differently is less likely a person: its presence drops with the
        // disagreement (to half at the limit), so it ranks below the consistent ones.
        let agreement = 1 - person.flipDisagreement / (2 * Self.maxFlipDisagreement)
        for i in person.landmarks.indices { person.landmarks[i].presence = person.landmarks[i].presence.map { $0 * agreement } }
        // A pose the network was unsure of that the passes also place apart: more likely no one.
        if let presence = person.landmarks.first?.presence, presence < min(Self.minimumAgreedPresence, 0.8 * presenceThreshold) {
            return nil
        }
        return person
    }

    /// The longer side of the box of `pose`'s body landmarks, in pixels (at least 1).
    static func size(of pose: [NormalizedLandmark], _ width: Int, _ height: Int) -> Float {
        let xs = bodyLandmarks.map { pose[$0].x * Float(width) }, ys = bodyLandmarks.map { pose[$0].y * Float(height) }
        return max(xs.max()! - xs.min()!, ys.max()! - ys.min()!, 1)
    }

    /// Mean distance between `a`'s and `b`'s body landmarks, in units of `a`'s size.
    static func disagreement(_ a: [NormalizedLandmark], _ b: [NormalizedLandmark], _ width: Int, _ height: Int) -> Float {
        let w = Float(width), h = Float(height)
        let size = size(of: a, width, height)
        var total: Float = 0
        for i in bodyLandmarks {
            let dx = (a[i].x - b[i].x) * w, dy = (a[i].y - b[i].y) * h
            total += (dx * dx + dy * dy).squareRoot()
        }
        return total / Float(bodyLandmarks.count) / size
    }

    /// The landmarks with left and right exchanged (`PoseLandmarkName.mirrored`).
    static func swapSides<T>(_ landmarks: [T]) -> [T] {
        landmarks.indices.map { landmarks[PoseLandmarkName(rawValue: $0)?.mirrored.rawValue ?? $0] }
    }

    static func mean(_ a: NormalizedLandmark, _ b: NormalizedLandmark) -> NormalizedLandmark {
        NormalizedLandmark(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, z: (a.z + b.z) / 2,
                           visibility: mean(a.visibility, b.visibility), presence: mean(a.presence, b.presence))
    }

    static func mean(_ a: Landmark, _ b: Landmark) -> Landmark {
        Landmark(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, z: (a.z + b.z) / 2,
                 visibility: mean(a.visibility, b.visibility), presence: mean(a.presence, b.presence))
    }

    static func mean(_ a: Float?, _ b: Float?) -> Float? {
        guard let a, let b else { return a ?? b }
        return (a + b) / 2
    }

    /// The body landmarks compared to tell two poses apart: nose, shoulders, elbows, wrists, hips, knees, ankles.
    static let bodyLandmarks = [0, 11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28]

    /// Whether the middle of `b`'s hips lies inside `a`'s torso (the box of its shoulders and hips).
    static func hipsInsideTorso(_ a: [NormalizedLandmark], _ b: [NormalizedLandmark], _ w: Float, _ h: Float) -> Bool {
        let torso = [11, 12, 23, 24]
        let xs = torso.map { a[$0].x * w }, ys = torso.map { a[$0].y * h }
        let x = (b[23].x + b[24].x) / 2 * w, y = (b[23].y + b[24].y) / 2 * h
        return x >= xs.min()! && x <= xs.max()! && y >= ys.min()! && y <= ys.max()!
    }

    /// Whether two poses are one person: the middle of one's hips lies inside the other's torso, or their
    /// body landmarks are, on average, closer than
    /// `duplicateDistance` × the larger pose's size (the longer side of its landmarks' box, in pixels),
    /// compared as they are or with one pose's left and right exchanged (the same person seen facing the
    /// other way).
    static func isSamePerson(_ a: [NormalizedLandmark], _ b: [NormalizedLandmark], width: Int, height: Int) -> Bool {
        let w = Float(width), h = Float(height)
        func size(_ p: [NormalizedLandmark]) -> Float {
            let xs = bodyLandmarks.map { p[$0].x * w }, ys = bodyLandmarks.map { p[$0].y * h }
            return max(xs.max()! - xs.min()!, ys.max()! - ys.min()!)
        }
        let scale = max(size(a), size(b), 1)
        func meanDistance(_ b: [NormalizedLandmark]) -> Float {
            var total: Float = 0
            for i in bodyLandmarks {
                let dx = (a[i].x - b[i].x) * w, dy = (a[i].y - b[i].y) * h
                total += (dx * dx + dy * dy).squareRoot()
            }
            return total / Float(bodyLandmarks.count)
        }
        if hipsInsideTorso(a, b, w, h) || hipsInsideTorso(b, a, w, h) { return true }
        let distance = min(meanDistance(b), meanDistance(swapSides(b)))
        return distance < duplicateDistance * scale
    }
}
