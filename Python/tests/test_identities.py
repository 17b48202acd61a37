"""BlazeKit's identities (pose_ids, hand_ids) beside MediaPipe's fields: VIDEO and LIVE_STREAM only."""
import threading

import numpy as np
import pytest

import blazekit as mp
from blazekit.tasks import python
from blazekit.tasks.python import vision

from conftest import MODELS, photo_path

POSE = photo_path("pose", "mpii_052475643.png")
HAND = photo_path("hand", "panoptic_ex2_2.flv_000040_l.png")


def options(Options, **kwargs):
    return Options(base_options=python.BaseOptions(model_asset_path=MODELS), **kwargs)


def shifted(image, dx):
    """The photo moved `dx` pixels right (edge columns repeated): a person walking across the frame."""
    data = np.roll(image.numpy_view(), dx, axis=1).copy()
    return mp.Image(image_format=mp.ImageFormat.SRGB, data=data)


def test_image_mode_has_no_ids():
    with vision.PoseLandmarker.create_from_options(options(vision.PoseLandmarkerOptions)) as landmarker:
        result = landmarker.detect(mp.Image.create_from_file(POSE))
    assert len(result.pose_landmarks) == 1 and result.pose_ids == []


def test_video_ids_stay_with_the_person_and_are_never_reused():
    image = mp.Image.create_from_file(POSE)
    blank = mp.Image(image_format=mp.ImageFormat.SRGB, data=np.zeros_like(image.numpy_view()))
    opts = options(vision.PoseLandmarkerOptions, running_mode=vision.RunningMode.VIDEO, identity_max_absent_frames=2)
    with vision.PoseLandmarker.create_from_options(opts) as landmarker:
        ids = [landmarker.detect_for_video(shifted(image, 4 * t), 40 * t).pose_ids for t in range(5)]
        assert ids == [[1]] * 5
        # Three frames without anyone are more than the absence window of 2: the person comes back as 2.
        for t in range(5, 8):
            assert landmarker.detect_for_video(blank, 40 * t).pose_ids == []
        assert landmarker.detect_for_video(image, 400).pose_ids == [2]


def test_bad_identity_options_are_named():
    with pytest.raises(ValueError, match="identity_min_similarity"):
        vision.HandLandmarker.create_from_options(options(vision.HandLandmarkerOptions, running_mode=vision.RunningMode.VIDEO,
                                                          identity_min_similarity=3))
    with pytest.raises(ValueError, match="identity_max_absent_frames"):
        vision.PoseLandmarker.create_from_options(options(vision.PoseLandmarkerOptions, identity_max_absent_frames=-1))


def test_hand_ids_in_live_stream_and_voting_keeps_mediapipes_fields():
    image = mp.Image.create_from_file(HAND)
    got, done = [], threading.Event()

    def callback(result, output_image, timestamp_ms):
        got.append((result.hand_ids, [h[0].category_name for h in result.handedness], timestamp_ms))
        if timestamp_ms == 300:
            done.set()

    opts = options(vision.HandLandmarkerOptions, running_mode=vision.RunningMode.LIVE_STREAM, result_callback=callback,
                   vote_handedness=True)
    with vision.HandLandmarker.create_from_options(opts) as landmarker:
        for t in range(4):
            landmarker.detect_async(image, 100 * t)
            done.wait(0.01) if t < 3 else done.wait(60)
    assert got and got[-1][2] == 300
    for ids, labels, _ in got:
        assert ids and ids[0] == 1 and len(ids) == len(labels) and set(labels) <= {"Left", "Right"}
    assert len({labels[0] for _, labels, _ in got}) == 1, got
