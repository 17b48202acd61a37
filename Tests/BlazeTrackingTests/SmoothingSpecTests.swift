import BlazeStages
@testable import BlazeTracking
import Foundation
import Testing

/// `VisibilitySmoothingCalculator` (`mediapipe/calculators/util/visibility_smoothing_calculator.cc`): one low-pass
/// filter per landmark on `visibility` only.
@Suite struct VisibilitySmootherSpecTests {
    @Test func visibilityIsLowPassedPerLandmarkAndNothingElseChanges() {
        var v = VisibilitySmoother(alpha: 0.1)
        let first = [NormalizedLandmark(x: 0.1, y: 0.2, z: 0.3, visibility: 1, presence: 0.4),
                     NormalizedLandmark(x: 0.5, y: 0.6, z: 0.7, visibility: 0.5, presence: 0.8),
                     NormalizedLandmark(x: 0.9, y: 0.1, z: 0.2, visibility: nil, presence: nil)]
        let out1 = v.smooth(first)
        #expect(out1.map(\.visibility) == [1, 0.5, 0])   // first sample passes; an absent visibility reads as 0
        #expect(zip(out1, first).allSatisfy { $0.x == $1.x && $0.y == $1.y && $0.z == $1.z && $0.presence == $1.presence })

        let second = [NormalizedLandmark(x: 0.2, y: 0.3, z: 0.4, visibility: 0, presence: 0.9),
                      NormalizedLandmark(x: 0.6, y: 0.7, z: 0.8, visibility: 1, presence: 0.1),
                      NormalizedLandmark(x: 0.3, y: 0.3, z: 0.3, visibility: 0.8, presence: 0.5)]
        let out2 = v.smooth(second)
        let expected: [Float] = [0.1 * 0 + 0.9 * 1, 0.1 * 1 + 0.9 * 0.5, 0.1 * 0.8 + 0.9 * 0]   // 0.9, 0.55, 0.08
        for i in 0..<3 { #expect(approx(out2[i].visibility!, expected[i], 1e-6)) }
        // Coordinates and presence are the new frame's, untouched.
        #expect(zip(out2, second).allSatisfy { $0.x == $1.x && $0.y == $1.y && $0.z == $1.z && $0.presence == $1.presence })
    }

    @Test func resetForgetsTheHistory() {
        var v = VisibilitySmoother(alpha: 0.1)
        _ = v.smooth([Landmark(x: 0, y: 0, visibility: 1)])
        #expect(approx(v.smooth([Landmark(x: 0, y: 0, visibility: 0)])[0].visibility!, 0.9, 1e-6))
        v.reset()
        #expect(v.smooth([Landmark(x: 0, y: 0, visibility: 0.25)])[0].visibility == 0.25)
        #expect(approx(v.smooth([Landmark(x: 0, y: 0, visibility: 0.75)])[0].visibility!, 0.1 * 0.75 + 0.9 * 0.25, 1e-6))
    }
}

/// `LandmarksSmoothingCalculator` with the one-euro filter (`mediapipe/calculators/util/landmarks_smoothing_calculator.cc`,
/// `landmarks_smoothing_calculator_utils.cc`).
@Suite struct OneEuroLandmarkSmootherSpecTests {
    static let w = 640, h = 360
    static let t0: Int64 = 1_000_000_000, t1: Int64 = 1_040_000_000   // 25 Hz, first sample at t ≠ 0

    static let config = OneEuroConfiguration(minCutoff: 1, beta: 2, derivateCutoff: 1, valueScaling: true)

    /// Second-sample output, in pixels, of one axis going from `p0` to `p1` pixels with object scale `scale`.
    static func secondSample(_ p0: Double, _ p1: Double, scale: Double, c: OneEuroConfiguration = config) -> Double {
        euroStep(value: p1, previousRaw: p0, previousOutput: p0, previousEd: 0, frequency: 25, valueScale: 1 / scale,
                 minCutoff: c.minCutoff, beta: c.beta, derivateCutoff: c.derivateCutoff).y
    }

