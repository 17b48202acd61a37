import Foundation
import Testing
@testable import BlazeStages

@Suite struct PalmAnchorAndDecodingTests {
    @Test func palmAnchorsAre2016FixedSizeInEmissionOrder() {
        let anchors = SSDAnchorGenerator.anchors(for: .palmDetection)
        #expect(anchors.count == 2016)
        #expect(anchors.allSatisfy { $0.width == 1 && $0.height == 1 })
        // Stride 8: 24×24 cells × 2 anchors; the two anchors of a cell share its center.
        #expect(close(anchors[0].xCenter, 0.5 / 24) && close(anchors[0].yCenter, 0.5 / 24))
        #expect(anchors[1] == anchors[0])
        #expect(close(anchors[2].xCenter, 1.5 / 24) && close(anchors[2].yCenter, 0.5 / 24))
        #expect(close(anchors[1151].xCenter, 23.5 / 24) && close(anchors[1151].yCenter, 23.5 / 24))
        // Strides 16, 16, 16 merge into one 12×12 map with 6 anchors per cell.
        #expect(close(anchors[1152].xCenter, 0.5 / 12) && close(anchors[1152].yCenter, 0.5 / 12))
        #expect(anchors[1157] == anchors[1152])
        #expect(close(anchors[1158].xCenter, 1.5 / 12))
        #expect(close(anchors[2015].xCenter, 11.5 / 12) && close(anchors[2015].yCenter, 11.5 / 12))
    }

    @Test func palmDecoderConfiguration() {
        let d = DetectionDecoder.palmDetection(minScore: 0.6)
        #expect(d.numBoxes == 2016 && d.numCoords == 18 && d.numKeypoints == 7 && d.keypointCoordOffset == 4)
        #expect(d.xScale == 192 && d.yScale == 192 && d.wScale == 192 && d.hScale == 192)
        #expect(d.reverseOutputOrder && d.sigmoidScore && d.scoreClippingThreshold == 100 && d.minScoreThreshold == 0.6)
    }

    @Test func decodesBoxAndSevenKeypointsRelativeToTheAnchor() throws {
        let anchors = SSDAnchorGenerator.anchors(for: .palmDetection)
        var boxes = [Float](repeating: 0, count: 2016 * 18)
        var scores = [Float](repeating: -10, count: 2016)
        let i = 1152 + 6 * 13 + 2           // stride-16 map, cell (x 1, y 1) → center (1.5/12, 1.5/12)
        scores[i] = 2
        let o = i * 18
        boxes[o] = 19.2; boxes[o + 1] = -9.6; boxes[o + 2] = 38.4; boxes[o + 3] = 57.6   // x, y, w, h (px of 192)
        for k in 0..<7 { boxes[o + 4 + 2 * k] = Float(k) * 1.92; boxes[o + 5 + 2 * k] = -Float(k) * 1.92 }
        let decoded = try withBuffers(boxes, scores) { b, s in
            try DetectionDecoder.palmDetection(minScore: 0.5).decode(rawBoxes: b, rawScores: s, anchors: anchors)
        }
        #expect(decoded.count == 1)
        let d = try #require(decoded.first)
        let cx: Float = 1.5 / 12 + 0.1, cy: Float = 1.5 / 12 - 0.05
        #expect(close(d.score, 1 / (1 + exp(-2))))
        #expect(close(d.xmin, cx - 0.1) && close(d.width, 0.2))
        #expect(close(d.ymin, cy - 0.15) && close(d.height, 0.3))
        #expect(d.keypoints.count == 7)
        for k in 0..<7 {
            #expect(close(d.keypoints[k], SIMD2(1.5 / 12 + Float(k) * 0.01, 1.5 / 12 - Float(k) * 0.01)))
        }
        // Below the threshold: nothing.
        let none = try withBuffers(boxes, scores) { b, s in
            try DetectionDecoder.palmDetection(minScore: 0.9).decode(rawBoxes: b, rawScores: s, anchors: anchors)
        }
        #expect(none.isEmpty)
    }
}

@Suite struct PalmROITests {
    // 200×100 image; palm box 40×20 px centered at (100, 50); wrist below the middle-finger MCP.
    let palm = Detection(score: 0.9, xmin: 0.4, ymin: 0.4, width: 0.2, height: 0.2,
                         keypoints: [SIMD2(0.5, 0.6), SIMD2(0.45, 0.5), SIMD2(0.5, 0.4),
                                     .zero, .zero, .zero, .zero])

    @Test func tasksTargetAngleIsNinetyRadians() {
        let target = BoundingBoxRect.palmDetection.targetAngle
        #expect(target == 90)
        #expect(close(normalizeRadians(target), Float(90 - 28 * Double.pi), 1e-5))
        #expect(close(BoundingBoxRect.palmDetectionLegacy.targetAngle, .pi / 2))
    }

