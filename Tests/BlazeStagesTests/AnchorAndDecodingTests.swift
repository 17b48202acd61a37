import Testing
@testable import BlazeStages

@Suite struct SSDAnchorTests {
    let anchors = SSDAnchorGenerator.anchors(for: .poseDetection)

    @Test func poseDetectorHas2254FixedSizeAnchors() {
        #expect(anchors.count == 2254)
        #expect(anchors.allSatisfy { $0.width == 1 && $0.height == 1 })
    }

    @Test func firstAndLastAnchorCenters() {
        #expect(anchors.first == Anchor(xCenter: 0.5 / 28, yCenter: 0.5 / 28, width: 1, height: 1))
        #expect(anchors.last == Anchor(xCenter: 6.5 / 7, yCenter: 6.5 / 7, width: 1, height: 1))
    }

    @Test func layerBoundariesAndCellOrder() {
        // stride 8: 28×28 cells × 2 anchors = 1568; stride 16: 14×14 × 2 = 392; strides 32×3 merged: 7×7 × 6 = 294.
        #expect(anchors[0] == anchors[1])                          // two anchors per cell
        #expect(anchors[2].xCenter == 1.5 / 28 && anchors[2].yCenter == 0.5 / 28)  // x varies fastest
        #expect(anchors[56].xCenter == 0.5 / 28 && anchors[56].yCenter == 1.5 / 28)
        #expect(anchors[1567].xCenter == 27.5 / 28 && anchors[1567].yCenter == 27.5 / 28)
        #expect(anchors[1568].xCenter == 0.5 / 14 && anchors[1568].yCenter == 0.5 / 14)
        #expect(anchors[1959].xCenter == 13.5 / 14)
        #expect(anchors[1960].xCenter == 0.5 / 7 && anchors[1960].yCenter == 0.5 / 7)
        #expect(anchors[1965] == anchors[1960])                     // six anchors per 7×7 cell
        #expect(anchors[1966].xCenter == 1.5 / 7)
        let counts = [anchors[0..<1568], anchors[1568..<1960], anchors[1960..<2254]].map { Set($0.map(\.xCenter)).count }
        #expect(counts == [28, 14, 7])
    }

    @Test func scalesWhenAnchorSizeIsNotFixed() {
        var options = SSDAnchorOptions.poseDetection
        options.fixedAnchorSize = false
        let sized = SSDAnchorGenerator.anchors(for: options)
        #expect(sized.count == 2254)
        // layer 0: scale 0.1484375, then interpolated sqrt(scale(0)·scale(1)), scale(1) = 0.1484375 + 0.6015625/4.
        #expect(sized[0].width == 0.1484375)
        #expect(close(sized[1].width, (0.1484375 * 0.298828125 as Float).squareRoot()))
        // last group: layers 2, 3, 4 with their interpolated anchors; the last interpolates with 1.0.
        #expect(close(sized[1960].width, 0.44921875))
        #expect(close(sized[1964].width, 0.75))
        #expect(close(sized[1965].width, (0.75 as Float).squareRoot()))
    }
}

@Suite struct DetectionDecoderTests {
    /// Three anchors, 2 keypoints, XYWH, scales 100.
    let decoder = DetectionDecoder(numBoxes: 3, numCoords: 8, numClasses: 1, boxCoordOffset: 0,
                                   keypointCoordOffset: 4, numKeypoints: 2, numValuesPerKeypoint: 2,
                                   xScale: 100, yScale: 100, wScale: 100, hScale: 100,
                                   reverseOutputOrder: true, sigmoidScore: true,
                                   scoreClippingThreshold: 2, minScoreThreshold: 0.5)
    let anchors = [Anchor(xCenter: 0.25, yCenter: 0.5, width: 1, height: 1),
                   Anchor(xCenter: 0.75, yCenter: 0.25, width: 0.5, height: 2),
                   Anchor(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1)]

    @Test func decodesBoxesKeypointsAndScoresInAnchorOrder() throws {
        let boxes: [Float] = [
            10, -20, 20, 40, /* kp */ 5, 5, -5, 10,
            20, 10, 40, 10, /* kp */ 0, 0, 10, -10,
            0, 0, 10, 10, 0, 0, 0, 0,
        ]
        let scores: [Float] = [0, 5, -0.01]   // 0.5 kept (≥), clipped to 2 → σ(2), σ(−0.01) < 0.5 dropped
        let d = try withBuffers(boxes, scores) { try decoder.decode(rawBoxes: $0, rawScores: $1, anchors: anchors) }
        #expect(d.count == 2)
        // anchor 0: xc = 0.1 + 0.25, yc = −0.2 + 0.5, w = 0.2, h = 0.4
        #expect(d[0].score == 0.5)
        #expect(close(d[0].xmin, 0.25) && close(d[0].xmax, 0.45) && close(d[0].ymin, 0.1) && close(d[0].ymax, 0.5))
        #expect(close(d[0].keypoints[0], SIMD2(0.3, 0.55)) && close(d[0].keypoints[1], SIMD2(0.2, 0.6)))
        // anchor 1 (w 0.5, h 2): xc = 0.2·0.5 + 0.75, yc = 0.1·2 + 0.25, w = 0.4·0.5, h = 0.1·2
        #expect(d[1].score == 1 / (1 + (-2 as Float).exp))
        #expect(close(d[1].xmin, 0.75) && close(d[1].width, 0.2) && close(d[1].ymin, 0.35) && close(d[1].height, 0.2))
        #expect(close(d[1].keypoints[1], SIMD2(0.1 * 0.5 + 0.75, -0.1 * 2 + 0.25)))
    }

