"""BlazeKit's accurate modes through the Python options (not in MediaPipe): people and hands too small for
MediaPipe's whole-frame detectors, in a wide frame made from the repository's own photos as the Swift and C
tests make it."""
import numpy as np
import pytest

import blazekit as mp
from blazekit.tasks import python
from blazekit.tasks.python import vision

from conftest import MODELS, photo_path


def pasted_halved(path, x0, y0, width=1920, height=1080):
    """The photo halved (2×2 box average, rounded) and pasted at (x0, y0) into a flat grey frame."""
    rgb = mp.Image.create_from_file(path).numpy_view().astype(np.int32)
    h, w = rgb.shape[0] // 2, rgb.shape[1] // 2
    halved = (rgb[0:2 * h:2, 0:2 * w:2] + rgb[0:2 * h:2, 1:2 * w:2] + rgb[1:2 * h:2, 0:2 * w:2]
              + rgb[1:2 * h:2, 1:2 * w:2] + 2) // 4
    frame = np.full((height, width, 3), 128, dtype=np.uint8)
    frame[y0:y0 + h, x0:x0 + w] = halved.astype(np.uint8)
    return mp.Image(image_format=mp.ImageFormat.SRGB, data=frame)


@pytest.fixture(scope="module")
def people_frame():
    return pasted_halved(photo_path("pose", "mpii_052475643.png"), 1200, 600)


def pose_options(**kwargs):
    return vision.PoseLandmarkerOptions(base_options=python.BaseOptions(model_asset_path=MODELS), num_poses=3, **kwargs)


def hand_options(**kwargs):
    return vision.HandLandmarkerOptions(base_options=python.BaseOptions(model_asset_path=MODELS), **kwargs)


def test_pose_accurate_mode_finds_the_people_the_default_misses(people_frame):
    with vision.PoseLandmarker.create_from_options(pose_options()) as default:
        assert default.detect(people_frame).pose_landmarks == []
    with vision.PoseLandmarker.create_from_options(pose_options(accurate_mode=vision.PoseAccurateMode())) as accurate:
        poses = accurate.detect(people_frame).pose_landmarks
    # Both seated men, where the photo put them (x 1200–1500 of 1920, y 600–800 of 1080).
    assert len(poses) == 2
    for pose in poses:
        xs = [l.x * 1920 for l in pose[11:25]]
        ys = [l.y * 1080 for l in pose[11:25]]
        assert 1150 < np.mean(xs) < 1550 and 550 < np.mean(ys) < 850, (np.mean(xs), np.mean(ys))


def test_pose_accurate_mode_parts_switch_off(people_frame):
    mode = vision.PoseAccurateMode(tiled_search=False)
    with vision.PoseLandmarker.create_from_options(pose_options(accurate_mode=mode)) as untiled:
        assert untiled.detect(people_frame).pose_landmarks == []


def test_hand_accurate_mode_finds_the_hand_the_default_misses():
    frame = pasted_halved(photo_path("hand", "onehand10k_1402.png"), 1300, 700)
    with vision.HandLandmarker.create_from_options(hand_options()) as default:
        assert default.detect(frame).hand_landmarks == []
    with vision.HandLandmarker.create_from_options(hand_options(accurate_mode=vision.HandAccurateMode())) as accurate:
        assert len(accurate.detect(frame).hand_landmarks) == 1


@pytest.mark.parametrize("Task,options,field", [
    (vision.PoseLandmarker, pose_options(accurate_mode=vision.PoseAccurateMode(smallest_person_height=20)),
     "accurate_min_person_height"),
    (vision.HandLandmarker, hand_options(accurate_mode=vision.HandAccurateMode(smallest_hand_size=10)),
     "accurate_min_hand_size"),
])
def test_bad_accurate_mode_names_the_option(Task, options, field):
    with pytest.raises(ValueError, match=field):
        Task.create_from_options(options)