    @Test func legacyRectIsUprightAndShiftedTowardTheFingers() throws {
        let rect = try #require(BoundingBoxRect.palmDetectionLegacy.rect(for: palm, imageWidth: 200, imageHeight: 100))
        #expect(close(rect.xCenter, 0.5) && close(rect.yCenter, 0.5))
        #expect(close(rect.width, 0.2) && close(rect.height, 0.2))
        #expect(close(rect.rotation, 0))
        let roi = RectTransformation.palmDetectionToROI.apply(to: rect, imageWidth: 200, imageHeight: 100)
        // shift −0.5·20 px up; square on the long side (40 px) → 0.2 × 0.4; ×2.6
        #expect(close(roi.xCenter, 0.5, 1e-5) && close(roi.yCenter, 0.4, 1e-5))
        #expect(close(roi.width, 0.52, 1e-5) && close(roi.height, 1.04, 1e-5))
        #expect(close(roi.width * 200, roi.height * 100, 1e-3))   // square in pixels
    }

    @Test func tasksROIIsRotatedByTheExtraAngleAndShiftedAlongIt() throws {
        let rect = try #require(BoundingBoxRect.palmDetection.rect(for: palm, imageWidth: 200, imageHeight: 100))
        let theta = Float(90 - 28 * Double.pi - Double.pi / 2)      // ≈ 0.46461
        #expect(close(rect.rotation, theta, 1e-5))
        let roi = RectTransformation.palmDetectionToROI.apply(to: rect, imageWidth: 200, imageHeight: 100)
        // offset = R(θ)·(0, −0.5·20 px) = (10·sin θ, −10·cos θ) px
        #expect(close(roi.xCenter, 0.5 + 10 * sin(theta) / 200, 1e-5))
        #expect(close(roi.yCenter, 0.5 - 10 * cos(theta) / 100, 1e-5))
        #expect(close(roi.width, 0.52, 1e-5) && close(roi.height, 1.04, 1e-5))
        #expect(roi.rotation == rect.rotation)
    }

    @Test func rotatedPalmRotationFollowsWristToMiddleMCP() throws {
        // Middle MCP to the right of the wrist (hand pointing right): legacy rotation +π/2 (clockwise).
        var d = palm
        d.keypoints[0] = SIMD2(0.4, 0.5)
        d.keypoints[2] = SIMD2(0.6, 0.5)
        let rect = try #require(BoundingBoxRect.palmDetectionLegacy.rect(for: d, imageWidth: 200, imageHeight: 100))
        #expect(close(rect.rotation, .pi / 2, 1e-6))
        let roi = RectTransformation.palmDetectionToROI.apply(to: rect, imageWidth: 200, imageHeight: 100)
        // The shift (0, −10 px) in the rect frame becomes (+10, 0) px in the image: toward the fingers.
        #expect(close(roi.xCenter, 0.55, 1e-5) && close(roi.yCenter, 0.5, 1e-5))
        #expect(BoundingBoxRect.palmDetectionLegacy.rect(for: Detection(score: 1, xmin: 0, ymin: 0, width: 1, height: 1),
                                                         imageWidth: 10, imageHeight: 10) == nil)
    }
}

@Suite struct HandLandmarkDecodingTests {
    @Test func handednessFollowsTheTasksLabelMap() {
        #expect(HandednessCategory.fromRawScore(0.9) == HandednessCategory(index: 0, score: 0.9, categoryName: "Right", displayName: "Right"))
        let left = HandednessCategory.fromRawScore(0.2)
        #expect(left.index == 1 && left.categoryName == "Left" && left.displayName == "Left" && close(left.score, 0.8))
        #expect(HandednessCategory.fromRawScore(0.5).index == 0)          // tie → first class
        #expect(HandednessCategory.fromRawScore(.nan).index == 0)
    }

