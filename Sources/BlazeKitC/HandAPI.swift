// The hand landmarker of the C ABI (blazekit_hand_*): options, results, and the functions.
import BlazeKit
import CBlazeKit
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

enum HandC: CTask {
    static let name = "hand"

    static func makeTask(_ options: HandLandmarkerOptions) throws -> LandmarkerTask<HandLandmarkerDefinition> {
        try HandLandmarker(options: options)
    }

    static func makeResult(_ r: HandLandmarkerResult) -> UnsafeMutablePointer<blazekit_hand_result> {
        let handedness = r.handedness.map { categories -> blazekit_category in
            let c = categories.first
            return blazekit_category(index: Int32(c?.index ?? -1), score: c?.score ?? 0,
                                     category_name: UnsafePointer(strdup(c?.categoryName ?? "")),
                                     display_name: UnsafePointer(strdup(c?.displayName ?? "")))
        }
        let out = UnsafeMutablePointer<blazekit_hand_result>.allocate(capacity: 1)
        out.initialize(to: blazekit_hand_result(
            struct_size: cSizeof(blazekit_hand_result.self), timestamp_ms: Int64(r.timestampInMilliseconds),
            hand_count: r.landmarks.count, landmarks_per_hand: r.landmarks.first?.count ?? 21,
            landmarks: cConstArray(cLandmarks(r.landmarks)), world_landmarks: cConstArray(cLandmarks(r.worldLandmarks)),
            handedness: cConstArray(handedness), ids: cConstArray(r.ids.map(Int64.init))))
        return out
    }

    static func freeResult(_ result: UnsafeMutablePointer<blazekit_hand_result>?) {
        guard let result else { return }
        let r = result.pointee
        if let handedness = r.handedness {
            for i in 0..<r.hand_count {
                free(UnsafeMutablePointer(mutating: handedness[i].category_name))
                free(UnsafeMutablePointer(mutating: handedness[i].display_name))
            }
            freeArray(handedness)
        }
        freeArray(r.landmarks)
        freeArray(r.world_landmarks)
        freeArray(r.ids)
        result.deallocate()
    }
}

final class HandRelay: ResultRelay<HandC>, HandLandmarkerLiveStreamDelegate, @unchecked Sendable {
    convenience init(_ callback: @escaping blazekit_hand_result_callback, _ userData: UnsafeMutableRawPointer?) {
        self.init { callback(userData, $0, $1, $2, $3) }
    }

    func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                        timestampInMilliseconds: Int, error: (any Error)?) {
        deliver(result, timestampInMilliseconds: timestampInMilliseconds, error: error)
    }
}

private func handDefaults() -> blazekit_hand_landmarker_options {
    let swift = HandLandmarkerOptions()
    var o = blazekit_hand_landmarker_options()
    o.struct_size = cSizeof(blazekit_hand_landmarker_options.self)
    o.running_mode = Int32(BLAZEKIT_RUNNING_MODE_IMAGE.rawValue)
    o.model = swift.model == .full ? Int32(BLAZEKIT_MODEL_FULL.rawValue) : Int32(BLAZEKIT_MODEL_LITE.rawValue)
    o.thread_count = Int32(swift.baseOptions.threadCount)
    o.fixed_plan = swift.baseOptions.kernelPlanning == .fixed ? 1 : 0
    o.num_hands = Int32(swift.numHands)
    o.min_hand_detection_confidence = swift.minHandDetectionConfidence
    o.min_hand_presence_confidence = swift.minHandPresenceConfidence
    o.min_tracking_confidence = swift.minTrackingConfidence
    o.accurate_mode = 0
    o.accurate_min_hand_size = Int32(HandAccurateMode().smallestHandSize)
    o.accurate_off = nil
    o.accurate_on = nil
    o.legacy_solution = 0
    o.identity_max_absent_frames = Int32(swift.identity.maxAbsentFrames)
    o.identity_min_similarity = swift.identity.minSimilarity
    o.vote_handedness = swift.identity.votesHandedness ? 1 : 0
    return o
}

/// The hand accurate mode the C options ask for (nil when `accurate_mode` is 0), its fields checked by their C names.
private func handAccurateMode(_ o: blazekit_hand_landmarker_options) throws -> HandAccurateMode? {
    guard o.accurate_mode != 0 else { return nil }
    let least = Int32(HandAccurateMode.smallestAcceptedHandSize)
    guard o.accurate_min_hand_size >= least else {
        throw option("accurate_min_hand_size", expected: ">= \(least) (pixels)", found: "\(o.accurate_min_hand_size)")
    }
    var mode = HandAccurateMode()
    mode.smallestHandSize = Int(o.accurate_min_hand_size)
    for (name, text, on) in [("accurate_on", o.accurate_on, true), ("accurate_off", o.accurate_off, false)] {
        let list = text.map { String(cString: $0) } ?? ""
        do {
            if on { try mode.turnOn(parts: list) } else { try mode.turnOff(parts: list) }
        } catch {
            throw option(name, expected: "comma-separated parts of \(HandAccurateMode.partNames.joined(separator: ", "))",
                         found: "'\(list)'")
        }
    }
    return mode
}

