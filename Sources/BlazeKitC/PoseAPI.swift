// The pose landmarker of the C ABI (blazekit_pose_*): options, results, and the functions.
import BlazeKit
import CBlazeKit
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

enum PoseC: CTask {
    static let name = "pose"

    static func makeTask(_ options: PoseLandmarkerOptions) throws -> LandmarkerTask<PoseLandmarkerDefinition> {
        try PoseLandmarker(options: options)
    }

    static func makeResult(_ r: PoseLandmarkerResult) -> UnsafeMutablePointer<blazekit_pose_result> {
        let perPose = r.landmarks.first?.count ?? 33
        let out = UnsafeMutablePointer<blazekit_pose_result>.allocate(capacity: 1)
        out.initialize(to: blazekit_pose_result(
            struct_size: cSizeof(blazekit_pose_result.self), timestamp_ms: Int64(r.timestampInMilliseconds),
            pose_count: r.landmarks.count, landmarks_per_pose: perPose,
            landmarks: cConstArray(cLandmarks(r.landmarks)), world_landmarks: cConstArray(cLandmarks(r.worldLandmarks)),
            mask_count: r.segmentationMasks.count, segmentation_masks: cConstArray(r.segmentationMasks.map(cMask)),
            ids: cConstArray(r.ids.map(Int64.init))))
        return out
    }

    static func freeResult(_ result: UnsafeMutablePointer<blazekit_pose_result>?) {
        guard let result else { return }
        let r = result.pointee
        freeMasks(r.segmentation_masks, count: r.mask_count)
        freeArray(r.landmarks)
        freeArray(r.world_landmarks)
        freeArray(r.ids)
        result.deallocate()
    }
}

final class PoseRelay: ResultRelay<PoseC>, PoseLandmarkerLiveStreamDelegate, @unchecked Sendable {
    convenience init(_ callback: @escaping blazekit_pose_result_callback, _ userData: UnsafeMutableRawPointer?) {
        self.init { callback(userData, $0, $1, $2, $3) }
    }

    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?) {
        deliver(result, timestampInMilliseconds: timestampInMilliseconds, error: error)
    }
}

private func poseDefaults() -> blazekit_pose_landmarker_options {
    let swift = PoseLandmarkerOptions()
    var o = blazekit_pose_landmarker_options()
    o.struct_size = cSizeof(blazekit_pose_landmarker_options.self)
    o.running_mode = Int32(BLAZEKIT_RUNNING_MODE_IMAGE.rawValue)
    o.model = swift.model == .full ? Int32(BLAZEKIT_MODEL_FULL.rawValue) : Int32(BLAZEKIT_MODEL_LITE.rawValue)
    o.thread_count = Int32(swift.baseOptions.threadCount)
    o.fixed_plan = swift.baseOptions.kernelPlanning == .fixed ? 1 : 0
    o.num_poses = Int32(swift.numPoses)
    o.min_pose_detection_confidence = swift.minPoseDetectionConfidence
    o.min_pose_presence_confidence = swift.minPosePresenceConfidence
    o.min_tracking_confidence = swift.minTrackingConfidence
    o.output_segmentation_masks = swift.shouldOutputSegmentationMasks ? 1 : 0
    o.accurate_mode = 0
    o.accurate_min_person_height = Int32(PoseAccurateMode().smallestPersonHeight)
    o.accurate_off = nil
    let legacy = LegacyPoseSolution()
    o.legacy_solution = 0
    o.smooth_landmarks = legacy.smoothLandmarks ? 1 : 0
    o.smooth_segmentation = legacy.smoothSegmentation ? 1 : 0
    o.solution_clock = legacy.usesSolutionClock ? 1 : 0
    o.identity_max_absent_frames = Int32(swift.identity.maxAbsentFrames)
    o.identity_min_similarity = swift.identity.minSimilarity
    return o
}

/// The accurate mode the C options ask for (nil when `accurate_mode` is 0), its fields checked by their C names.
private func poseAccurateMode(_ o: blazekit_pose_landmarker_options) throws -> PoseAccurateMode? {
    guard o.accurate_mode != 0 else { return nil }
    let least = Int32(PoseAccurateMode.smallestAcceptedPersonHeight)
    guard o.accurate_min_person_height >= least else {
        throw option("accurate_min_person_height", expected: ">= \(least) (pixels)", found: "\(o.accurate_min_person_height)")
    }
    let off = o.accurate_off.map { String(cString: $0) } ?? ""
    do {
        return try PoseAccurateMode(smallestPersonHeight: Int(o.accurate_min_person_height), turningOff: off)
    } catch {
        throw option("accurate_off", expected: "comma-separated parts of \(PoseAccurateMode.partNames.joined(separator: ", "))",
                     found: "'\(off)'")
    }
}

