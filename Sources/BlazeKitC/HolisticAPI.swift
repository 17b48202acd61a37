// The holistic landmarker of the C ABI (blazekit_holistic_*, since 0.5): options, results, and the functions.
import BlazeKit
import CBlazeKit
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

enum HolisticC: CTask {
    static let name = "holistic"

    static func makeTask(_ options: HolisticLandmarkerOptions) throws -> LandmarkerTask<HolisticLandmarkerDefinition> {
        try HolisticLandmarker(options: options)
    }

    /// One part's landmarks and, when the part has them, its world landmarks (NULL unless as many as the landmarks).
    private static func part(_ landmarks: [NormalizedLandmark], _ world: [Landmark]? = nil)
        -> (count: Int, landmarks: UnsafePointer<blazekit_landmark>?, world: UnsafePointer<blazekit_landmark>?) {
        let worldArray = world.flatMap { $0.count == landmarks.count ? cConstArray(cLandmarks([$0])) : nil }
        return (landmarks.count, cConstArray(cLandmarks([landmarks])), worldArray)
    }

    static func makeResult(_ r: HolisticLandmarkerResult) -> UnsafeMutablePointer<blazekit_holistic_result> {
        let face = part(r.faceLandmarks)
        let pose = part(r.poseLandmarks, r.poseWorldLandmarks)
        let left = part(r.leftHandLandmarks, r.leftHandWorldLandmarks)
        let right = part(r.rightHandLandmarks, r.rightHandWorldLandmarks)
        let mask = r.poseSegmentationMask.flatMap { cConstArray([cMask($0)]) }
        let out = UnsafeMutablePointer<blazekit_holistic_result>.allocate(capacity: 1)
        out.initialize(to: blazekit_holistic_result(
            struct_size: cSizeof(blazekit_holistic_result.self), timestamp_ms: Int64(r.timestampInMilliseconds),
            face_landmark_count: face.count, face_landmarks: face.landmarks,
            pose_landmark_count: pose.count, pose_landmarks: pose.landmarks, pose_world_landmarks: pose.world,
            left_hand_landmark_count: left.count, left_hand_landmarks: left.landmarks, left_hand_world_landmarks: left.world,
            right_hand_landmark_count: right.count, right_hand_landmarks: right.landmarks, right_hand_world_landmarks: right.world,
            segmentation_mask: mask))
        return out
    }

    static func freeResult(_ result: UnsafeMutablePointer<blazekit_holistic_result>?) {
        guard let result else { return }
        let r = result.pointee
        for array in [r.face_landmarks, r.pose_landmarks, r.pose_world_landmarks, r.left_hand_landmarks, r.left_hand_world_landmarks,
                      r.right_hand_landmarks, r.right_hand_world_landmarks] {
            freeArray(array)
        }
        freeMasks(r.segmentation_mask, count: 1)
        result.deallocate()
    }
}

final class HolisticRelay: ResultRelay<HolisticC>, HolisticLandmarkerLiveStreamDelegate, @unchecked Sendable {
    convenience init(_ callback: @escaping blazekit_holistic_result_callback, _ userData: UnsafeMutableRawPointer?) {
        self.init { callback(userData, $0, $1, $2, $3) }
    }

    func holisticLandmarker(_ holisticLandmarker: HolisticLandmarker, didFinishDetection result: HolisticLandmarkerResult?,
                            timestampInMilliseconds: Int, error: (any Error)?) {
        deliver(result, timestampInMilliseconds: timestampInMilliseconds, error: error)
    }
}

/// The confidences and thresholds: C field and name, and the Swift option each one sets.
private typealias Confidence = (name: String, c: WritableKeyPath<blazekit_holistic_landmarker_options, Float>,
                                swift: ReferenceWritableKeyPath<HolisticLandmarkerOptions, Float>)
private func holisticConfidences() -> [Confidence] {
    [("min_face_detection_confidence", \.min_face_detection_confidence, \.minFaceDetectionConfidence),
     ("min_face_suppression_threshold", \.min_face_suppression_threshold, \.minFaceSuppressionThreshold),
     ("min_face_landmarks_confidence", \.min_face_landmarks_confidence, \.minFaceLandmarksConfidence),
     ("min_pose_detection_confidence", \.min_pose_detection_confidence, \.minPoseDetectionConfidence),
     ("min_pose_suppression_threshold", \.min_pose_suppression_threshold, \.minPoseSuppressionThreshold),
     ("min_pose_landmarks_confidence", \.min_pose_landmarks_confidence, \.minPoseLandmarksConfidence),
     ("min_hand_landmarks_confidence", \.min_hand_landmarks_confidence, \.minHandLandmarksConfidence)]
}

