"""mp.solutions.holistic.Holistic (MediaPipe's legacy Holistic): bit-equality with the Swift API's HolisticLandmarker
(tests/fixtures/swift_holistic_results.json, written by HolisticParityFixtureTests), every constructor argument, the
outputs' types and fields, the errors, close() and `with`, what the module exposes, and the face mesh drawing styles."""
import ast
import json
import os
import shutil

import numpy as np
import pytest

import blazekit as mp
from blazekit.framework.formats import landmark_pb2

from conftest import MODELS, fnv1a, photo_path
from test_legacy_solutions import assert_list, assert_smoothing_switches

SWIFT_HOLISTIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "swift_holistic_results.json")
PERSON = "panoptic_ex2_2.flv_000040_l.png"      # pose, both hands, face
ONE_HAND = "mpii_052475643.png"                  # no left hand
FIELDS = ("pose_landmarks", "pose_world_landmarks", "left_hand_landmarks", "right_hand_landmarks", "face_landmarks",
          "segmentation_mask")


@pytest.fixture(scope="module")
def swift_holistic():
    with open(SWIFT_HOLISTIC) as f:
        return json.load(f)


def rgb(name):
    return mp.Image.create_from_file(photo_path("pose", name)).numpy_view()


def arguments(case):
    """The fixture's case name, "a=1, b=True", as keyword arguments."""
    return {k.strip(): ast.literal_eval(v) for k, v in (item.split("=") for item in case.split(","))}


def assert_outputs(results, expected, what):
    assert results._fields == FIELDS
    # Pose: visibility set, presence cleared, as mediapipe 0.10.14's Holistic gives them; face and hands x, y, z.
    for name, key in (("pose_landmarks", "pose"), ("pose_world_landmarks", "poseWorld")):
        assert_list(getattr(results, name), [row[:4] for row in expected[key]], f"{what}.{name}", ("x", "y", "z", "visibility"))
        assert not getattr(results, name).landmark[0].HasField("presence")
    assert isinstance(results.pose_landmarks, landmark_pb2.NormalizedLandmarkList)
    assert isinstance(results.pose_world_landmarks, landmark_pb2.LandmarkList)
    for name, key in (("left_hand_landmarks", "leftHand"), ("right_hand_landmarks", "rightHand"), ("face_landmarks", "face")):
        got = getattr(results, name)
        if not expected[key]:
            assert got is None, f"{what}.{name} found, not by the Swift API"
            continue
        assert isinstance(got, landmark_pb2.NormalizedLandmarkList), f"{what}.{name}"
        assert_list(got, expected[key], f"{what}.{name}", ("x", "y", "z"))
        assert not got.landmark[0].HasField("visibility") and not got.landmark[0].HasField("presence")
    mask = results.segmentation_mask
    if expected.get("mask") is None:
        assert mask is None, what
    else:
        assert mask.dtype == np.float32 and mask.ndim == 2
        assert f"{mask.shape[1]}x{mask.shape[0]}:{fnv1a(mask)}" == expected["mask"], what + ".segmentation_mask"


def test_results_equal_the_swift_api(swift_holistic):
    assert len(swift_holistic) == 5
    for case, photos in swift_holistic.items():
        kwargs = arguments(case)
        for name, expected in photos.items():
            with mp.solutions.holistic.Holistic(**kwargs) as holistic:   # one stream per photo, as the Swift test
                for frame, want in enumerate(expected):
                    assert_outputs(holistic.process(rgb(name)), want, f"{case} / {name} frame {frame}")
            assert len(expected) == (1 if kwargs.get("static_image_mode") else 3)


def test_nothing_found_gives_none_for_every_output():
    blank = np.full((240, 320, 3), 127, np.uint8)
    with mp.solutions.holistic.Holistic(enable_segmentation=True, refine_face_landmarks=True) as holistic:
        r = holistic.process(blank)
    assert r._fields == FIELDS and all(v is None for v in r)
    assert type(r).__name__ == "SolutionOutputs"


