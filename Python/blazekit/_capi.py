"""ctypes declarations of libblazekit.so (Sources/CBlazeKit/include/blazekit.h). Private."""
import ctypes
import os
import sys

c_int32, c_int64, c_uint32, c_size_t, c_float = ctypes.c_int32, ctypes.c_int64, ctypes.c_uint32, ctypes.c_size_t, ctypes.c_float
c_void_p, c_char_p = ctypes.c_void_p, ctypes.c_char_p

OK, INVALID_ARGUMENT, INVALID_OPTION, MODEL, RUNNING_MODE, TIMESTAMP, CLOSED, INTERNAL = range(8)
PIXEL_RGB, PIXEL_RGBA, PIXEL_BGRA, PIXEL_GRAY = range(4)
HAS_VISIBILITY, HAS_PRESENCE = 1, 2


class Image(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("pixels", c_void_p), ("byte_count", c_size_t), ("width", c_int32),
                ("height", c_int32), ("bytes_per_row", c_size_t), ("format", c_int32), ("orientation", c_int32)]


class Landmark(ctypes.Structure):
    _fields_ = [("x", c_float), ("y", c_float), ("z", c_float), ("visibility", c_float), ("presence", c_float),
                ("flags", c_uint32)]


class Mask(ctypes.Structure):
    _fields_ = [("width", c_int32), ("height", c_int32), ("data", ctypes.POINTER(c_float))]


class Category(ctypes.Structure):
    _fields_ = [("index", c_int32), ("score", c_float), ("category_name", c_char_p), ("display_name", c_char_p)]


class PoseResult(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("timestamp_ms", c_int64), ("pose_count", c_size_t),
                ("landmarks_per_pose", c_size_t), ("landmarks", ctypes.POINTER(Landmark)),
                ("world_landmarks", ctypes.POINTER(Landmark)), ("mask_count", c_size_t),
                ("segmentation_masks", ctypes.POINTER(Mask)),
                # since 0.4
                ("ids", ctypes.POINTER(c_int64))]


class HandResult(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("timestamp_ms", c_int64), ("hand_count", c_size_t),
                ("landmarks_per_hand", c_size_t), ("landmarks", ctypes.POINTER(Landmark)),
                ("world_landmarks", ctypes.POINTER(Landmark)), ("handedness", ctypes.POINTER(Category)),
                # since 0.4
                ("ids", ctypes.POINTER(c_int64))]


class HolisticResult(ctypes.Structure):
    # since 0.5
    _fields_ = [("struct_size", c_size_t), ("timestamp_ms", c_int64),
                ("face_landmark_count", c_size_t), ("face_landmarks", ctypes.POINTER(Landmark)),
                ("pose_landmark_count", c_size_t), ("pose_landmarks", ctypes.POINTER(Landmark)),
                ("pose_world_landmarks", ctypes.POINTER(Landmark)),
                ("left_hand_landmark_count", c_size_t), ("left_hand_landmarks", ctypes.POINTER(Landmark)),
                ("left_hand_world_landmarks", ctypes.POINTER(Landmark)),
                ("right_hand_landmark_count", c_size_t), ("right_hand_landmarks", ctypes.POINTER(Landmark)),
                ("right_hand_world_landmarks", ctypes.POINTER(Landmark)),
                ("segmentation_mask", ctypes.POINTER(Mask))]


PoseCallback = ctypes.CFUNCTYPE(None, c_void_p, c_int32, c_char_p, ctypes.POINTER(PoseResult), c_int64)
HandCallback = ctypes.CFUNCTYPE(None, c_void_p, c_int32, c_char_p, ctypes.POINTER(HandResult), c_int64)
HolisticCallback = ctypes.CFUNCTYPE(None, c_void_p, c_int32, c_char_p, ctypes.POINTER(HolisticResult), c_int64)


class PoseOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("model_asset_path", c_char_p), ("model_asset_buffer", c_void_p),
                ("model_asset_buffer_size", c_size_t), ("running_mode", c_int32), ("model", c_int32),
                ("thread_count", c_int32), ("num_poses", c_int32), ("min_pose_detection_confidence", c_float),
                ("min_pose_presence_confidence", c_float), ("min_tracking_confidence", c_float),
                ("output_segmentation_masks", c_int32), ("result_callback", PoseCallback), ("user_data", c_void_p),
                # since 0.2
                ("accurate_mode", c_int32), ("accurate_min_person_height", c_int32), ("accurate_off", c_char_p),
                # since 0.3
                ("legacy_solution", c_int32), ("smooth_landmarks", c_int32), ("smooth_segmentation", c_int32),
                ("solution_clock", c_int32),
                # since 0.4
                ("identity_max_absent_frames", c_int32), ("identity_min_similarity", c_float),
                # since 0.6
                ("fixed_plan", c_int32),
                # since 0.7
                ("plan_cache_dir", c_char_p)]


class HandOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("model_asset_path", c_char_p), ("model_asset_buffer", c_void_p),
                ("model_asset_buffer_size", c_size_t), ("running_mode", c_int32), ("model", c_int32),
                ("thread_count", c_int32), ("num_hands", c_int32), ("min_hand_detection_confidence", c_float),
                ("min_hand_presence_confidence", c_float), ("min_tracking_confidence", c_float),
                ("result_callback", HandCallback), ("user_data", c_void_p),
                # since 0.2
                ("accurate_mode", c_int32), ("accurate_min_hand_size", c_int32), ("accurate_off", c_char_p),
                ("accurate_on", c_char_p),
                # since 0.3
                ("legacy_solution", c_int32),
                # since 0.4
                ("identity_max_absent_frames", c_int32), ("identity_min_similarity", c_float), ("vote_handedness", c_int32),
                # since 0.6
                ("fixed_plan", c_int32),
                # since 0.7
                ("plan_cache_dir", c_char_p)]


class HolisticOptions(ctypes.Structure):
    # since 0.5
    _fields_ = [("struct_size", c_size_t), ("model_asset_path", c_char_p), ("model_asset_buffer", c_void_p),
                ("model_asset_buffer_size", c_size_t), ("running_mode", c_int32), ("model", c_int32),
                ("thread_count", c_int32), ("min_face_detection_confidence", c_float),
                ("min_face_suppression_threshold", c_float), ("min_face_landmarks_confidence", c_float),
                ("min_pose_detection_confidence", c_float), ("min_pose_suppression_threshold", c_float),
                ("min_pose_landmarks_confidence", c_float), ("min_hand_landmarks_confidence", c_float),
                ("output_segmentation_mask", c_int32), ("refine_face_landmarks", c_int32), ("smooth_landmarks", c_int32),
                ("smooth_segmentation", c_int32), ("solution_clock", c_int32), ("result_callback", HolisticCallback),
                ("user_data", c_void_p),
                # since 0.6
                ("fixed_plan", c_int32),
                # since 0.7
                ("plan_cache_dir", c_char_p)]


def _library_path():
    env = os.environ.get("BLAZEKIT_LIBRARY")
    if env:
        return env
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib", "libblazekit.so")


def _load():
    path = _library_path()
    if not os.path.exists(path):
        raise ImportError(f"blazekit: the native library is missing at {path}; reinstall the package "
                          "(python3 -m pip install ./Python builds it) or set BLAZEKIT_LIBRARY")
    lib = ctypes.CDLL(path)
    P = ctypes.POINTER
    sigs = {
        "blazekit_version": (c_uint32, []),
        "blazekit_version_string": (c_char_p, []),
        "blazekit_status_name": (c_char_p, [c_int32]),
        "blazekit_last_error_message": (c_char_p, []),
        "blazekit_image_decode_file": (c_int32, [c_char_p, P(P(ctypes.c_uint8)), P(c_int32), P(c_int32), P(c_int32)]),
        "blazekit_pixels_free": (None, [P(ctypes.c_uint8)]),
        "blazekit_pose_result_free": (None, [P(PoseResult)]),
        "blazekit_hand_result_free": (None, [P(HandResult)]),
        "blazekit_pose_landmarker_options_init_sized": (c_int32, [P(PoseOptions), ctypes.c_size_t]),
        "blazekit_hand_landmarker_options_init_sized": (c_int32, [P(HandOptions), ctypes.c_size_t]),
        "blazekit_pose_landmarker_create": (c_int32, [P(PoseOptions), P(c_void_p)]),
        "blazekit_hand_landmarker_create": (c_int32, [P(HandOptions), P(c_void_p)]),
        "blazekit_pose_landmarker_detect": (c_int32, [c_void_p, P(Image), P(P(PoseResult))]),
        "blazekit_hand_landmarker_detect": (c_int32, [c_void_p, P(Image), P(P(HandResult))]),
        "blazekit_pose_landmarker_detect_for_video": (c_int32, [c_void_p, P(Image), c_int64, P(P(PoseResult))]),
        "blazekit_hand_landmarker_detect_for_video": (c_int32, [c_void_p, P(Image), c_int64, P(P(HandResult))]),
        "blazekit_pose_landmarker_detect_async": (c_int32, [c_void_p, P(Image), c_int64]),
        "blazekit_hand_landmarker_detect_async": (c_int32, [c_void_p, P(Image), c_int64]),
        "blazekit_pose_landmarker_close": (c_int32, [c_void_p]),
        "blazekit_hand_landmarker_close": (c_int32, [c_void_p]),
        "blazekit_pose_landmarker_destroy": (None, [c_void_p]),
        "blazekit_hand_landmarker_destroy": (None, [c_void_p]),
    }
    for name, (res, args) in {"options_init_sized": (c_int32, [P(HolisticOptions), ctypes.c_size_t]),
                              "create": (c_int32, [P(HolisticOptions), P(c_void_p)]),
                              "detect": (c_int32, [c_void_p, P(Image), P(P(HolisticResult))]),
                              "detect_for_video": (c_int32, [c_void_p, P(Image), c_int64, P(P(HolisticResult))]),
                              "detect_async": (c_int32, [c_void_p, P(Image), c_int64]),
                              "close": (c_int32, [c_void_p]), "destroy": (None, [c_void_p])}.items():
        sigs[f"blazekit_holistic_landmarker_{name}"] = (res, args)
    sigs["blazekit_holistic_result_free"] = (None, [P(HolisticResult)])
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


lib = _load()


def last_error():
    return lib.blazekit_last_error_message().decode("utf-8", "replace")


def ids(r, count):
    """The result's `count` identities (BlazeKit's addition), [] when the library gave none (IMAGE mode)."""
    if count == 0 or not r.ids:
        return []
    return [int(r.ids[i]) for i in range(count)]