private func holisticDefaults() -> blazekit_holistic_landmarker_options {
    let swift = HolisticLandmarkerOptions()
    var o = blazekit_holistic_landmarker_options()
    o.struct_size = cSizeof(blazekit_holistic_landmarker_options.self)
    o.running_mode = Int32(BLAZEKIT_RUNNING_MODE_IMAGE.rawValue)
    o.model = swift.poseModel == .full ? Int32(BLAZEKIT_MODEL_FULL.rawValue) : Int32(BLAZEKIT_MODEL_LITE.rawValue)
    o.thread_count = Int32(swift.baseOptions.threadCount)
    o.fixed_plan = swift.baseOptions.kernelPlanning == .fixed ? 1 : 0
    for field in holisticConfidences() { o[keyPath: field.c] = swift[keyPath: field.swift] }
    o.output_segmentation_mask = swift.shouldOutputPoseSegmentationMasks ? 1 : 0
    o.refine_face_landmarks = swift.refineFaceLandmarks ? 1 : 0
    o.smooth_landmarks = swift.poseSmoothing.smoothLandmarks ? 1 : 0
    o.smooth_segmentation = swift.poseSmoothing.smoothSegmentation ? 1 : 0
    o.solution_clock = swift.poseSmoothing.usesSolutionClock ? 1 : 0
    return o
}

@_cdecl("blazekit_holistic_landmarker_options_init")
public func blazekit_holistic_landmarker_options_init_impl(_ options: UnsafeMutablePointer<blazekit_holistic_landmarker_options>?) -> blazekit_status {
    initOptions(options, size: UnsizedInitBytes.holistic, "blazekit_holistic_landmarker_options_init", holisticDefaults)
}

@_cdecl("blazekit_holistic_landmarker_options_init_sized")
public func blazekit_holistic_landmarker_options_init_sized_impl(_ options: UnsafeMutablePointer<blazekit_holistic_landmarker_options>?,
                                                                _ size: Int) -> blazekit_status {
    initOptions(options, size: size, "blazekit_holistic_landmarker_options_init_sized", holisticDefaults)
}

@_cdecl("blazekit_holistic_landmarker_create")
public func blazekit_holistic_landmarker_create_impl(_ options: UnsafePointer<blazekit_holistic_landmarker_options>?,
                                                     _ out: UnsafeMutablePointer<OpaquePointer?>?) -> blazekit_status {
    let function = "blazekit_holistic_landmarker_create"
    return guarded(function, fallback: BLAZEKIT_ERROR_MODEL) {
        let out = try requireOut(out, function)
        let o = try readVersioned(options, defaults: holisticDefaults(), name: "options")
        let mode = try checkCommon(runningMode: o.running_mode, model: o.model, threadCount: o.thread_count,
                                   hasCallback: o.result_callback != nil, count: nil,
                                   confidences: holisticConfidences().map { ($0.name, o[keyPath: $0.c]) })
        let swift = HolisticLandmarkerOptions()
        swift.poseModel = poseModel(o.model)
        swift.refineFaceLandmarks = o.refine_face_landmarks != 0
        let source = try ModelSource(path: o.model_asset_path, buffer: o.model_asset_buffer, size: o.model_asset_buffer_size,
                                     names: ModelNames(roles: HolisticLandmarkerDefinition.modelRoles(for: swift)))
        defer { source.cleanUp() }
        swift.baseOptions = try baseOptions(modelAssetPath: source.path, threadCount: o.thread_count, fixedPlan: o.fixed_plan,
                                         planCacheDir: o.plan_cache_dir)
        swift.runningMode = mode
        for field in holisticConfidences() { swift[keyPath: field.swift] = o[keyPath: field.c] }
        swift.shouldOutputPoseSegmentationMasks = o.output_segmentation_mask != 0
        swift.poseSmoothing = LegacyPoseSolution(smoothLandmarks: o.smooth_landmarks != 0, smoothSegmentation: o.smooth_segmentation != 0,
                                                 usesSolutionClock: o.solution_clock != 0)
        let relay = o.result_callback.map { HolisticRelay($0, o.user_data) }
        swift.holisticLandmarkerLiveStreamDelegate = relay
        try HolisticC.create(swift, source: source, mode: mode, relay: relay, out: out, function: function)
    }
}

@_cdecl("blazekit_holistic_landmarker_detect")
public func blazekit_holistic_landmarker_detect_impl(_ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?,
                                                     _ out: UnsafeMutablePointer<UnsafeMutablePointer<blazekit_holistic_result>?>?) -> blazekit_status {
    HolisticC.detect(landmarker, image, out)
}

@_cdecl("blazekit_holistic_landmarker_detect_for_video")
public func blazekit_holistic_landmarker_detect_for_video_impl(
    _ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?, _ timestamp: Int64,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<blazekit_holistic_result>?>?) -> blazekit_status {
    HolisticC.detectForVideo(landmarker, image, timestamp, out)
}

@_cdecl("blazekit_holistic_landmarker_detect_async")
public func blazekit_holistic_landmarker_detect_async_impl(_ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?,
                                                           _ timestamp: Int64) -> blazekit_status {
    HolisticC.detectAsync(landmarker, image, timestamp)
}

@_cdecl("blazekit_holistic_landmarker_close")
public func blazekit_holistic_landmarker_close_impl(_ landmarker: OpaquePointer?) -> blazekit_status { HolisticC.close(landmarker) }

@_cdecl("blazekit_holistic_landmarker_destroy")
public func blazekit_holistic_landmarker_destroy_impl(_ landmarker: OpaquePointer?) { HolisticC.destroy(landmarker) }

@_cdecl("blazekit_holistic_result_free")
public func blazekit_holistic_result_free_impl(_ result: UnsafeMutablePointer<blazekit_holistic_result>?) { HolisticC.freeResult(result) }