def test_every_argument_changes_what_it_should():
    image = rgb(PERSON)

    def first(**kwargs):
        with mp.solutions.holistic.Holistic(static_image_mode=True, **kwargs) as holistic:
            return holistic.process(image)
    default = first()
    assert [len(getattr(default, f).landmark) for f in FIELDS[:5]] == [33, 33, 21, 21, 468]
    assert default.segmentation_mask is None
    # refine_face_landmarks: the attention mesh, the irises last (inside the eyes' corners 33/133 and 362/263).
    face = first(refine_face_landmarks=True).face_landmarks.landmark
    assert len(face) == 478
    assert min(face[33].x, face[133].x) < face[468].x < max(face[33].x, face[133].x)
    assert min(face[362].x, face[263].x) < face[473].x < max(face[362].x, face[263].x)
    # enable_segmentation: the person mask, the image's size.
    mask = first(enable_segmentation=True).segmentation_mask
    assert mask.shape == image.shape[:2] and 0.05 < float(mask.mean()) < 0.9
    # model_complexity 0 runs the lite pose network.
    assert first(model_complexity=0).pose_landmarks != default.pose_landmarks
    # min_detection_confidence: no person above 1.0; min_tracking_confidence is the pose presence threshold.
    assert all(v is None for v in first(min_detection_confidence=1.0))
    assert all(v is None for v in first(min_tracking_confidence=1.0))


def test_video_mode_tracks_and_smooths():
    image = rgb(PERSON)
    # static_image_mode=False: the second frame runs from the tracked regions (the Swift fixture pins the bits);
    # static_image_mode=True forgets: the same photo gives the same result after another one.
    with mp.solutions.holistic.Holistic(static_image_mode=True) as holistic:
        first = holistic.process(image)
        holistic.process(rgb(ONE_HAND))
        assert holistic.process(image) == first
    frames = [image[:, 4 * i:4 * i + 360].copy() for i in range(3)]
    assert_smoothing_switches(mp.solutions.holistic.Holistic, frames)
    # reset(): a new stream, so the first frame again gives the first frame's result.
    with mp.solutions.holistic.Holistic() as holistic:
        a = holistic.process(frames[0])
        holistic.process(frames[1])
        holistic.reset()
        assert holistic.process(frames[0]) == a


def test_model_complexity_2_needs_the_heavy_model(monkeypatch, tmp_path):
    image = rgb(PERSON)
    monkeypatch.delenv("BLAZEKIT_POSE_LANDMARK_HEAVY", raising=False)
    monkeypatch.delenv("BLAZEKIT_MODELS_DIR", raising=False)
    holistic = mp.solutions.holistic.Holistic(static_image_mode=True, model_complexity=2)   # constructs, as in Google's sample
    with pytest.raises(RuntimeError, match="pose_landmark_heavy.*BLAZEKIT_POSE_LANDMARK_HEAVY"):
        holistic.process(image)
    holistic.close()
    # A heavy model supplied by the variable or the models directory is the one run (the full network stands in).
    shutil.copyfile(os.path.join(MODELS, "pose_landmark_full.bkm"), tmp_path / "pose_landmark_heavy.bkm")
    with mp.solutions.holistic.Holistic(static_image_mode=True, model_complexity=1) as full:
        want = full.process(image)
    for variable, value in (("BLAZEKIT_POSE_LANDMARK_HEAVY", tmp_path / "pose_landmark_heavy.bkm"), ("BLAZEKIT_MODELS_DIR", tmp_path)):
        monkeypatch.setenv(variable, str(value))
        with mp.solutions.holistic.Holistic(static_image_mode=True, model_complexity=2) as heavy:
            assert heavy.process(image) == want
        monkeypatch.delenv(variable)
    # model_path (BlazeKit's addition) replaces the pose landmark network whatever the complexity.
    with mp.solutions.holistic.Holistic(static_image_mode=True, model_path=os.path.join(MODELS, "pose_landmark_lite.bkm")) as own, \
            mp.solutions.holistic.Holistic(static_image_mode=True, model_complexity=0) as lite:
        assert own.process(image) == lite.process(image)


