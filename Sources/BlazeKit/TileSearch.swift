import BlazeImage
import BlazeKernels
import BlazeModelFormat
import BlazeRuntime
import BlazeStages

/// What the accurate modes' tiled searches share: the pyramid of square tiles a detector runs over, the
/// cursor that spreads it over video frames, and the mirrored copy of a frame for flip averaging.
enum TileSearch {
    /// Squares of side `firstSide`, doubling while under `maxFraction` of the image's long side (and at
    /// most its short side), spread evenly from edge to edge so that horizontal neighbours overlap by at
    /// least `overlapX` of a tile and vertical ones by `overlapY`; normalized to the `width × height` image.
    static func pyramid(width: Int, height: Int, firstSide: Float, maxFraction: Float,
                        overlapX: Float, overlapY: Float) -> [NormalizedRect] {
        let w = Float(width), h = Float(height)
        let shortSide = min(w, h), longSide = max(w, h)
        var side = firstSide
        var rects: [NormalizedRect] = []
        while side < longSide * maxFraction {
            let s = min(side, shortSide)
            let strideX = s * (1 - overlapX), strideY = s * (1 - overlapY)
            let nx = w <= s ? 1 : Int(((w - s) / strideX).rounded(.up)) + 1
            let ny = h <= s ? 1 : Int(((h - s) / strideY).rounded(.up)) + 1
            for j in 0..<ny {
                let cy = ny == 1 ? h / 2 : s / 2 + Float(j) * (h - s) / Float(ny - 1)
                for i in 0..<nx {
                    let cx = nx == 1 ? w / 2 : s / 2 + Float(i) * (w - s) / Float(nx - 1)
                    rects.append(NormalizedRect(xCenter: cx / w, yCenter: cy / h, width: s / w, height: s / h))
                }
            }
            if s >= shortSide { break }
            side *= 2
        }
        return rects
    }

    /// The tiles of a pyramid handed out a few per video frame, cycling, so the whole pyramid is searched
    /// over a few frames at a bounded cost per frame.
    struct Cycle {
        private var cursor = 0

        /// The next `count` of `tiles` (all of them when fewer), after the ones handed out last.
        mutating func next(_ count: Int, of tiles: [NormalizedRect]) -> [NormalizedRect] {
            guard !tiles.isEmpty else { return [] }
            let n = min(count, tiles.count)
            let picked = (0..<n).map { tiles[(cursor + $0) % tiles.count] }
            cursor = (cursor + n) % tiles.count
            return picked
        }

        mutating func reset() { cursor = 0 }
    }

    /// `image` (upright) mirrored left to right, as BlazeImage shows an `.upMirrored` image.
    static func mirrored(_ image: Image) throws -> Image {
        var flipped = image
        flipped.orientation = .upMirrored
        return try flipped.oriented()
    }

    /// A detector stage the tiled searches run: the pose and the palm detectors.
    protocol Detector: AnyObject {
        init(model: ModelFile, workers: WorkerPool, planning: Planning) throws
        func detect(in image: Image, rect: NormalizedRect, minScore: Float) throws -> [Detection]
    }

    /// A detector on the pipeline's threads and, on several threads, single-threaded copies (at most
    /// ``maxLanes``) that run several inputs at once, one thread each: a detector's second thread pays only
    /// 1.7–1.8× on one input (pose_detection; palm_detection 1.9×), two inputs at once 2×.
    struct Lanes<D: Detector> {
        let shared: D
        let lanes: [D]
        let workers: WorkerPool

        /// The most single-threaded copies (each holds its own packed weights and activations).
        static var maxLanes: Int { 4 }

        init(model: ModelFile, workers: WorkerPool, planning: Planning) throws {
            shared = try D(model: model, workers: workers, planning: planning)
            let count = workers.threadCount > 1 ? min(workers.threadCount, Self.maxLanes) : 0
            lanes = try (0..<count).map { _ in try D(model: model, workers: WorkerPool(threadCount: 1), planning: planning) }
            self.workers = workers
        }

        /// The detections in each of `rects`, in their order: the lanes take the rects in turn. The same
        /// detections as `shared` on all threads (the runtime's bits do not depend on the thread count),
        /// concatenated in the same order.
        func detections(in image: Image, rects: [NormalizedRect], minScore: Float) throws -> [Detection] {
            let count = lanes.count
            guard count > 1, rects.count > 1 else {
                return try rects.flatMap { try shared.detect(in: image, rect: $0, minScore: minScore) }
            }
            var found = [[Detection]](repeating: [], count: rects.count)
            var failures = [(any Error)?](repeating: nil, count: count)
            found.withUnsafeMutableBufferPointer { found in
                failures.withUnsafeMutableBufferPointer { failures in
                    workers.parallelFor(count) { lane in
                        do {
                            for i in stride(from: lane, to: rects.count, by: count) {
                                found[i] = try lanes[lane].detect(in: image, rect: rects[i], minScore: minScore)
                            }
                        } catch {
                            failures[lane] = error
                        }
                    }
                }
            }
            if let failure = failures.lazy.compactMap({ $0 }).first { throw failure }
            return found.flatMap { $0 }
        }
    }
}

extension PoseDetectorStage: TileSearch.Detector {}
extension PalmDetectorStage: TileSearch.Detector {}