@_cdecl("blazekit_hand_landmarker_options_init")
public func blazekit_hand_landmarker_options_init_impl(_ options: UnsafeMutablePointer<blazekit_hand_landmarker_options>?) -> blazekit_status {
    initOptions(options, size: UnsizedInitBytes.hand, "blazekit_hand_landmarker_options_init", handDefaults)
}

@_cdecl("blazekit_hand_landmarker_options_init_sized")
public func blazekit_hand_landmarker_options_init_sized_impl(_ options: UnsafeMutablePointer<blazekit_hand_landmarker_options>?,
                                                                _ size: Int) -> blazekit_status {
    initOptions(options, size: size, "blazekit_hand_landmarker_options_init_sized", handDefaults)
}

@_cdecl("blazekit_hand_landmarker_create")
public func blazekit_hand_landmarker_create_impl(_ options: UnsafePointer<blazekit_hand_landmarker_options>?,
                                                 _ out: UnsafeMutablePointer<OpaquePointer?>?) -> blazekit_status {
    let function = "blazekit_hand_landmarker_create"
    return guarded(function, fallback: BLAZEKIT_ERROR_MODEL) {
        let out = try requireOut(out, function)
        let o = try readVersioned(options, defaults: handDefaults(), name: "options")
        let mode = try checkCommon(runningMode: o.running_mode, model: o.model, threadCount: o.thread_count,
                                   hasCallback: o.result_callback != nil, count: ("num_hands", o.num_hands),
                                   confidences: [("min_hand_detection_confidence", o.min_hand_detection_confidence),
                                                 ("min_hand_presence_confidence", o.min_hand_presence_confidence),
                                                 ("min_tracking_confidence", o.min_tracking_confidence)])
        let lite = o.model == Int32(BLAZEKIT_MODEL_LITE.rawValue)
        let source = try ModelSource(path: o.model_asset_path, buffer: o.model_asset_buffer,
                                     size: o.model_asset_buffer_size,
                                     names: lite ? ModelNames(landmarks: "hand_landmark_lite.bkm", builtins: ["palm_detection_lite.bkm"])
                                                 : ModelNames(landmarks: "hand_landmark_full.bkm", builtins: ["palm_detection_full.bkm"]))
        defer { source.cleanUp() }
        let swift = HandLandmarkerOptions()
        swift.baseOptions = try baseOptions(modelAssetPath: source.path, threadCount: o.thread_count, fixedPlan: o.fixed_plan,
                                         planCacheDir: o.plan_cache_dir)
        swift.runningMode = mode
        swift.model = lite ? .lite : .full
        swift.numHands = Int(o.num_hands)
        swift.minHandDetectionConfidence = o.min_hand_detection_confidence
        swift.minHandPresenceConfidence = o.min_hand_presence_confidence
        swift.minTrackingConfidence = o.min_tracking_confidence
        swift.accurateMode = try handAccurateMode(o)
        swift.identity = try identityOptions(maxAbsentFrames: o.identity_max_absent_frames, minSimilarity: o.identity_min_similarity,
                                             votesHandedness: o.vote_handedness != 0)
        if o.legacy_solution != 0 { swift.legacySolution = LegacyHandSolution() }
        let relay = o.result_callback.map { HandRelay($0, o.user_data) }
        swift.handLandmarkerLiveStreamDelegate = relay
        try HandC.create(swift, source: source, mode: mode, relay: relay, out: out, function: function)
    }
}

@_cdecl("blazekit_hand_landmarker_detect")
public func blazekit_hand_landmarker_detect_impl(_ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?,
                                                 _ out: UnsafeMutablePointer<UnsafeMutablePointer<blazekit_hand_result>?>?) -> blazekit_status {
    HandC.detect(landmarker, image, out)
}

@_cdecl("blazekit_hand_landmarker_detect_for_video")
public func blazekit_hand_landmarker_detect_for_video_impl(_ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?, _ timestamp: Int64,
                                                           _ out: UnsafeMutablePointer<UnsafeMutablePointer<blazekit_hand_result>?>?) -> blazekit_status {
    HandC.detectForVideo(landmarker, image, timestamp, out)
}

@_cdecl("blazekit_hand_landmarker_detect_async")
public func blazekit_hand_landmarker_detect_async_impl(_ landmarker: OpaquePointer?, _ image: UnsafePointer<blazekit_image>?,
                                                       _ timestamp: Int64) -> blazekit_status {
    HandC.detectAsync(landmarker, image, timestamp)
}

@_cdecl("blazekit_hand_landmarker_close")
public func blazekit_hand_landmarker_close_impl(_ landmarker: OpaquePointer?) -> blazekit_status { HandC.close(landmarker) }

@_cdecl("blazekit_hand_landmarker_destroy")
public func blazekit_hand_landmarker_destroy_impl(_ landmarker: OpaquePointer?) { HandC.destroy(landmarker) }

@_cdecl("blazekit_hand_result_free")
public func blazekit_hand_result_free_impl(_ result: UnsafeMutablePointer<blazekit_hand_result>?) { HandC.freeResult(result) }