    @Test(arguments: [(Float(0.5), Float(0.5)), (Float(0.25), Float(0.8))])
    func normalizedLandmarksAreFilteredInPixelsWithTheROIScale(roiWidth: Float, roiHeight: Float) {
        let (w, h) = (Self.w, Self.h)
        // Object scale (w·W + h·H)/2: (320 + 180)/2 = 250 px, or (160 + 288)/2 = 224 px. Rotation plays no part.
        let roi = NormalizedRect(xCenter: 0.4, yCenter: 0.6, width: roiWidth, height: roiHeight, rotation: 0.9)
        let scale = (Double(roiWidth) * 640 + Double(roiHeight) * 360) / 2
        var s = OneEuroLandmarkSmoother(configuration: Self.config)
        let a = [NormalizedLandmark(x: 0.5, y: 0.5, z: 0.1, visibility: 0.7, presence: 0.6),
                 NormalizedLandmark(x: 0.25, y: 0.75, z: 0, visibility: 0.3, presence: 0.2)]
        let b = [NormalizedLandmark(x: 0.55, y: 0.4, z: 0.05, visibility: 0.2, presence: 0.1),
                 NormalizedLandmark(x: 0.25, y: 0.75, z: 0, visibility: 0.9, presence: 0.8)]
        let out0 = s.smooth(a, imageWidth: w, imageHeight: h, objectScaleROI: roi, timestampNanoseconds: Self.t0)
        #expect(zip(out0, a).allSatisfy { approx($0.x, $1.x, 1e-6) && approx($0.y, $1.y, 1e-6) && approx($0.z, $1.z, 1e-6) })

        let out = s.smooth(b, imageWidth: w, imageHeight: h, objectScaleROI: roi, timestampNanoseconds: Self.t1)
        // Landmark 0 in pixels: x 320 → 352, y 180 → 144, z (·W) 64 → 32.
        let x = Self.secondSample(320, 352, scale: scale) / 640
        let y = Self.secondSample(180, 144, scale: scale) / 360
        let z = Self.secondSample(64, 32, scale: scale) / 640
        #expect(approx(out[0].x, Float(x), 1e-6), "x \(out[0].x) vs \(x)")
        #expect(approx(out[0].y, Float(y), 1e-6), "y \(out[0].y) vs \(y)")
        #expect(approx(out[0].z, Float(z), 1e-6), "z \(out[0].z) vs \(z)")
        // Smoothing lags: strictly between the two frames.
        #expect(out[0].x > 0.5 && out[0].x < 0.55 && out[0].y < 0.5 && out[0].y > 0.4)
        // Each landmark has its own filters: the static one stays put.
        #expect(approx(out[1].x, 0.25, 1e-6) && approx(out[1].y, 0.75, 1e-6) && out[1].z == 0)
        // Visibility and presence are passed through by this stage.
        #expect(out[0].visibility == 0.2 && out[0].presence == 0.1 && out[1].visibility == 0.9 && out[1].presence == 0.8)
    }

    @Test func withoutAROITheObjectScaleIsTheMeanExtentInPixels() {
        var s = OneEuroLandmarkSmoother(configuration: Self.config)
        // Extent 0.4·640 = 256 px by 0.5·360 = 180 px: scale 218 px, on both frames.
        let a = [NormalizedLandmark(x: 0.2, y: 0.3), NormalizedLandmark(x: 0.6, y: 0.8)]
        let b = a.map { NormalizedLandmark(x: $0.x + 0.05, y: $0.y) }
        _ = s.smooth(a, imageWidth: Self.w, imageHeight: Self.h, objectScaleROI: nil, timestampNanoseconds: Self.t0)
        let out = s.smooth(b, imageWidth: Self.w, imageHeight: Self.h, objectScaleROI: nil, timestampNanoseconds: Self.t1)
        let x0 = Self.secondSample(Double(Float(0.2) * 640), Double(Float(0.25) * 640), scale: 218) / 640
        #expect(approx(out[0].x, Float(x0), 1e-6), "\(out[0].x) vs \(x0)")
    }

