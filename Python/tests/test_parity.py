"""Python results equal the Swift API's, bit for bit, in all three running modes (pose and hand)."""
import threading

import pytest

import blazekit as mp
from blazekit.tasks import python
from blazekit.tasks.python import vision

from conftest import assert_hand, assert_pose, photo_path

TIMESTAMPS = [0, 33, 66]


def pose_options(mode, callback=None):
    return vision.PoseLandmarkerOptions(base_options=python.BaseOptions(), running_mode=mode, num_poses=2,
                                        output_segmentation_masks=True, result_callback=callback)


def hand_options(mode, callback=None):
    return vision.HandLandmarkerOptions(base_options=python.BaseOptions(), running_mode=mode, num_hands=2,
                                        result_callback=callback)


def live(create, options_for, image, timestamps):
    """Sends each frame after the previous result arrived, so none is dropped; returns the results."""
    results, arrived = [], threading.Event()
    seen = []

    def callback(result, output_image, timestamp_ms):
        seen.append((output_image, timestamp_ms))
        results.append(result)
        arrived.set()

    with create(options_for(vision.RunningMode.LIVE_STREAM, callback)) as landmarker:
        for t in timestamps:
            arrived.clear()
            landmarker.detect_async(image, t)
            assert arrived.wait(30), f"no result for {t} ms"
    assert [t for _, t in seen] == timestamps
    assert all(img is image for img, _ in seen), "output_image is the image sent"
    return results


def test_pose_image(swift_results):
    with vision.PoseLandmarker.create_from_options(pose_options(vision.RunningMode.IMAGE)) as landmarker:
        for name, expected in swift_results["poseImage"].items():
            assert_pose(landmarker.detect(mp.Image.create_from_file(photo_path("pose", name))), expected, name)


def test_pose_video(swift_results):
    for name, expected in swift_results["poseVideo"].items():
        image = mp.Image.create_from_file(photo_path("pose", name))
        with vision.PoseLandmarker.create_from_options(pose_options(vision.RunningMode.VIDEO)) as landmarker:
            for t, want in zip(TIMESTAMPS, expected):
                assert_pose(landmarker.detect_for_video(image, t), want, f"{name}@{t}")


def test_pose_live_stream(swift_results):
    for name, expected in swift_results["poseVideo"].items():
        image = mp.Image.create_from_file(photo_path("pose", name))
        results = live(vision.PoseLandmarker.create_from_options, pose_options, image, TIMESTAMPS)
        for t, got, want in zip(TIMESTAMPS, results, expected):
            assert_pose(got, want, f"{name}@{t} (live stream)")


def test_hand_image(swift_results):
    with vision.HandLandmarker.create_from_options(hand_options(vision.RunningMode.IMAGE)) as landmarker:
        for name, expected in swift_results["handImage"].items():
            assert_hand(landmarker.detect(mp.Image.create_from_file(photo_path("hand", name))), expected, name)


def test_hand_video(swift_results):
    for name, expected in swift_results["handVideo"].items():
        image = mp.Image.create_from_file(photo_path("hand", name))
        with vision.HandLandmarker.create_from_options(hand_options(vision.RunningMode.VIDEO)) as landmarker:
            for t, want in zip(TIMESTAMPS, expected):
                assert_hand(landmarker.detect_for_video(image, t), want, f"{name}@{t}")


def test_hand_live_stream(swift_results):
    for name, expected in swift_results["handVideo"].items():
        image = mp.Image.create_from_file(photo_path("hand", name))
        results = live(vision.HandLandmarker.create_from_options, hand_options, image, TIMESTAMPS)
        for t, got, want in zip(TIMESTAMPS, results, expected):
            assert_hand(got, want, f"{name}@{t} (live stream)")


@pytest.mark.parametrize("fmt", ["SRGBA", "SBGRA"])
def test_pixel_formats_give_the_same_landmarks(swift_results, fmt):
    import numpy as np
    name = next(iter(swift_results["poseImage"]))
    rgb = mp.Image.create_from_file(photo_path("pose", name)).numpy_view()
    alpha = np.full(rgb.shape[:2] + (1,), 255, np.uint8)
    data = np.concatenate([rgb, alpha] if fmt == "SRGBA" else [rgb[:, :, ::-1], alpha], axis=2)
    with vision.PoseLandmarker.create_from_options(pose_options(vision.RunningMode.IMAGE)) as landmarker:
        result = landmarker.detect(mp.Image(image_format=getattr(mp.ImageFormat, fmt), data=data))
    assert_pose(result, swift_results["poseImage"][name], f"{name} as {fmt}")