    @Test func landmarksAreProjectedThroughARotatedROIAndWorldLandmarksRotated() throws {
        var raw = [Float](repeating: 0, count: 63)
        var world = [Float](repeating: 0, count: 63)
        // Landmark 0 at crop (0.75, 0.5), z = 22.4 px → 22.4/224/0.4 = 0.25; landmark 1 at the crop center.
        raw[0] = 168; raw[1] = 112; raw[2] = 22.4
        raw[3] = 112; raw[4] = 112
        world[0] = 1; world[1] = 0; world[2] = 2
        let roi = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5, rotation: .pi / 2)
        let presence: [Float] = [0.7], handedness: [Float] = [0.1]
        let decoding = try raw.withUnsafeBufferPointer { l in
            try world.withUnsafeBufferPointer { w in
                try withBuffers(presence, handedness) { p, h in
                    try HandLandmarkDecoder().decode(landmarks: l, presence: p, handedness: h, worldLandmarks: w, roi: roi)
                }
            }
        }
        #expect(decoding.landmarks.count == 21 && decoding.worldLandmarks.count == 21 && decoding.cropLandmarks.count == 21)
        #expect(close(decoding.cropLandmarks[0].x, 0.75) && close(decoding.cropLandmarks[0].z, 0.25))
        // (dx, dy) = (0.25, 0) rotated 90° clockwise → (0, 0.25), × 0.5 + center
        #expect(close(decoding.landmarks[0].x, 0.5) && close(decoding.landmarks[0].y, 0.625))
        #expect(close(decoding.landmarks[0].z, 0.125))
        #expect(decoding.landmarks[0].visibility == nil && decoding.landmarks[0].presence == nil)
        #expect(close(decoding.landmarks[1].x, 0.5) && close(decoding.landmarks[1].y, 0.5))
        #expect(close(decoding.worldLandmarks[0].x, 0) && close(decoding.worldLandmarks[0].y, 1) && decoding.worldLandmarks[0].z == 2)
        #expect(decoding.presenceScore == 0.7 && decoding.handednessScore == 0.1)
        #expect(decoding.handedness.categoryName == "Left")
        #expect(decoding.isHandPresent(threshold: 0.5) && !decoding.isHandPresent(threshold: 0.7))
    }
}

@Suite struct HandDeduplicationTests {
    /// A synthetic hand: 21 landmarks spread over a `size`-wide square at `(x, y)`.
    func hand(_ x: Float, _ y: Float, size: Float = 0.2) -> [NormalizedLandmark] {
        (0..<21).map { i in
            NormalizedLandmark(x: x + size * Float(i % 5) / 4, y: y + size * Float(i / 5) / 4)
        }
    }

    @Test func overlappingDuplicateIsRemovedAndEarlierHandKept() {
        let a = hand(0.2, 0.2), duplicate = hand(0.21, 0.2), far = hand(0.6, 0.6)
        #expect(HandDeduplication.retainedIndices(of: [a, duplicate, far], imageWidth: 100, imageHeight: 100) == [0, 2])
        #expect(HandDeduplication.retainedIndices(of: [duplicate, a], imageWidth: 100, imageHeight: 100) == [0])
        #expect(HandDeduplication.deduplicate(["a", "dup"], imageWidth: 100, imageHeight: 100) { $0 == "a" ? a : duplicate } == ["a"])
    }

    @Test func bothConditionsAreRequired() {
        let a = hand(0.2, 0.2)
        // Same box (IoU 1) but landmarks permuted: fewer than 10 landmarks match.
        var shuffled = a
        shuffled.reverse()
        #expect(HandDeduplication.retainedIndices(of: [a, shuffled], imageWidth: 100, imageHeight: 100) == [0, 1])
        // Landmark k sits at 5 px·(k % 5, k / 5): wrist (0, 0), index MCP (0, 5), pinky MCP (10, 15) →
        // baseline = max(5, √200, √325) = √325 px.
        let baseline = HandDeduplication.baselineDistance(a, imageWidth: 100, imageHeight: 100)
        #expect(close(baseline, Float(325).squareRoot(), 1e-4))
        let shifted = hand(0.2 + 0.9 * baseline * 0.2 / 100, 0.2)                    // every landmark 0.9·threshold away
        #expect(HandDeduplication.retainedIndices(of: [a, shifted], imageWidth: 100, imageHeight: 100) == [0])
        let farther = hand(0.2 + 1.1 * baseline * 0.2 / 100, 0.2)
        #expect(HandDeduplication.retainedIndices(of: [a, farther], imageWidth: 100, imageHeight: 100) == [0, 1])
    }

    @Test func landmarkBoxIoU() {
        let a = (left: Float(0), top: Float(0), right: Float(1), bottom: Float(1))
        let b = (left: Float(0.5), top: Float(0), right: Float(1.5), bottom: Float(1))
        #expect(close(HandDeduplication.intersectionOverUnion(a, b), 0.5 / 1.5))
        #expect(HandDeduplication.intersectionOverUnion(a, (left: 2, top: 2, right: 3, bottom: 3)) == 0)
        #expect(HandDeduplication.intersectionOverUnion(a, (left: 0, top: 0, right: 0, bottom: 1)) == 0)
    }
}

@Suite struct HandTopologyTests {
    @Test func namesAndConnections() {
        #expect(HandLandmarkName.allCases.count == 21)
        #expect(HandLandmarkName.thumbTip.rawValue == 4 && HandLandmarkName.middleFingerMCP.rawValue == 9)
        #expect(HandLandmarkName.ringFingerTip.rawValue == 16 && HandLandmarkName.pinkyTip.rawValue == 20)
        #expect(HandSkeleton.connections.count == 21)
        #expect(Set(HandSkeleton.connections).count == 21)
        #expect(HandSkeleton.connections.contains(HandConnection(start: 0, end: 5)))
    }
}
