"""MediaPipe's legacy Solutions API (mp.solutions.pose.Pose, mp.solutions.hands.Hands): every constructor
argument, the outputs' types, the errors, close() and `with`, and bit-equality with the Swift API's legacy
graphs (tests/fixtures/swift_legacy_results.json, written by LegacyParityFixtureTests)."""
import json
import os
import shutil

import numpy as np
import pytest

import blazekit as mp
from blazekit.framework.formats import classification_pb2, landmark_pb2

from conftest import MODELS, fnv1a, photo_path, same_float

SWIFT_LEGACY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "swift_legacy_results.json")
COMPLEXITY = {"full": 1, "lite": 0}


@pytest.fixture(scope="module")
def swift_legacy():
    with open(SWIFT_LEGACY) as f:
        return json.load(f)


def rgb(task, name):
    return mp.Image.create_from_file(photo_path(task, name)).numpy_view()


def assert_list(actual, expected, what, fields=("x", "y", "z", "visibility", "presence")):
    """A landmark_pb2 list against the fixture's [x, y, z, visibility, presence] rows (None: field unset)."""
    assert len(actual.landmark) == len(expected), what
    for i, (lm, want) in enumerate(zip(actual.landmark, expected)):
        for name, value in zip(fields, want):
            if value is None:
                assert not lm.HasField(name), f"{what}[{i}].{name} is set"
            else:
                assert same_float(getattr(lm, name), value), f"{what}[{i}].{name}: {getattr(lm, name)!r} != {value!r}"


def assert_pose_outputs(results, expected, what):
    if not expected["landmarks"]:
        assert results.pose_landmarks is None and results.pose_world_landmarks is None, what
        return
    assert isinstance(results.pose_landmarks, landmark_pb2.NormalizedLandmarkList)
    assert isinstance(results.pose_world_landmarks, landmark_pb2.LandmarkList)
    # Visibility set, presence unset, as mediapipe 0.10.14's legacy graph gives them.
    fields = ("x", "y", "z", "visibility")
    assert_list(results.pose_landmarks, [row[:4] for row in expected["landmarks"][0]], what + ".pose_landmarks", fields)
    assert_list(results.pose_world_landmarks, [row[:4] for row in expected["world"][0]], what + ".pose_world_landmarks", fields)
    assert not results.pose_landmarks.landmark[0].HasField("presence")
    mask = results.segmentation_mask
    assert mask.dtype == np.float32 and mask.ndim == 2
    assert [f"{mask.shape[1]}x{mask.shape[0]}:{fnv1a(mask)}"] == expected["masks"], what + ".segmentation_mask"


def assert_hand_outputs(results, expected, what):
    if not expected["landmarks"]:
        assert results.multi_hand_landmarks is None and results.multi_handedness is None, what
        return
    assert len(results.multi_hand_landmarks) == len(expected["landmarks"]) == len(results.multi_handedness)
    for k, (lms, world, handedness) in enumerate(zip(results.multi_hand_landmarks, results.multi_hand_world_landmarks,
                                                     results.multi_handedness)):
        # Legacy hand landmarks carry x, y, z only, as MediaPipe's do.
        assert_list(lms, [row[:3] for row in expected["landmarks"][k]], f"{what}[{k}]", ("x", "y", "z"))
        assert not lms.landmark[0].HasField("visibility") and not lms.landmark[0].HasField("presence")
        assert_list(world, [row[:3] for row in expected["world"][k]], f"{what}[{k}].world", ("x", "y", "z"))
        index, score, label, _ = expected["handedness"][k][0].split(" ")
        c = handedness.classification[0]
        assert isinstance(handedness, classification_pb2.ClassificationList)
        assert (c.index, c.label) == (int(index), label) and same_float(c.score, float(score)), f"{what}[{k}].handedness"


@pytest.mark.parametrize("model", ["full", "lite"])
def test_pose_static_images_equal_the_swift_api(swift_legacy, model):
    with mp.solutions.pose.Pose(static_image_mode=True, model_complexity=COMPLEXITY[model], enable_segmentation=True) as pose:
        for key, expected in swift_legacy["poseImage"].items():
            if key.startswith(model + "/"):
                assert_pose_outputs(pose.process(rgb("pose", key.split("/", 1)[1])), expected, key)


@pytest.mark.parametrize("model", ["full", "lite"])
def test_pose_video_equals_the_swift_api(swift_legacy, model):
    for key, expected in swift_legacy["poseVideo"].items():
        if not key.startswith(model + "/"):
            continue
        image = rgb("pose", key.split("/", 1)[1])
        with mp.solutions.pose.Pose(model_complexity=COMPLEXITY[model], enable_segmentation=True) as pose:
            for frame, want in enumerate(expected):
                assert_pose_outputs(pose.process(image), want, f"{key} frame {frame}")


