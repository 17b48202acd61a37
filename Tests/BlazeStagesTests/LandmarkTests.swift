import Foundation
import Testing
@testable import BlazeStages

@Suite struct HeatmapRefinementTests {
    /// 64×64×3 heatmap, background logit −100 (sigmoid exactly 0 in Float).
    func heatmap(_ peaks: [(row: Int, col: Int, channel: Int, logit: Float)]) -> [Float] {
        var h = [Float](repeating: -100, count: 64 * 64 * 3)
        for p in peaks { h[(p.row * 64 + p.col) * 3 + p.channel] = p.logit }
        return h
    }

    func refine(_ landmarks: [NormalizedLandmark], _ map: [Float]) throws -> [NormalizedLandmark] {
        try map.withUnsafeBufferPointer {
            try PoseLandmarkDecoder().refineWithHeatmap(landmarks, heatmap: $0, heatmapHeight: 64, heatmapWidth: 64)
        }
    }

    @Test func movesToTheWeightedPeakInsideTheKernel() throws {
        let map = heatmap([(20, 30, 1, 5), (20, 31, 1, 5), (23, 33, 1, 5), (24, 30, 1, 9)])   // last one is outside ±3
        let input = [NormalizedLandmark(x: 0.1, y: 0.1),
                     NormalizedLandmark(x: 30.2 / 64, y: 20.9 / 64, z: 0.3, visibility: 0.6, presence: 0.7),
                     NormalizedLandmark(x: 0.5, y: 0.5)]
        let out = try refine(input, map)
        // three equal weights at cols 30, 31, 33 and rows 20, 20, 23 (integer cell indices, no +0.5)
        #expect(close(out[1].x, (30 + 31 + 33) / 3 / 64, 1e-6))
        #expect(close(out[1].y, (20 + 20 + 23) / 3 / 64, 1e-6))
        #expect(out[1].z == 0.3 && out[1].visibility == 0.6 && out[1].presence == 0.7)
        #expect(out[0] == input[0] && out[2] == input[2])   // no confident cell → unchanged
    }

    @Test func lowConfidenceIsNotRefined() throws {
        let map = heatmap([(10, 10, 0, -0.1)])   // σ(−0.1) < 0.5
        let input = [NormalizedLandmark(x: 11 / 64, y: 11 / 64), NormalizedLandmark(x: 0, y: 0), NormalizedLandmark(x: 0, y: 0)]
        #expect(try refine(input, map) == input)
        let exact = heatmap([(10, 10, 0, 0)])    // σ(0) = 0.5 ≥ 0.5 → refined
        #expect(close(try refine(input, exact)[0].x, 10 / 64))
    }

    @Test func cppTruncationAndTheRowCheckQuirk() throws {
        let map = heatmap([(5, 1, 0, 4), (62, 40, 1, 4), (40, 62, 2, 4)])
        let input = [
            NormalizedLandmark(x: -0.005, y: 5.5 / 64),     // x·64 = −0.32 → int 0 (toward zero): refined
            NormalizedLandmark(x: 40.5 / 64, y: 64.5 / 64), // row 64 is not rejected (MediaPipe checks col ≥ H)
            NormalizedLandmark(x: 64.5 / 64, y: 40.5 / 64), // col 64 is rejected
        ]
        let out = try refine(input, map)
        #expect(close(out[0].x, 1 / 64) && close(out[0].y, 5 / 64))
        #expect(close(out[1].x, 40 / 64) && close(out[1].y, 62 / 64))
        #expect(out[2] == input[2])
        // far below the map the clipped window is empty: unchanged; NaN is skipped.
        let far = [NormalizedLandmark(x: 0.5, y: 2), NormalizedLandmark(x: .nan, y: 0.5), NormalizedLandmark(x: 0.5, y: -1)]
        let farOut = try refine(far, map)
        #expect(farOut[0] == far[0] && farOut[1].x.isNaN && farOut[2] == far[2])
    }
}

@Suite struct ProjectionTests {
    @Test func landmarkProjectionUnderRotation() {
        let roi = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5, rotation: .pi / 2)
        // The crop's right edge (+x) points down in the image when the ROI is turned 90° clockwise.
        let p = LandmarkProjection.project(NormalizedLandmark(x: 1, y: 0.5, z: 0.1, visibility: 0.4, presence: 0.3), onto: roi)
        #expect(close(p.x, 0.5) && close(p.y, 0.75) && close(p.z, 0.05))
        #expect(p.visibility == 0.4 && p.presence == 0.3)
        let top = LandmarkProjection.project(NormalizedLandmark(x: 0.5, y: 0), onto: roi)   // crop top → image right
        #expect(close(top.x, 0.75) && close(top.y, 0.5))
        let plain = LandmarkProjection.project(NormalizedLandmark(x: 0.25, y: 1),
                                               onto: NormalizedRect(xCenter: 0.4, yCenter: 0.6, width: 0.2, height: 0.3))
        #expect(close(plain.x, 0.35) && close(plain.y, 0.75))
    }

    @Test func worldLandmarksRotateAboutZOnly() {
        let roi = NormalizedRect(xCenter: 0.3, yCenter: 0.3, width: 0.1, height: 0.1, rotation: .pi / 2)
        let w = WorldLandmarkProjection.rotate(Landmark(x: 1, y: 0.5, z: 0.3, visibility: 0.9, presence: 0.8), by: roi)
        #expect(close(w.x, -0.5) && close(w.y, 1) && w.z == 0.3 && w.visibility == 0.9 && w.presence == 0.8)
    }
}