    @Test func anObjectScaleBelowTheMinimumPassesThroughWithoutTouchingTheFilters() {
        let tiny = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1e-9, height: 1e-9)   // scale 5e-7 px < 1e-6
        let roi = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5)       // scale 250 px
        let roundTrip = { (l: NormalizedLandmark) -> NormalizedLandmark in
            NormalizedLandmark(x: l.x * 640 / 640, y: l.y * 360 / 360, z: l.z * 640 / 640)
        }
        let ms: Int64 = 1_000_000
        // x in pixels: 320, 400, 336 (y and z fixed).
        let f0 = [NormalizedLandmark(x: 0.5, y: 0.5)], f1 = [NormalizedLandmark(x: 0.625, y: 0.5)]
        let f2 = [NormalizedLandmark(x: 0.525, y: 0.5)]
        var s = OneEuroLandmarkSmoother(configuration: Self.config)
        _ = s.smooth(f0, imageWidth: Self.w, imageHeight: Self.h, objectScaleROI: roi, timestampNanoseconds: 1000 * ms)
        // A tiny object: returned as is (after the pixel round trip) ...
        #expect(s.smooth(f1, imageWidth: Self.w, imageHeight: Self.h, objectScaleROI: tiny, timestampNanoseconds: 1040 * ms)
            == f1.map(roundTrip))
        // ... and the filters did not see it: the next frame continues from frame 0 (320 px, 80 ms earlier: 12.5 Hz).
        let out = s.smooth(f2, imageWidth: Self.w, imageHeight: Self.h, objectScaleROI: roi, timestampNanoseconds: 1080 * ms)
        let x = euroStep(value: 336, previousRaw: 320, previousOutput: 320, previousEd: 0, frequency: 12.5, valueScale: 1.0 / 250,
                         minCutoff: 1, beta: 2, derivateCutoff: 1).y / 640
        #expect(approx(out[0].x, Float(x), 1e-6), "\(out[0].x) vs \(x)")

        // Only tiny frames so far: the first usable frame is the filters' first sample and passes through; the
        // one after is filtered from it. A ROI of zero size counts as tiny too.
        for small in [tiny, NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0, height: 0)] {
            var z = OneEuroLandmarkSmoother(configuration: Self.config)
            #expect(z.smooth(f0, imageWidth: Self.w, imageHeight: Self.h, objectScaleROI: small, timestampNanoseconds: 1000 * ms)
                == f0.map(roundTrip))
            #expect(z.smooth(f1, imageWidth: Self.w, imageHeight: Self.h, objectScaleROI: small, timestampNanoseconds: 1040 * ms)
                == f1.map(roundTrip))
            #expect(z.smooth(f0, imageWidth: Self.w, imageHeight: Self.h, objectScaleROI: roi, timestampNanoseconds: 1080 * ms)
                == f0.map(roundTrip))
            let next = z.smooth(f2, imageWidth: Self.w, imageHeight: Self.h, objectScaleROI: roi, timestampNanoseconds: 1120 * ms)
            let x2 = euroStep(value: 336, previousRaw: 320, previousOutput: 320, previousEd: 0, frequency: 25,
                              valueScale: 1.0 / 250, minCutoff: 1, beta: 2, derivateCutoff: 1).y / 640
            #expect(approx(next[0].x, Float(x2), 1e-6), "\(next[0].x) vs \(x2)")
        }
    }

    @Test func resetForgetsTheFilters() {
        var s = OneEuroLandmarkSmoother(configuration: Self.config)
        let roi = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5)
        let a = [NormalizedLandmark(x: 0.5, y: 0.5)], b = [NormalizedLandmark(x: 0.75, y: 0.25)]
        _ = s.smooth(a, imageWidth: 640, imageHeight: 360, objectScaleROI: roi, timestampNanoseconds: Self.t0)
        let filtered = s.smooth(b, imageWidth: 640, imageHeight: 360, objectScaleROI: roi, timestampNanoseconds: Self.t1)
        #expect(filtered[0].x < 0.75)
        s.reset()
        let fresh = s.smooth(b, imageWidth: 640, imageHeight: 360, objectScaleROI: roi, timestampNanoseconds: 1_080_000_000)
        #expect(fresh[0].x == 0.75 && fresh[0].y == 0.25)
    }

    /// World landmarks (metres) are filtered as they are, with value scale 1 (no object scale).
    @Test func worldLandmarksAreFilteredUnscaled() {
        let c = OneEuroConfiguration.poseWorldLandmarks
        #expect(c.minCutoff == Double(Float(0.1)) && c.beta == 40 && c.derivateCutoff == 1 && !c.valueScaling)
        var s = OneEuroLandmarkSmoother(configuration: c)
        // Extent (0.4 + 0.6)/2 = 0.5 m: were the value scaled by it, the derivative would double.
        let a = [Landmark(x: 0.1, y: -0.2, z: 0.3, visibility: 0.5), Landmark(x: 0.5, y: 0.4, z: -0.1)]
        let b = [Landmark(x: 0.15, y: -0.2, z: 0.25, visibility: 0.6), Landmark(x: 0.5, y: 0.4, z: -0.1)]
        #expect(s.smooth(a, timestampNanoseconds: Self.t0) == a)
        let out = s.smooth(b, timestampNanoseconds: Self.t1)
        let step = { (p0: Float, p1: Float) in
            euroStep(value: Double(p1), previousRaw: Double(p0), previousOutput: Double(p0), previousEd: 0, frequency: 25,
                     valueScale: 1, minCutoff: c.minCutoff, beta: c.beta, derivateCutoff: c.derivateCutoff).y
        }
        #expect(approx(Double(out[0].x), step(0.1, 0.15), 1e-6), "\(out[0].x) vs \(step(0.1, 0.15))")
        #expect(approx(Double(out[0].z), step(0.3, 0.25), 1e-6))
        #expect(out[0].y == -0.2 && out[0].visibility == 0.6)
        #expect(out[1] == b[1])
    }
}

