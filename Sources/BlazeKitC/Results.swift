// What the tasks' C results are made of: landmarks, malloc'd arrays and masks, and how they are freed.
import BlazeKit
import CBlazeKit
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

func cLandmark(_ x: Float, _ y: Float, _ z: Float, _ visibility: Float?, _ presence: Float?) -> blazekit_landmark {
    var flags: UInt32 = 0
    if visibility != nil { flags |= BLAZEKIT_LANDMARK_HAS_VISIBILITY }
    if presence != nil { flags |= BLAZEKIT_LANDMARK_HAS_PRESENCE }
    return blazekit_landmark(x: x, y: y, z: z, visibility: visibility ?? 0, presence: presence ?? 0, flags: flags)
}

/// BlazeKit's two landmark types, as one C landmark.
protocol CLandmarkConvertible {
    var x: Float { get }
    var y: Float { get }
    var z: Float { get }
    var visibility: Float? { get }
    var presence: Float? { get }
}

extension NormalizedLandmark: CLandmarkConvertible {}
extension Landmark: CLandmarkConvertible {}

/// The landmarks of several lists, one after the other, as C landmarks.
func cLandmarks<L: CLandmarkConvertible>(_ lists: [[L]]) -> [blazekit_landmark] {
    lists.flatMap { $0.map { cLandmark($0.x, $0.y, $0.z, $0.visibility, $0.presence) } }
}

/// A malloc'd copy of `values`, NULL when empty.
func cArray<T>(_ values: [T]) -> UnsafeMutablePointer<T>? {
    guard !values.isEmpty else { return nil }
    let p = UnsafeMutablePointer<T>.allocate(capacity: values.count)
    p.initialize(from: values, count: values.count)
    return p
}

/// A malloc'd copy of `values` as the read-only pointer a result holds, NULL when empty.
func cConstArray<T>(_ values: [T]) -> UnsafePointer<T>? { UnsafePointer(cArray(values)) }

/// Frees an array made by ``cArray(_:)`` or ``cConstArray(_:)``; NULL is a no-op.
func freeArray<T>(_ pointer: UnsafePointer<T>?) {
    pointer.map { UnsafeMutablePointer(mutating: $0).deallocate() }
}

/// A C mask holding a copy of the mask's values.
func cMask(_ mask: Mask) -> blazekit_mask {
    blazekit_mask(width: Int32(mask.width), height: Int32(mask.height), data: cConstArray(mask.float32Data))
}

/// Frees `count` masks made by ``cMask(_:)`` and their array; NULL is a no-op.
func freeMasks(_ masks: UnsafePointer<blazekit_mask>?, count: Int) {
    guard let masks else { return }
    for i in 0..<count { freeArray(masks[i].data) }
    freeArray(masks)
}
