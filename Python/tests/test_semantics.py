"""MediaPipe 0.10.14's Python semantics: the cases its own tests match on, and the Image API."""
import os

import numpy as np
import pytest

import blazekit as mp
from blazekit.tasks import python
from blazekit.tasks.python import vision

from conftest import MODELS, photo_path

POSE = photo_path("pose", "mpii_052475643.png")
HAND = photo_path("hand", "panoptic_ex2_2.flv_000040_l.png")
TASKS = [(vision.PoseLandmarker, vision.PoseLandmarkerOptions, POSE),
         (vision.HandLandmarker, vision.HandLandmarkerOptions, HAND)]


@pytest.fixture(scope="module")
def pose_image():
    return mp.Image.create_from_file(POSE)


def options(Options, **kwargs):
    return Options(base_options=python.BaseOptions(model_asset_path=MODELS), **kwargs)


@pytest.mark.parametrize("Task,Options,path", TASKS)
def test_create_from_model_path_and_context_manager(Task, Options, path):
    image = mp.Image.create_from_file(path)
    with Task.create_from_model_path(MODELS) as landmarker:
        assert isinstance(landmarker, Task)
        landmarker.detect(image)
    with pytest.raises(ValueError, match="closed"):
        landmarker.detect(image)
    landmarker.close()  # twice is fine


@pytest.mark.parametrize("Task,Options,path", TASKS)
def test_invalid_model_path(Task, Options, path):
    with pytest.raises(RuntimeError, match="Unable to open file at /path/to/invalid/model.tflite"):
        Task.create_from_options(Options(base_options=python.BaseOptions(model_asset_path="/path/to/invalid/model.tflite")))


def test_model_asset_buffer_equals_model_asset_path(pose_image):
    with open(os.path.join(MODELS, "pose_landmark_full.bkm"), "rb") as f:
        buffer = f.read()
    by_buffer = vision.PoseLandmarker.create_from_options(
        vision.PoseLandmarkerOptions(base_options=python.BaseOptions(model_asset_buffer=buffer)))
    with by_buffer, vision.PoseLandmarker.create_from_options(options(vision.PoseLandmarkerOptions)) as by_path:
        assert by_buffer.detect(pose_image) == by_path.detect(pose_image)


def test_model_asset_buffer_garbage():
    with pytest.raises(RuntimeError, match="model_asset_buffer"):
        vision.PoseLandmarker.create_from_options(
            vision.PoseLandmarkerOptions(base_options=python.BaseOptions(model_asset_buffer=b"not a model at all")))


@pytest.mark.parametrize("Task,Options,path", TASKS)
def test_missing_result_callback(Task, Options, path):
    with pytest.raises(ValueError, match=r"result callback must be provided"):
        Task.create_from_options(options(Options, running_mode=vision.RunningMode.LIVE_STREAM))


@pytest.mark.parametrize("Task,Options,path", TASKS)
@pytest.mark.parametrize("mode", [vision.RunningMode.IMAGE, vision.RunningMode.VIDEO])
def test_illegal_result_callback(Task, Options, path, mode):
    with pytest.raises(ValueError, match=r"result callback should not be provided"):
        Task.create_from_options(options(Options, running_mode=mode, result_callback=lambda *a: None))


@pytest.mark.parametrize("Task,Options,path", TASKS)
def test_wrong_running_mode(Task, Options, path):
    image = mp.Image.create_from_file(path)
    with Task.create_from_options(options(Options)) as landmarker:
        with pytest.raises(ValueError, match=r"not initialized with the video mode"):
            landmarker.detect_for_video(image, 0)
        with pytest.raises(ValueError, match=r"not initialized with the live stream mode"):
            landmarker.detect_async(image, 0)
    with Task.create_from_options(options(Options, running_mode=vision.RunningMode.VIDEO)) as landmarker:
        with pytest.raises(ValueError, match=r"not initialized with the image mode"):
            landmarker.detect(image)
        with pytest.raises(ValueError, match=r"not initialized with the live stream mode"):
            landmarker.detect_async(image, 0)
    with Task.create_from_options(options(Options, running_mode=vision.RunningMode.LIVE_STREAM,
                                          result_callback=lambda *a: None)) as landmarker:
        with pytest.raises(ValueError, match=r"not initialized with the image mode"):
            landmarker.detect(image)
        with pytest.raises(ValueError, match=r"not initialized with the video mode"):
            landmarker.detect_for_video(image, 0)