/// The PoseLandmarker smoothing of MediaPipe Tasks (`mediapipe/tasks/cc/vision/pose_landmarker/pose_landmarks_detector_graph.cc`
/// through `mediapipe/framework/api2/stream/smoothing.cc`): visibility α 0.1, then one-euro
/// 0.05 / 80 / 1 on the landmarks (object scale from the next-frame ROI), 0.1 / 40 / 1 unscaled on the world
/// landmarks; timestamps in milliseconds.
@Suite struct PoseSmootherSpecTests {
    static let lm0 = [NormalizedLandmark(x: 0.5, y: 0.5, z: -0.02, visibility: 0.9, presence: 0.8),
                      NormalizedLandmark(x: 0.3, y: 0.6, z: 0, visibility: 0.2, presence: 0.3)]
    static let lm1 = [NormalizedLandmark(x: 0.53, y: 0.48, z: -0.02, visibility: 0.4, presence: 0.1),
                      NormalizedLandmark(x: 0.3, y: 0.6, z: 0, visibility: 1, presence: 0.95)]
    static let world0 = [Landmark(x: 0.2, y: 0.1, z: 0, visibility: 0.5), Landmark(x: -0.3, y: 0.4, z: 0.1, visibility: 0.5)]
    static let world1 = [Landmark(x: 0.22, y: 0.1, z: 0, visibility: 0.7), Landmark(x: -0.3, y: 0.4, z: 0.1, visibility: 0.1)]

    @Test func theSecondFrameMatchesTheFormulas() {
        var s = PoseSmoother()
        // A 200 × 200 px ROI on 640 × 360: object scale 200 px.
        let roi = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 200.0 / 640, height: 200.0 / 360, rotation: 0.3)
        let first = s.smooth(landmarks: Self.lm0, worldLandmarks: Self.world0, nextFrameROI: roi,
                             imageWidth: 640, imageHeight: 360, timestampMilliseconds: 1000)
        #expect(zip(first.landmarks, Self.lm0).allSatisfy { approx($0.x, $1.x, 1e-6) && approx($0.y, $1.y, 1e-6) })
        #expect(first.worldLandmarks == Self.world0)