@pytest.mark.parametrize("model", ["full", "lite"])
def test_hands_static_images_and_video_equal_the_swift_api(swift_legacy, model):
    with mp.solutions.hands.Hands(static_image_mode=True, model_complexity=COMPLEXITY[model]) as hands:
        for key, expected in swift_legacy["handImage"].items():
            if key.startswith(model + "/"):
                assert_hand_outputs(hands.process(rgb("hand", key.split("/", 1)[1])), expected, key)
    for key, expected in swift_legacy["handVideo"].items():
        if key.startswith(model + "/"):
            image = rgb("hand", key.split("/", 1)[1])
            with mp.solutions.hands.Hands(model_complexity=COMPLEXITY[model]) as hands:
                for frame, want in enumerate(expected):
                    assert_hand_outputs(hands.process(image), want, f"{key} frame {frame}")


def test_nothing_found_gives_none_for_every_output():
    blank = np.full((240, 320, 3), 127, np.uint8)
    with mp.solutions.pose.Pose(enable_segmentation=True) as pose:
        r = pose.process(blank)
        assert r.pose_landmarks is None and r.pose_world_landmarks is None and r.segmentation_mask is None
        assert r._fields == ("pose_landmarks", "pose_world_landmarks", "segmentation_mask")
    with mp.solutions.hands.Hands() as hands:
        r = hands.process(blank)
        assert r.multi_hand_landmarks is None and r.multi_hand_world_landmarks is None and r.multi_handedness is None


def test_every_pose_argument_changes_what_it_should():
    image = rgb("pose", "mpii_052475643.png")
    # min_detection_confidence: nothing is detected above 1.0; min_tracking_confidence is the presence threshold.
    with mp.solutions.pose.Pose(static_image_mode=True, min_detection_confidence=1.0) as pose:
        assert pose.process(image).pose_landmarks is None
    with mp.solutions.pose.Pose(static_image_mode=True, min_tracking_confidence=1.0) as pose:
        assert pose.process(image).pose_landmarks is None
    # enable_segmentation off: no mask.
    with mp.solutions.pose.Pose(static_image_mode=True) as pose:
        r = pose.process(image)
        assert r.pose_landmarks is not None and r.segmentation_mask is None
    assert_smoothing_switches(mp.solutions.pose.Pose, [image[:, 8 * i:8 * i + 560].copy() for i in range(3)])


def assert_smoothing_switches(solution, frames):
    """smooth_landmarks / smooth_segmentation of a solution with a pose (Pose, Holistic) over three frames of a
    moving video: the first frame passes through the filters (up to the pixel round trip x*W/W they make), the
    third differs with each switch, and only with it."""
    def run(**kwargs):
        with solution(enable_segmentation=True, **kwargs) as s:
            return [s.process(f) for f in frames]
    smooth, raw = run(), run(smooth_landmarks=False, smooth_segmentation=False)
    first = np.array([[l.x - m.x, l.y - m.y] for l, m in zip(smooth[0].pose_landmarks.landmark, raw[0].pose_landmarks.landmark)])
    assert np.abs(first).max() < 1e-6
    assert np.array_equal(smooth[0].segmentation_mask, raw[0].segmentation_mask)
    assert smooth[2].pose_landmarks != raw[2].pose_landmarks
    assert not np.array_equal(smooth[2].segmentation_mask, raw[2].segmentation_mask)
    only_masks = run(smooth_landmarks=False)
    assert only_masks[2].pose_landmarks == raw[2].pose_landmarks
    assert not np.array_equal(only_masks[2].segmentation_mask, raw[2].segmentation_mask)


def test_every_hands_argument_changes_what_it_should():
    image = rgb("hand", "panoptic_ex2_2.flv_000040_l.png")
    with mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=2) as hands:
        two = hands.process(image).multi_hand_landmarks
    with mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=1) as hands:
        assert len(hands.process(image).multi_hand_landmarks) == 1 < len(two)
    with mp.solutions.hands.Hands(static_image_mode=True, min_detection_confidence=1.0) as hands:
        assert hands.process(image).multi_hand_landmarks is None
    with mp.solutions.hands.Hands(static_image_mode=True, min_tracking_confidence=1.0) as hands:
        assert hands.process(image).multi_hand_landmarks is None
    # model_complexity 0 and 1 run different networks.
    with mp.solutions.hands.Hands(static_image_mode=True, model_complexity=0) as hands:
        lite = hands.process(image).multi_hand_landmarks
    assert lite and lite[0] != two[0]