    @Test func yxhwLayoutReadsYFirst() throws {
        var yx = decoder
        yx.reverseOutputOrder = false
        let boxes: [Float] = [10, -20, 20, 40, 5, 6, 0, 0] + [Float](repeating: 0, count: 16)
        let d = try withBuffers(boxes, [3, -9, -9]) { try yx.decode(rawBoxes: $0, rawScores: $1, anchors: anchors) }
        #expect(d.count == 1)
        // yc = 0.1 + 0.5, xc = −0.2 + 0.25, h = 0.2, w = 0.4; keypoint y then x
        #expect(close(d[0].ymin, 0.5) && close(d[0].ymax, 0.7) && close(d[0].xmin, -0.15) && close(d[0].xmax, 0.25))
        #expect(close(d[0].keypoints[0], SIMD2(0.06 + 0.25, 0.05 + 0.5)))
    }

    @Test func dropsNegativeAndNaNSizesAndNaNScores() throws {
        let boxes: [Float] = [0, 0, -1, 10, 0, 0, 0, 0,   0, 0, .nan, 10, 0, 0, 0, 0,   0, 0, 10, 10, 0, 0, 0, 0]
        let kept = try withBuffers(boxes, [3, 3, 3]) { try decoder.decode(rawBoxes: $0, rawScores: $1, anchors: anchors) }
        #expect(kept.count == 1 && close(kept[0].xmin, 0.45))
        let none = try withBuffers(boxes, [.nan, .nan, .nan]) { try decoder.decode(rawBoxes: $0, rawScores: $1, anchors: anchors) }
        #expect(none.isEmpty)
    }

    @Test func withoutThresholdOrClippingEverythingIsKept() throws {
        var plain = decoder
        plain.minScoreThreshold = nil
        plain.scoreClippingThreshold = nil
        let d = try withBuffers([Float](repeating: 1, count: 24), [5, -50, 0]) {
            try plain.decode(rawBoxes: $0, rawScores: $1, anchors: anchors)
        }
        #expect(d.map(\.score) == [1 / (1 + (-5 as Float).exp), 1 / (1 + (50 as Float).exp), 0.5])
    }

    @Test func poseDetectionOptionsAndValidation() throws {
        let pose = DetectionDecoder.poseDetection(minScore: 0.6)
        #expect(pose.numBoxes == 2254 && pose.numCoords == 12 && pose.numKeypoints == 4 && pose.keypointCoordOffset == 4)
        #expect(pose.xScale == 224 && pose.hScale == 224 && pose.reverseOutputOrder && pose.sigmoidScore)
        #expect(pose.scoreClippingThreshold == 100 && pose.minScoreThreshold == 0.6)
        #expect(throws: DetectionDecoderError.anchorCountMismatch(expected: 3, actual: 2)) {
            try withBuffers([Float](repeating: 0, count: 24), [0, 0, 0]) {
                try decoder.decode(rawBoxes: $0, rawScores: $1, anchors: Array(anchors.prefix(2)))
            }
        }
        #expect(throws: DetectionDecoderError.rawBoxesTooShort(expected: 24, actual: 23)) {
            try withBuffers([Float](repeating: 0, count: 23), [0, 0, 0]) {
                try decoder.decode(rawBoxes: $0, rawScores: $1, anchors: anchors)
            }
        }
    }

    @Test func realPoseAnchorsDecodeAKnownBox() throws {
        let anchors = SSDAnchorGenerator.anchors(for: .poseDetection)
        var boxes = [Float](repeating: 0, count: 2254 * 12)
        var scores = [Float](repeating: -10, count: 2254)
        let i = 1961   // 7×7 layer, cell (0, 0)
        boxes.replaceSubrange(i * 12..<i * 12 + 12, with: [22.4, 44.8, 112, 56, 0, 22.4, 0, -44.8, 0, 0, 0, 0])
        scores[i] = 1
        let d = try withBuffers(boxes, scores) {
            try DetectionDecoder.poseDetection().decode(rawBoxes: $0, rawScores: $1, anchors: anchors)
        }
        #expect(d.count == 1)
        let ax = Float(0.5) / 7
        #expect(close(d[0].xmin, 0.1 + ax - 0.25) && close(d[0].width, 0.5) && close(d[0].ymin, 0.2 + ax - 0.125))
        #expect(close(d[0].keypoints[0], SIMD2(ax, 0.1 + ax)) && close(d[0].keypoints[1], SIMD2(ax, ax - 0.2)))
    }
}

extension Float {
    var exp: Float { Foundation.exp(self) }
}

import Foundation