@pytest.mark.parametrize("Task,Options,path", TASKS)
def test_timestamps_must_increase(Task, Options, path):
    image = mp.Image.create_from_file(path)
    with Task.create_from_options(options(Options, running_mode=vision.RunningMode.VIDEO)) as landmarker:
        landmarker.detect_for_video(image, 1)
        with pytest.raises(ValueError, match=r"Input timestamp must be monotonically increasing"):
            landmarker.detect_for_video(image, 0)
    with Task.create_from_options(options(Options, running_mode=vision.RunningMode.LIVE_STREAM,
                                          result_callback=lambda *a: None)) as landmarker:
        landmarker.detect_async(image, 100)
        with pytest.raises(ValueError, match=r"Input timestamp must be monotonically increasing"):
            landmarker.detect_async(image, 0)


def test_bad_options():
    with pytest.raises(ValueError, match="num_poses"):
        vision.PoseLandmarker.create_from_options(options(vision.PoseLandmarkerOptions, num_poses=0))
    with pytest.raises(ValueError, match="min_hand_detection_confidence"):
        vision.HandLandmarker.create_from_options(options(vision.HandLandmarkerOptions, min_hand_detection_confidence=2))


def test_region_of_interest_refused(pose_image):
    class ROI:
        region_of_interest = object()
        rotation_degrees = 0
    with vision.PoseLandmarker.create_from_options(options(vision.PoseLandmarkerOptions)) as landmarker:
        with pytest.raises(ValueError, match="This task doesn't support region-of-interest."):
            landmarker.detect(pose_image, ROI())


def test_no_segmentation_masks_unless_asked(pose_image):
    with vision.PoseLandmarker.create_from_options(options(vision.PoseLandmarkerOptions)) as landmarker:
        result = landmarker.detect(pose_image)
    assert result.segmentation_masks is None
    assert len(result.pose_landmarks) == 1 and len(result.pose_landmarks[0]) == 33
    lm = result.pose_landmarks[0][0]
    assert {"x", "y", "z", "visibility", "presence"} <= set(vars(lm))


def test_empty_result():
    blank = mp.Image(image_format=mp.ImageFormat.SRGB, data=np.zeros((64, 64, 3), np.uint8))
    with vision.PoseLandmarker.create_from_options(options(vision.PoseLandmarkerOptions)) as landmarker:
        result = landmarker.detect(blank)
    assert result.pose_landmarks == [] and result.pose_world_landmarks == []
    with vision.HandLandmarker.create_from_options(options(vision.HandLandmarkerOptions)) as landmarker:
        result = landmarker.detect(blank)
    assert result.handedness == [] and result.hand_landmarks == [] and result.hand_world_landmarks == []


def test_image_api():
    data = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3)
    image = mp.Image(image_format=mp.ImageFormat.SRGB, data=data)
    assert (image.width, image.height, image.channels, image.image_format) == (5, 4, 3, mp.ImageFormat.SRGB)
    view = image.numpy_view()
    assert view.shape == (4, 5, 3) and not view.flags.writeable and (view == data).all()
    data[0, 0, 0] = 99
    assert view[0, 0, 0] == 0, "the image holds a copy"
    gray = mp.Image(image_format=mp.ImageFormat.GRAY8, data=np.zeros((4, 5), np.uint8))
    assert gray.numpy_view().shape == (4, 5) and gray.channels == 1
    with pytest.raises(ValueError):
        mp.Image(image_format=mp.ImageFormat.SRGB, data=np.zeros((4, 5, 4), np.uint8))
    with pytest.raises(RuntimeError, match="/nonexistent.png"):
        mp.Image.create_from_file("/nonexistent.png")
    decoded = mp.Image.create_from_file(POSE)
    assert (decoded.width, decoded.height) == (854, 480)