@Suite struct PoseLandmarkDecoderTests {
    @Test func decodesSplitsProjectsAndRotates() throws {
        var raw = [Float](), world = [Float]()
        for i in 0..<39 {
            raw += [128 + Float(i), 64, 10 * Float(i), 0, 2]
            world += [0.01 * Float(i), 0.02 * Float(i), 0.03 * Float(i)]
        }
        let heatmap = [Float](repeating: -100, count: 64 * 64 * 39)
        let roi = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5, rotation: .pi / 2)
        let decoded = try raw.withUnsafeBufferPointer { lm in
            try [Float(0.7)].withUnsafeBufferPointer { presence in
                try heatmap.withUnsafeBufferPointer { hm in
                    try world.withUnsafeBufferPointer { wl in
                        try PoseLandmarkDecoder().decode(landmarks: lm, presence: presence, heatmap: hm,
                                                         worldLandmarks: wl, roi: roi)
                    }
                }
            }
        }
        #expect(decoded.presenceScore == 0.7)
        #expect(decoded.isPosePresent(threshold: 0.5) && !decoded.isPosePresent(threshold: 0.7))  // strict >
        #expect(decoded.cropLandmarks.count == 39 && decoded.landmarks.count == 33)
        #expect(decoded.auxiliaryLandmarks.count == 2 && decoded.worldLandmarks.count == 33)
        let sigmoid2 = 1 / (1 + exp(Float(-2)))
        // crop space: x = raw/256, z = raw/256, visibility σ(0), presence σ(2)
        #expect(decoded.cropLandmarks[38] == NormalizedLandmark(x: 166 / 256, y: 0.25, z: 380 / 256, visibility: 0.5, presence: sigmoid2))
        // landmark 0: crop (0.5, 0.25) → 0.25 "up" in the ROI → image right of center
        let l0 = decoded.landmarks[0]
        #expect(close(l0.x, 0.625) && close(l0.y, 0.5) && l0.z == 0 && l0.visibility == 0.5 && l0.presence == sigmoid2)
        // auxiliary landmark 33: crop (161/256, 0.25)
        let aux = decoded.auxiliaryLandmarks[0]
        #expect(close(aux.x, 0.625) && close(aux.y, 0.5 + 33 / 512) && close(aux.z, 330 / 256 * 0.5))
        #expect(close(decoded.landmarks[32].y, 0.5 + 32 / 512))
        // world landmark 10: (0.1, 0.2, 0.3) rotated by +90° → (−0.2, 0.1, 0.3), visibility copied
        let w10 = decoded.worldLandmarks[10]
        #expect(close(w10.x, -0.2) && close(w10.y, 0.1) && close(w10.z, 0.3))
        #expect(w10.visibility == 0.5 && w10.presence == sigmoid2)
    }

    @Test func rejectsShortTensors() {
        #expect(throws: PoseLandmarkDecoderError.tensorTooShort(name: "landmarks", expected: 195, actual: 10)) {
            try [Float](repeating: 0, count: 10).withUnsafeBufferPointer { try PoseLandmarkDecoder().cropLandmarks(fromRaw: $0) }
        }
    }
}

@Suite struct SegmentationAndTopologyTests {
    @Test func maskIsTheSigmoidOfTheLogits() {
        let out = [Float(0), 2, -2, -100, 100].withUnsafeBufferPointer { SegmentationMaskDecoder.probabilities(fromLogits: $0) }
        #expect(out[0] == 0.5 && close(out[1], 0.880797) && close(out[2], 0.119203) && out[3] == 0 && out[4] == 1)
    }

    /// Mirroring exchanges each left landmark with its right twin, by name, and leaves the nose.
    @Test func mirroredLandmarksAreTheOtherSidesByName() {
        #expect(PoseLandmarkName.nose.mirrored == .nose)
        for name in PoseLandmarkName.allCases where name != .nose {
            let text = "\(name)", other = "\(name.mirrored)"
            let swapped = text.contains("left") ? text.replacingOccurrences(of: "left", with: "right")
                : text.contains("Left") ? text.replacingOccurrences(of: "Left", with: "Right")
                : text.contains("right") ? text.replacingOccurrences(of: "right", with: "left")
                : text.replacingOccurrences(of: "Right", with: "Left")
            #expect(other == swapped, "\(name) mirrors to \(name.mirrored)")
            #expect(name.mirrored.mirrored == name)
        }
    }

    @Test func poseTopology() {
        #expect(PoseLandmarkName.allCases.count == 33)
        #expect(PoseLandmarkName.nose.rawValue == 0 && PoseLandmarkName.leftShoulder.rawValue == 11)
        #expect(PoseLandmarkName.leftHip.rawValue == 23 && PoseLandmarkName.rightFootIndex.rawValue == 32)
        #expect(PoseLandmarkName.allCases.map(\.rawValue) == Array(0..<33))
        let connections = PoseSkeleton.connections
        #expect(connections.count == 35 && Set(connections).count == 35)
        #expect(connections.allSatisfy { $0.start < 33 && $0.end < 33 && $0.start < $0.end })
        #expect(connections.first == PoseConnection(start: 0, end: 1) && connections.last == PoseConnection(start: 28, end: 32))
        #expect(connections.contains(PoseConnection(start: 11, end: 23)) && !connections.contains(PoseConnection(start: 0, end: 9)))
    }
}
