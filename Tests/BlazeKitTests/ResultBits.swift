import BlazeKit

/// Every float of the landmarks as its bit pattern (`==` on Float would let -0 pass for +0); a missing
/// visibility or presence is a value no float has.
func bits(_ landmarks: [[NormalizedLandmark]], _ world: [[Landmark]]) -> [UInt64] {
    func b(_ v: Float?) -> UInt64 { v.map { UInt64($0.bitPattern) } ?? UInt64.max }
    return landmarks.flatMap { $0.flatMap { [b($0.x), b($0.y), b($0.z), b($0.visibility), b($0.presence)] } } + [0xFFFF_0000_0000]
        + world.flatMap { $0.flatMap { [b($0.x), b($0.y), b($0.z), b($0.visibility), b($0.presence)] } }
}

/// A mask's values as bit patterns, after its size.
func bits(_ mask: Mask) -> [UInt64] {
    [UInt64(mask.width), UInt64(mask.height)] + mask.float32Data.map { UInt64($0.bitPattern) }
}

/// A pose result's landmarks, world landmarks and masks, bit for bit.
func bits(_ r: PoseLandmarkerResult) -> [UInt64] {
    bits(r.landmarks, r.worldLandmarks) + r.segmentationMasks.flatMap { bits($0) }
}

/// A hand result's landmarks, world landmarks and handedness (index and score), bit for bit.
func bits(_ r: HandLandmarkerResult) -> [UInt64] {
    bits(r.landmarks, r.worldLandmarks) + r.handedness.flatMap { $0.flatMap { [UInt64(bitPattern: Int64($0.index)), UInt64($0.score.bitPattern)] } }
}

/// A holistic result's face, pose, hands (each part's count first) and mask, bit for bit.
func bits(_ r: HolisticLandmarkerResult) -> [UInt64] {
    let parts = [r.faceLandmarks, r.poseLandmarks, r.leftHandLandmarks, r.rightHandLandmarks]
    let world = [r.poseWorldLandmarks, r.leftHandWorldLandmarks, r.rightHandWorldLandmarks]
    return (parts.map(\.count) + world.map(\.count)).map(UInt64.init) + bits(parts, world)
        + (r.poseSegmentationMask.map { bits($0) } ?? [])
}