def test_gray_input_runs():
    rgb = mp.Image.create_from_file(POSE).numpy_view()
    gray = mp.Image(image_format=mp.ImageFormat.GRAY8, data=np.ascontiguousarray(rgb[:, :, 1]))
    with vision.PoseLandmarker.create_from_options(options(vision.PoseLandmarkerOptions)) as landmarker:
        landmarker.detect(gray)


def test_import_spellings():
    assert mp.tasks.vision.PoseLandmarker is vision.PoseLandmarker
    assert mp.tasks.BaseOptions is python.BaseOptions
    assert len(vision.PoseLandmarksConnections.POSE_LANDMARKS) == 35
    assert len(vision.HandLandmarksConnections.HAND_CONNECTIONS) == 21


def test_closed_live_stream_gets_no_callback(pose_image):
    calls = []
    landmarker = vision.PoseLandmarker.create_from_options(
        options(vision.PoseLandmarkerOptions, running_mode=vision.RunningMode.LIVE_STREAM,
                result_callback=lambda r, i, t: calls.append(t)))
    for t in range(5):
        landmarker.detect_async(pose_image, t)
    landmarker.close()
    n = len(calls)
    import time
    time.sleep(0.2)
    assert len(calls) == n <= 5


def test_thread_count_does_not_change_results(pose_image):
    results = []
    for threads in (1, 2, 3):
        opts = vision.PoseLandmarkerOptions(base_options=python.BaseOptions(model_asset_path=MODELS, thread_count=threads))
        with vision.PoseLandmarker.create_from_options(opts) as landmarker:
            results.append(landmarker.detect(pose_image))
    assert results[0] == results[1] == results[2]
    with pytest.raises(ValueError, match="thread_count"):
        vision.PoseLandmarker.create_from_options(
            vision.PoseLandmarkerOptions(base_options=python.BaseOptions(model_asset_path=MODELS, thread_count=0)))


def test_fixed_plan_gives_the_same_results(pose_image):
    """fixed_plan (kernels planned without timing) gives the results of the default, at one thread and two."""
    hand_image = mp.Image.create_from_file(HAND)
    for threads in (1, 2):
        results = []
        for fixed in (False, True):
            base = python.BaseOptions(model_asset_path=MODELS, thread_count=threads, fixed_plan=fixed)
            with vision.PoseLandmarker.create_from_options(
                    vision.PoseLandmarkerOptions(base_options=base, num_poses=2, output_segmentation_masks=True)) as pose:
                found = pose.detect(pose_image)
            with vision.HandLandmarker.create_from_options(vision.HandLandmarkerOptions(base_options=base, num_hands=2)) as hand:
                hands = hand.detect(hand_image)
            masks = [m.numpy_view().tobytes() for m in found.segmentation_masks]
            results.append((found.pose_landmarks, found.pose_world_landmarks, masks, hands))
        assert results[0][0] and results[0][2] and results[0][3].hand_landmarks
        assert results[0] == results[1], f"{threads} threads"