@pytest.mark.parametrize("bad", [np.zeros((10, 10), np.uint8), np.zeros((10, 10, 4), np.uint8), np.zeros((10, 10, 1), np.uint8)])
def test_input_that_is_not_three_channel_rgb_is_refused(bad):
    with mp.solutions.holistic.Holistic() as holistic:
        with pytest.raises(ValueError, match="Input image must contain three channel rgb data."):
            holistic.process(bad)


def test_wrong_arrays_and_arguments_are_refused():
    with mp.solutions.holistic.Holistic() as holistic:
        with pytest.raises(ValueError, match="uint8"):
            holistic.process(np.zeros((10, 10, 3), np.float32))
        with pytest.raises(ValueError, match="empty"):
            holistic.process(np.zeros((10, 0, 3), np.uint8))
    for kwargs in ({"model_complexity": 3}, {"model_complexity": True}, {"min_detection_confidence": 1.5},
                   {"min_tracking_confidence": -0.1}, {"min_detection_confidence": "high"}):
        with pytest.raises(ValueError):
            mp.solutions.holistic.Holistic(**kwargs)


def test_close_and_with():
    image = rgb(PERSON)
    holistic = mp.solutions.holistic.Holistic(static_image_mode=True)
    assert holistic.process(image).face_landmarks is not None
    holistic.close()
    with pytest.raises(ValueError, match="after close"):
        holistic.process(image)
    with pytest.raises(ValueError, match="already None"):
        holistic.close()
    with mp.solutions.holistic.Holistic() as holistic:
        holistic.process(image)
    with pytest.raises(ValueError):
        holistic.process(image)
    mp.solutions.holistic.Holistic(model_complexity=2).close()   # close() before any process()


def test_the_module_exposes_what_mediapipes_does():
    import blazekit.solutions.holistic as mp_holistic
    from blazekit.solutions import face_mesh_connections, holistic
    assert mp_holistic is holistic is mp.solutions.holistic and face_mesh_connections is mp.solutions.face_mesh_connections
    assert holistic.FACEMESH_TESSELATION is face_mesh_connections.FACEMESH_TESSELATION and len(holistic.FACEMESH_TESSELATION) == 2556
    assert holistic.FACEMESH_CONTOURS is face_mesh_connections.FACEMESH_CONTOURS
    assert holistic.FACEMESH_IRISES == face_mesh_connections.FACEMESH_LEFT_IRIS | face_mesh_connections.FACEMESH_RIGHT_IRIS
    assert holistic.HandLandmark is mp.solutions.hands.HandLandmark and holistic.HAND_CONNECTIONS is mp.solutions.hands.HAND_CONNECTIONS
    assert holistic.PoseLandmark is mp.solutions.pose.PoseLandmark and holistic.POSE_CONNECTIONS is mp.solutions.pose.POSE_CONNECTIONS
    assert max(max(c) for c in holistic.FACEMESH_TESSELATION) == 467 and max(max(c) for c in holistic.FACEMESH_IRISES) == 477


def test_face_mesh_drawing_styles_are_mediapipes():
    styles = mp.solutions.drawing_styles
    spec = lambda s: (tuple(s.color), s.thickness)   # noqa: E731
    fm = mp.solutions.face_mesh_connections
    assert spec(styles.get_default_face_mesh_tesselation_style()) == ((128, 128, 128), 1)
    contours = styles.get_default_face_mesh_contours_style()
    assert set(contours) == set(fm.FACEMESH_CONTOURS)
    assert {spec(contours[c]) for c in fm.FACEMESH_LIPS | fm.FACEMESH_FACE_OVAL} == {((224, 224, 224), 2)}
    assert {spec(contours[c]) for c in fm.FACEMESH_LEFT_EYE | fm.FACEMESH_LEFT_EYEBROW} == {((48, 255, 48), 2)}
    assert {spec(contours[c]) for c in fm.FACEMESH_RIGHT_EYE | fm.FACEMESH_RIGHT_EYEBROW} == {((48, 48, 255), 2)}
    second = styles.get_default_face_mesh_contours_style(1)
    assert set(second) == set(fm.FACEMESH_CONTOURS | fm.FACEMESH_NOSE)
    assert {spec(second[c]) for c in fm.FACEMESH_NOSE} == {((0, 204, 255), 2)}
    assert {spec(second[c]) for c in fm.FACEMESH_LIPS} == {((192, 101, 21), 2)}
    assert {spec(second[c]) for c in fm.FACEMESH_LEFT_EYE} == {((192, 255, 48), 2)}
    assert {spec(second[c]) for c in fm.FACEMESH_RIGHT_EYE} == {((192, 48, 255), 2)}
    irises = styles.get_default_face_mesh_iris_connections_style()
    assert {spec(irises[c]) for c in fm.FACEMESH_LEFT_IRIS} == {((48, 255, 48), 2)}
    assert {spec(irises[c]) for c in fm.FACEMESH_RIGHT_IRIS} == {((48, 48, 255), 2)}
    assert set(irises) == set(fm.FACEMESH_IRISES)