@_cdecl("blazekit_pose_landmarker_options_init")
public func blazekit_pose_landmarker_options_init_impl(_ options: UnsafeMutablePointer<blazekit_pose_landmarker_options>?) -> blazekit_status {
    initOptions(options, size: UnsizedInitBytes.pose, "blazekit_pose_landmarker_options_init", poseDefaults)
}

@_cdecl("blazekit_pose_landmarker_options_init_sized")
public func blazekit_pose_landmarker_options_init_sized_impl(_ options: UnsafeMutablePointer<blazekit_pose_landmarker_options>?,
                                                                _ size: Int) -> blazekit_status {
    initOptions(options, size: size, "blazekit_pose_landmarker_options_init_sized", poseDefaults)
}

@_cdecl("blazekit_pose_landmarker_create")
public func blazekit_pose_landmarker_create_impl(_ options: UnsafePointer<blazekit_pose_landmarker_options>?,
                                                 _ out: UnsafeMutablePointer<OpaquePointer?>?) -> blazekit_status {
    let function = "blazekit_pose_landmarker_create"
    return guarded(function, fallback: BLAZEKIT_ERROR_MODEL) {
        let out = try requireOut(out, function)
        let o = try readVersioned(options, defaults: poseDefaults(), name: "options")
        let mode = try checkCommon(runningMode: o.running_mode, model: o.model, threadCount: o.thread_count,
                                   hasCallback: o.result_callback != nil, count: ("num_poses", o.num_poses),
                                   confidences: [("min_pose_detection_confidence", o.min_pose_detection_confidence),
                                                 ("min_pose_presence_confidence", o.min_pose_presence_confidence),
                                                 ("min_tracking_confidence", o.min_tracking_confidence)])
        let model = poseModel(o.model)
        let source = try ModelSource(path: o.model_asset_path, buffer: o.model_asset_buffer,
                                     size: o.model_asset_buffer_size,
                                     names: ModelNames(landmarks: model == .lite ? "pose_landmark_lite.bkm" : "pose_landmark_full.bkm",
                                                       builtins: ["pose_detection.bkm"]))
        defer { source.cleanUp() }
        let swift = PoseLandmarkerOptions()
        swift.baseOptions = try baseOptions(modelAssetPath: source.path, threadCount: o.thread_count, fixedPlan: o.fixed_plan,
                                         planCacheDir: o.plan_cache_dir)
        swift.runningMode = mode
        swift.model = model
        swift.numPoses = Int(o.num_poses)
        swift.minPoseDetectionConfidence = o.min_pose_detection_confidence
        swift.minPosePresenceConfidence = o.min_pose_presence_confidence
        swift.minTrackingConfidence = o.min_tracking_confidence
        swift.shouldOutputSegmentationMasks = o.output_segmentation_masks != 0
        swift.accurateMode = try poseAccurateMode(o)
        swift.identity = try identityOptions(maxAbsentFrames: o.identity_max_absent_frames, minSimilarity: o.identity_min_similarity)
        if o.legacy_solution != 0 {
            swift.legacySolution = LegacyPoseSolution(smoothLandmarks: o.smooth_landmarks != 0, smoothSegmentation: o.smooth_segmentation != 0,
                                                      usesSolutionClock: o.solution_clock != 0)
        }
        let relay = o.result_callback.map { PoseRelay($0, o.user_data) }
        swift.poseLandmarkerLiveStreamDelegate = relay
        try PoseC.create(swift, source: source, mode: mode, relay: relay, out: out, function: function)
    }
}

@_cdecl("blazekit_pose_landmarker_detect")
public func blazekit_pose_landmarker_detect_impl(_ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?,
                                                 _ out: UnsafeMutablePointer<UnsafeMutablePointer<blazekit_pose_result>?>?) -> blazekit_status {
    PoseC.detect(landmarker, image, out)
}

@_cdecl("blazekit_pose_landmarker_detect_for_video")
public func blazekit_pose_landmarker_detect_for_video_impl(_ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?,
                                                           _ timestamp: Int64, _ out: UnsafeMutablePointer<UnsafeMutablePointer<blazekit_pose_result>?>?) -> blazekit_status {
    PoseC.detectForVideo(landmarker, image, timestamp, out)
}

@_cdecl("blazekit_pose_landmarker_detect_async")
public func blazekit_pose_landmarker_detect_async_impl(_ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?,
                                                       _ timestamp: Int64) -> blazekit_status {
    PoseC.detectAsync(landmarker, image, timestamp)
}

@_cdecl("blazekit_pose_landmarker_close")
public func blazekit_pose_landmarker_close_impl(_ landmarker: OpaquePointer?) -> blazekit_status { PoseC.close(landmarker) }

@_cdecl("blazekit_pose_landmarker_destroy")
public func blazekit_pose_landmarker_destroy_impl(_ landmarker: OpaquePointer?) { PoseC.destroy(landmarker) }

@_cdecl("blazekit_pose_result_free")
public func blazekit_pose_result_free_impl(_ result: UnsafeMutablePointer<blazekit_pose_result>?) { PoseC.freeResult(result) }