        let out = s.smooth(landmarks: Self.lm1, worldLandmarks: Self.world1, nextFrameROI: roi,
                           imageWidth: 640, imageHeight: 360, timestampMilliseconds: 1040)   // 40 ms: 25 Hz
        let minCutoff = Double(Float(0.05))
        // x: 0.5·640 = 320 → 0.53·640 = 339.2 px.
        let x = euroStep(value: Double(Float(0.53) * 640), previousRaw: 320, previousOutput: 320, previousEd: 0, frequency: 25,
                         valueScale: 1.0 / 200, minCutoff: minCutoff, beta: 80, derivateCutoff: 1).y / 640
        #expect(approx(out.landmarks[0].x, Float(x), 1e-6), "\(out.landmarks[0].x) vs \(x)")
        let y = euroStep(value: Double(Float(0.48) * 360), previousRaw: 180, previousOutput: 180, previousEd: 0, frequency: 25,
                         valueScale: 1.0 / 200, minCutoff: minCutoff, beta: 80, derivateCutoff: 1).y / 360
        #expect(approx(out.landmarks[0].y, Float(y), 1e-6), "\(out.landmarks[0].y) vs \(y)")
        // Visibility: 0.1·new + 0.9·old; presence as given.
        #expect(approx(out.landmarks[0].visibility!, 0.1 * 0.4 + 0.9 * 0.9, 1e-6))
        #expect(approx(out.landmarks[1].visibility!, 0.1 * 1 + 0.9 * 0.2, 1e-6))
        #expect(out.landmarks[0].presence == 0.1 && out.landmarks[1].presence == 0.95)
        // World: 0.2 → 0.22 m, value scale 1.
        let wx = euroStep(value: Double(Float(0.22)), previousRaw: Double(Float(0.2)), previousOutput: Double(Float(0.2)),
                          previousEd: 0, frequency: 25, valueScale: 1, minCutoff: Double(Float(0.1)), beta: 40,
                          derivateCutoff: 1).y
        #expect(approx(Double(out.worldLandmarks[0].x), wx, 1e-6), "\(out.worldLandmarks[0].x) vs \(wx)")
        #expect(approx(out.worldLandmarks[0].visibility!, 0.1 * 0.7 + 0.9 * 0.5, 1e-6))
        #expect(approx(out.worldLandmarks[1].visibility!, 0.1 * 0.1 + 0.9 * 0.5, 1e-6))
    }

    @Test func aStaticPoseStaysPut() {
        var s = PoseSmoother()
        let roi = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.4, height: 0.7)
        for k in 0..<12 {
            let out = s.smooth(landmarks: Self.lm0, worldLandmarks: Self.world0, nextFrameROI: roi,
                               imageWidth: 640, imageHeight: 360, timestampMilliseconds: 33 * k)
            for (o, l) in zip(out.landmarks, Self.lm0) {
                #expect(approx(o.x, l.x, 1e-6) && approx(o.y, l.y, 1e-6) && approx(o.z, l.z, 1e-6))
                #expect(approx(o.visibility!, l.visibility!, 1e-6) && o.presence == l.presence)
            }
            for (o, l) in zip(out.worldLandmarks, Self.world0) {
                #expect(approx(o.x, l.x, 1e-6) && approx(o.y, l.y, 1e-6) && approx(o.z, l.z, 1e-6))
            }
        }
    }

    @Test func resetMakesTheNextPosePassThrough() {
        var s = PoseSmoother()
        let roi = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.4, height: 0.7)
        _ = s.smooth(landmarks: Self.lm0, worldLandmarks: Self.world0, nextFrameROI: roi, imageWidth: 640, imageHeight: 360,
                     timestampMilliseconds: 1000)
        let smoothed = s.smooth(landmarks: Self.lm1, worldLandmarks: Self.world1, nextFrameROI: roi, imageWidth: 640,
                                imageHeight: 360, timestampMilliseconds: 1040)
        #expect(smoothed.landmarks[0].x < 0.53 && smoothed.landmarks[0].visibility! > 0.4)
        s.reset()
        let fresh = s.smooth(landmarks: Self.lm1, worldLandmarks: Self.world1, nextFrameROI: roi, imageWidth: 640,
                             imageHeight: 360, timestampMilliseconds: 1080)
        #expect(zip(fresh.landmarks, Self.lm1).allSatisfy {
            approx($0.x, $1.x, 1e-6) && approx($0.y, $1.y, 1e-6) && $0.visibility == $1.visibility && $0.presence == $1.presence
        })
        #expect(fresh.worldLandmarks == Self.world1)
    }
}