def test_drawing_the_results_as_googles_sample_does():
    cv2 = pytest.importorskip("cv2")
    image = rgb(PERSON)
    canvas = cv2.cvtColor(image, cv2.COLOR_RGB2BGR)
    before = canvas.copy()
    holistic_module, drawing, styles = mp.solutions.holistic, mp.solutions.drawing_utils, mp.solutions.drawing_styles
    with holistic_module.Holistic(static_image_mode=True, refine_face_landmarks=True) as holistic:
        results = holistic.process(image)
    drawing.draw_landmarks(canvas, results.face_landmarks, holistic_module.FACEMESH_TESSELATION, landmark_drawing_spec=None,
                           connection_drawing_spec=styles.get_default_face_mesh_tesselation_style())
    tesselated = canvas.copy()
    drawing.draw_landmarks(canvas, results.face_landmarks, holistic_module.FACEMESH_CONTOURS, landmark_drawing_spec=None,
                           connection_drawing_spec=styles.get_default_face_mesh_contours_style())
    drawing.draw_landmarks(canvas, results.face_landmarks, holistic_module.FACEMESH_IRISES, landmark_drawing_spec=None,
                           connection_drawing_spec=styles.get_default_face_mesh_iris_connections_style())
    drawing.draw_landmarks(canvas, results.pose_landmarks, holistic_module.POSE_CONNECTIONS,
                           landmark_drawing_spec=styles.get_default_pose_landmarks_style())
    for hand in (results.left_hand_landmarks, results.right_hand_landmarks):
        drawing.draw_landmarks(canvas, hand, holistic_module.HAND_CONNECTIONS, styles.get_default_hand_landmarks_style(),
                               styles.get_default_hand_connections_style())
    assert (tesselated != before).any() and (canvas != tesselated).any()


def test_plan_cache_dir_fills_once_and_changes_no_result(tmp_path):
    """plan_cache_dir (BlazeKit's keyword, as BaseOptions'): the constructor times the kernels and keeps the choices
    there; a second Holistic, and a Pose and Hands made with the same directory, plan from it; results are those
    of a solution without it. A bad directory is refused by the constructor, naming the option."""
    image = rgb("mpii_052475643.png")
    cache = tmp_path / "plans"
    with mp.solutions.holistic.Holistic(static_image_mode=True) as plain:
        want = plain.process(image)
    with mp.solutions.holistic.Holistic(static_image_mode=True, plan_cache_dir=cache) as first:
        kept = sorted(os.listdir(cache))
        assert kept and all(name.endswith(".json") for name in kept)
        assert first.process(image) == want
    stamps = {name: os.stat(cache / name).st_mtime_ns for name in kept}
    with mp.solutions.holistic.Holistic(static_image_mode=True, plan_cache_dir=str(cache)) as second:
        assert second.process(image) == want
    assert sorted(os.listdir(cache)) == kept and {n: os.stat(cache / n).st_mtime_ns for n in kept} == stamps
    with mp.solutions.pose.Pose(static_image_mode=True, plan_cache_dir=cache), \
            mp.solutions.hands.Hands(static_image_mode=True, plan_cache_dir=cache):
        pass
    with pytest.raises(ValueError, match="plan_cache_dir"):
        mp.solutions.holistic.Holistic(plan_cache_dir="")
