import BlazeStages
@testable import BlazeTracking
import Foundation
import Testing

/// Association of tracked and detected regions: pose by `mediapipe/calculators/util/association_norm_rect_calculator.cc`,
/// hand by `mediapipe/tasks/cc/vision/hand_landmarker/calculators/hand_association_calculator.cc`.
@Suite struct RegionAssociationSpecTests {
    static func rect(_ x: Float, _ y: Float, _ w: Float, _ h: Float, rotation: Float = 0) -> NormalizedRect {
        NormalizedRect(xCenter: x, yCenter: y, width: w, height: h, rotation: rotation)
    }

    // MARK: IoU on axis-aligned rects

    @Test func iouOfAxisAlignedRectsIgnoringRotation() {
        // a: [0.3, 0.7]², b: [0.4, 0.8] × [0.45, 0.65]. I = 0.3·0.2 = 0.06, U = 0.16 + 0.08 − 0.06 = 0.18.
        let a = Self.rect(0.5, 0.5, 0.4, 0.4)
        for rotation: Float in [0, 0.7, Float.pi / 2, -2] {
            let b = Self.rect(0.6, 0.55, 0.4, 0.2, rotation: rotation)
            #expect(approx(RegionAssociation.intersectionOverUnion(a, b), 1.0 / 3, 1e-6))
            #expect(approx(RegionAssociation.intersectionOverUnion(b, a), 1.0 / 3, 1e-6))
            let ar = Self.rect(0.5, 0.5, 0.4, 0.4, rotation: rotation)
            #expect(approx(RegionAssociation.intersectionOverUnion(ar, b), 1.0 / 3, 1e-6))
        }
        // Containment: [0.25, 0.75]² and [0.25, 0.75] × [0.375, 0.625]: I = 0.125, U = 0.25 → exactly 0.5.
        #expect(RegionAssociation.intersectionOverUnion(Self.rect(0.5, 0.5, 0.5, 0.5), Self.rect(0.5, 0.5, 0.5, 0.25)) == 0.5)
        // Identical → 1; disjoint → 0; sharing only an edge → 0.
        #expect(RegionAssociation.intersectionOverUnion(a, a) == 1)
        #expect(RegionAssociation.intersectionOverUnion(a, Self.rect(0.9, 0.9, 0.1, 0.1)) == 0)
        #expect(RegionAssociation.intersectionOverUnion(Self.rect(0.25, 0.5, 0.5, 0.5), Self.rect(0.75, 0.5, 0.5, 0.5)) == 0)
        // Two corners overlapping: [0.1, 0.5]² and [0.3, 0.7]²: I = 0.04, U = 0.16 + 0.16 − 0.04 = 0.28.
        #expect(approx(RegionAssociation.intersectionOverUnion(Self.rect(0.3, 0.3, 0.4, 0.4), a), 1.0 / 7, 1e-6))
    }

    // MARK: Pose: AssociationNormRectCalculator, a detection replaces what it overlaps

    @Test func poseRuleDetectionsReplaceOverlapsAndTheRestKeepsMediaPipesOrder() {
        let t1 = Self.rect(0.2, 0.2, 0.2, 0.2), t2 = Self.rect(0.5, 0.5, 0.2, 0.2), t3 = Self.rect(0.8, 0.8, 0.2, 0.2)
        let d1 = Self.rect(0.51, 0.5, 0.2, 0.2)   // overlaps t2 (IoU 0.19/0.21 ≈ 0.905)
        let d2 = Self.rect(0.8, 0.2, 0.2, 0.2)    // overlaps nothing
        let d3 = Self.rect(0.2, 0.21, 0.2, 0.2)   // overlaps t1
        let merged = RegionAssociation.replacingOverlaps(tracked: [t1, t2, t3], detected: [d1, d2, d3], threshold: 0.5)
        // [t1] → [t1, t2] → [t1, t2, t3] → d1 drops t2: [t1, t3, d1] → [t1, t3, d1, d2] → d3 drops t1.
        #expect(merged == [t3, d1, d2, d3])
        // Non-overlapping regions are all kept, tracked ones first.
        #expect(RegionAssociation.replacingOverlaps(tracked: [t1, t3], detected: [d2], threshold: 0.5) == [t1, t3, d2])
        // Empty inputs.
        #expect(RegionAssociation.replacingOverlaps(tracked: [], detected: [], threshold: 0.5).isEmpty)
        #expect(RegionAssociation.replacingOverlaps(tracked: [t1, t2], detected: [], threshold: 0.5) == [t1, t2])
        #expect(RegionAssociation.replacingOverlaps(tracked: [], detected: [d1, d2], threshold: 0.5) == [d1, d2])
    }