def test_model_complexity_2_needs_the_heavy_model(monkeypatch, tmp_path):
    image = rgb("pose", "mpii_052475643.png")
    monkeypatch.delenv("BLAZEKIT_POSE_LANDMARK_HEAVY", raising=False)
    monkeypatch.delenv("BLAZEKIT_MODELS_DIR", raising=False)
    pose = mp.solutions.pose.Pose(static_image_mode=True, model_complexity=2)   # constructs, as in Google's samples
    with pytest.raises(RuntimeError, match="pose_landmark_heavy.*BLAZEKIT_POSE_LANDMARK_HEAVY"):
        pose.process(image)
    pose.close()
    monkeypatch.setenv("BLAZEKIT_POSE_LANDMARK_HEAVY", str(tmp_path / "missing.tflite"))
    with mp.solutions.pose.Pose(static_image_mode=True, model_complexity=2) as pose:
        with pytest.raises(RuntimeError, match="not a file"):
            pose.process(image)
    # A heavy model supplied through BLAZEKIT_MODELS_DIR is the one run (the full network stands in for it here).
    shutil.copyfile(os.path.join(MODELS, "pose_landmark_full.bkm"), tmp_path / "pose_landmark_heavy.bkm")
    monkeypatch.delenv("BLAZEKIT_POSE_LANDMARK_HEAVY")
    monkeypatch.setenv("BLAZEKIT_MODELS_DIR", str(tmp_path))
    with mp.solutions.pose.Pose(static_image_mode=True, model_complexity=2) as heavy, \
            mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1) as full:
        assert heavy.process(image).pose_landmarks == full.process(image).pose_landmarks


@pytest.mark.parametrize("bad", [np.zeros((10, 10), np.uint8), np.zeros((10, 10, 4), np.uint8), np.zeros((10, 10, 1), np.uint8)])
def test_input_that_is_not_three_channel_rgb_is_refused(bad):
    with mp.solutions.pose.Pose() as pose, mp.solutions.hands.Hands() as hands:
        for solution in (pose, hands):
            with pytest.raises(ValueError, match="Input image must contain three channel rgb data."):
                solution.process(bad)


def test_wrong_arrays_and_arguments_are_refused():
    with mp.solutions.pose.Pose() as pose:
        with pytest.raises(ValueError, match="uint8"):
            pose.process(np.zeros((10, 10, 3), np.float32))
        with pytest.raises(ValueError, match="empty"):
            pose.process(np.zeros((0, 10, 3), np.uint8))
    for kwargs in ({"model_complexity": 3}, {"model_complexity": True}, {"min_detection_confidence": 1.5},
                   {"min_tracking_confidence": -0.1}, {"min_detection_confidence": "high"}):
        with pytest.raises(ValueError):
            mp.solutions.pose.Pose(**kwargs)
    for kwargs in ({"model_complexity": 2}, {"max_num_hands": 0}, {"max_num_hands": 1.5}, {"min_tracking_confidence": 2}):
        with pytest.raises(ValueError):
            mp.solutions.hands.Hands(**kwargs)


def test_close_and_with():
    image = rgb("pose", "mpii_052475643.png")
    pose = mp.solutions.pose.Pose(static_image_mode=True)
    assert pose.process(image).pose_landmarks is not None
    pose.close()
    with pytest.raises(ValueError, match="after close"):
        pose.process(image)
    with pytest.raises(ValueError, match="already None"):
        pose.close()
    with mp.solutions.hands.Hands() as hands:
        hands.process(image)
    with pytest.raises(ValueError):
        hands.process(image)
    # close() before any process() is fine too.
    mp.solutions.pose.Pose(model_complexity=2).close()


def test_containers_index_iterate_and_print_as_protobuf():
    with mp.solutions.pose.Pose(static_image_mode=True) as pose:
        r = pose.process(rgb("pose", "mpii_052475643.png"))
    landmarks = r.pose_landmarks
    assert len(landmarks.landmark) == 33
    nose = landmarks.landmark[mp.solutions.pose.PoseLandmark.NOSE]
    assert nose is landmarks.landmark[0] and 0 < nose.x < 1 and nose.HasField("visibility")
    assert [lm.x for lm in landmarks.landmark][0] == nose.x
    text = str(landmarks)
    assert text.startswith("landmark {\n  x: ") and text.count("landmark {") == 33 and "visibility: " in text
    c = classification_pb2.ClassificationList()
    c.classification.add(index=1, score=0.5, label="Right")
    assert str(c) == 'classification {\n  index: 1\n  score: 0.5\n  label: "Right"\n}\n'
    assert str(landmark_pb2.NormalizedLandmark(x=0.123456789, y=1e-7, z=-3.0)) == "x: 0.123456791\ny: 1e-07\nz: -3\n"


def test_drawing_the_results_as_the_samples_do():
    cv2 = pytest.importorskip("cv2")
    image = rgb("hand", "panoptic_ex2_2.flv_000040_l.png")
    canvas = cv2.cvtColor(image, cv2.COLOR_RGB2BGR)
    before = canvas.copy()
    with mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=2) as hands:
        for hand in hands.process(image).multi_hand_landmarks:
            mp.solutions.drawing_utils.draw_landmarks(
                canvas, hand, mp.solutions.hands.HAND_CONNECTIONS,
                mp.solutions.drawing_styles.get_default_hand_landmarks_style(),
                mp.solutions.drawing_styles.get_default_hand_connections_style())
    assert (canvas != before).any()