def test_plan_cache_dir_keeps_plans_and_changes_no_result(pose_image, tmp_path):
    """plan_cache_dir: the first landmarker fills the directory, the next plans from it; both give the results
    of a landmarker without it. An empty path, or one beside fixed_plan, is refused with the field's name."""
    cache = tmp_path / "plans"
    results = []
    for plan_cache_dir in (None, cache, str(cache)):
        base = python.BaseOptions(model_asset_path=MODELS, thread_count=2, plan_cache_dir=plan_cache_dir)
        with vision.PoseLandmarker.create_from_options(
                vision.PoseLandmarkerOptions(base_options=base, num_poses=2, output_segmentation_masks=True)) as pose:
            found = pose.detect(pose_image)
        results.append((found.pose_landmarks, [m.numpy_view().tobytes() for m in found.segmentation_masks]))
        if plan_cache_dir is cache:
            stored = sorted(p.name for p in cache.iterdir())
    assert results[0][0] and results[0] == results[1] == results[2]
    assert len(stored) == 2 and all(name.endswith(".json") for name in stored), stored
    assert sorted(p.name for p in cache.iterdir()) == stored
    for bad in (dict(plan_cache_dir=""), dict(plan_cache_dir=str(cache), fixed_plan=True)):
        with pytest.raises(ValueError, match="plan_cache_dir"):
            vision.PoseLandmarker.create_from_options(
                vision.PoseLandmarkerOptions(base_options=python.BaseOptions(model_asset_path=MODELS, **bad)))


def test_num_threads_environment(monkeypatch):
    monkeypatch.setenv("BLAZEKIT_NUM_THREADS", "many")
    with pytest.raises(ValueError, match="BLAZEKIT_NUM_THREADS"):
        vision.PoseLandmarker.create_from_options(options(vision.PoseLandmarkerOptions))


def test_ctypes_layouts_match_the_library():
    """The library's struct sizes and the ctypes mirrors agree: its sized init takes the mirror's size and refuses
    the next larger one (C structs here are multiples of 8 bytes), and writes nothing past the size it is given."""
    import ctypes
    from blazekit import _capi
    for Options, init in ((_capi.PoseOptions, _capi.lib.blazekit_pose_landmarker_options_init_sized),
                          (_capi.HandOptions, _capi.lib.blazekit_hand_landmarker_options_init_sized),
                          (_capi.HolisticOptions, _capi.lib.blazekit_holistic_landmarker_options_init_sized)):
        size = ctypes.sizeof(Options)
        buffer = (ctypes.c_uint8 * (size + 64))(*([0xAB] * (size + 64)))
        assert init(ctypes.cast(buffer, ctypes.POINTER(Options)), size) == 0
        assert ctypes.c_size_t.from_buffer(buffer).value == size and bytes(buffer[size:]) == b"\xab" * 64
        assert init(ctypes.cast(buffer, ctypes.POINTER(Options)), size + 8) == _capi.INVALID_ARGUMENT
        assert "no newer than this library" in _capi.last_error()
    image = mp.Image.create_from_file(POSE)
    for Task, Options, Result, free in ((vision.PoseLandmarker, vision.PoseLandmarkerOptions, _capi.PoseResult,
                                         _capi.lib.blazekit_pose_result_free),
                                        (vision.HandLandmarker, vision.HandLandmarkerOptions, _capi.HandResult,
                                         _capi.lib.blazekit_hand_result_free)):
        with Task.create_from_options(options(Options)) as landmarker:
            out = ctypes.POINTER(Result)()
            assert landmarker._detect(landmarker._handle, ctypes.byref(image._c_image()), ctypes.byref(out)) == 0
            assert out.contents.struct_size == ctypes.sizeof(Result)
            free(out)


def test_callback_may_close_its_landmarker(pose_image):
    import threading
    done = threading.Event()
    box = {}

    def callback(result, output_image, timestamp_ms):
        box["landmarker"].close()
        done.set()

    box["landmarker"] = vision.PoseLandmarker.create_from_options(
        options(vision.PoseLandmarkerOptions, running_mode=vision.RunningMode.LIVE_STREAM, result_callback=callback))
    box["landmarker"].detect_async(pose_image, 1)
    assert done.wait(30)
    with pytest.raises(ValueError, match="closed"):
        box["landmarker"].detect_async(pose_image, 2)