    @Test func poseRuleAppliesWithinEachListAndOneElementCanReplaceSeveral() {
        let a = Self.rect(0.5, 0.5, 0.2, 0.2), a2 = Self.rect(0.505, 0.5, 0.2, 0.2)
        // Within the tracked list, a later overlapping region replaces an earlier one; likewise among detections.
        #expect(RegionAssociation.replacingOverlaps(tracked: [a, a2], detected: [], threshold: 0.5) == [a2])
        #expect(RegionAssociation.replacingOverlaps(tracked: [], detected: [a, a2], threshold: 0.5) == [a2])
        // A large detection covering two small tracked regions removes both (IoU 0.25 each > 0.2).
        let s1 = Self.rect(0.25, 0.5, 0.5, 1), s2 = Self.rect(0.75, 0.5, 0.5, 1), big = Self.rect(0.5, 0.5, 1, 1)
        // s1 vs big: I = 0.5, U = 1 → 0.5.
        #expect(RegionAssociation.replacingOverlaps(tracked: [s1, s2], detected: [big], threshold: 0.4) == [big])
        #expect(RegionAssociation.replacingOverlaps(tracked: [s1, s2], detected: [big], threshold: 0.6) == [s1, s2, big])
    }

    @Test func poseRuleAnIoUExactlyAtTheThresholdIsNotAnOverlap() {
        // IoU exactly 0.5 (see above).
        let a = Self.rect(0.5, 0.5, 0.5, 0.5), b = Self.rect(0.5, 0.5, 0.5, 0.25)
        #expect(RegionAssociation.replacingOverlaps(tracked: [a], detected: [b], threshold: 0.5) == [a, b])
        #expect(RegionAssociation.replacingOverlaps(tracked: [a], detected: [b], threshold: Float(0.5).nextDown) == [b])
    }

    // MARK: Hand: HandAssociationCalculator, the tracked region wins

    @Test func handRuleTrackedRegionsAreKeptAndOverlappingDetectionsDropped() {
        let t1 = Self.rect(0.2, 0.2, 0.2, 0.2), t2 = Self.rect(0.21, 0.2, 0.2, 0.2)   // tracked regions overlapping each other
        let d1 = Self.rect(0.2, 0.21, 0.2, 0.2)   // overlaps t1: dropped
        let d2 = Self.rect(0.8, 0.8, 0.2, 0.2)    // free: kept
        let d3 = Self.rect(0.81, 0.8, 0.2, 0.2)   // overlaps the accepted d2 only: dropped
        let d4 = Self.rect(0.5, 0.8, 0.2, 0.2)    // free: kept
        let merged = RegionAssociation.keepingTracked(tracked: [t1, t2], detected: [d1, d2, d3, d4], threshold: 0.5)
        #expect(merged == [t1, t2, d2, d4])
        #expect(RegionAssociation.keepingTracked(tracked: [], detected: [d2, d3, d4], threshold: 0.5) == [d2, d4])
        #expect(RegionAssociation.keepingTracked(tracked: [t1], detected: [], threshold: 0.5) == [t1])
        // A detection that only slightly overlaps (IoU 1/7 ≈ 0.14) is kept at 0.5 but dropped at 0.1.
        let near = Self.rect(0.3, 0.3, 0.2, 0.2)   // [0.2, 0.4]² vs t1 [0.1, 0.3]²: I = 0.01, U = 0.07
        #expect(RegionAssociation.keepingTracked(tracked: [t1], detected: [near], threshold: 0.5) == [t1, near])
        #expect(RegionAssociation.keepingTracked(tracked: [t1], detected: [near], threshold: 0.1) == [t1])
    }

    @Test func handRuleAnIoUExactlyAtTheThresholdIsNotAnOverlap() {
        let a = Self.rect(0.5, 0.5, 0.5, 0.5), b = Self.rect(0.5, 0.5, 0.5, 0.25)
        #expect(RegionAssociation.keepingTracked(tracked: [a], detected: [b], threshold: 0.5) == [a, b])
        #expect(RegionAssociation.keepingTracked(tracked: [a], detected: [b], threshold: Float(0.5).nextDown) == [a])
    }
}
