"""The helpers MediaPipe's samples use besides the task API: landmark_pb2 containers, mp.solutions drawing
and connections, and the newer samples' mp.tasks.vision spelling."""
import numpy as np
import pytest

import blazekit as mp
from blazekit.framework.formats import landmark_pb2
from blazekit.tasks import python
from blazekit.tasks.python import vision

from conftest import photo_path

cv2 = pytest.importorskip("cv2")


@pytest.fixture(scope="module")
def pose_result():
    image = mp.Image.create_from_file(photo_path("pose", "mpii_052475643.png"))
    with vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(base_options=python.BaseOptions())) as lm:
        return image, lm.detect(image)


@pytest.fixture(scope="module")
def hand_result():
    image = mp.Image.create_from_file(photo_path("hand", "panoptic_ex2_2.flv_000040_l.png"))
    options = vision.HandLandmarkerOptions(base_options=python.BaseOptions(), num_hands=2)
    with vision.HandLandmarker.create_from_options(options) as lm:
        return image, lm.detect(image)


def test_landmark_pb2():
    lst = landmark_pb2.NormalizedLandmarkList()
    assert not lst
    lst.landmark.extend([landmark_pb2.NormalizedLandmark(x=0.5, y=0.25, z=0.1)])
    p = lst.landmark.add(x=1, y=2)
    assert len(lst) == 2 and lst.landmark[0].x == 0.5 and p.z == 0.0
    assert not lst.landmark[0].HasField("visibility") and lst.landmark[0].HasField("x")
    lst.landmark[0].visibility = 0.9
    assert lst.landmark[0].HasField("visibility") and lst.landmark[0].visibility == 0.9
    with pytest.raises(ValueError):
        landmark_pb2.NormalizedLandmark(w=1)


def _proto(landmarks):
    proto = landmark_pb2.NormalizedLandmarkList()
    proto.landmark.extend([landmark_pb2.NormalizedLandmark(x=l.x, y=l.y, z=l.z) for l in landmarks])
    return proto


def test_notebook_style_pose_drawing(pose_result):
    image, result = pose_result
    annotated = np.copy(image.numpy_view())
    for landmarks in result.pose_landmarks:
        mp.solutions.drawing_utils.draw_landmarks(annotated, _proto(landmarks), mp.solutions.pose.POSE_CONNECTIONS,
                                                  mp.solutions.drawing_styles.get_default_pose_landmarks_style())
    changed = (annotated != image.numpy_view()).any(axis=2).sum()
    assert changed > 500, changed


def test_notebook_style_hand_drawing(hand_result):
    image, result = hand_result
    annotated = np.copy(image.numpy_view())
    for landmarks in result.hand_landmarks:
        mp.solutions.drawing_utils.draw_landmarks(annotated, _proto(landmarks), mp.solutions.hands.HAND_CONNECTIONS,
                                                  mp.solutions.drawing_styles.get_default_hand_landmarks_style(),
                                                  mp.solutions.drawing_styles.get_default_hand_connections_style())
    assert (annotated != image.numpy_view()).any(axis=2).sum() > 200


def test_newer_spelling_draws_result_lists_directly(pose_result, hand_result):
    image, result = pose_result
    a = np.copy(image.numpy_view())
    mp.tasks.vision.drawing_utils.draw_landmarks(a, result.pose_landmarks[0], vision.PoseLandmarksConnections.POSE_LANDMARKS,
                                                 mp.tasks.vision.drawing_styles.get_default_pose_landmarks_style())
    assert (a != image.numpy_view()).any(axis=2).sum() > 500
    image, result = hand_result
    b = np.copy(image.numpy_view())
    mp.tasks.vision.drawing_utils.draw_landmarks(b, result.hand_landmarks[0], vision.HandLandmarksConnections.HAND_CONNECTIONS,
                                                 mp.tasks.vision.drawing_styles.get_default_hand_landmarks_style(),
                                                 mp.tasks.vision.drawing_styles.get_default_hand_connections_style())
    assert (b != image.numpy_view()).any(axis=2).sum() > 200


def test_drawing_refuses_bad_input():
    proto = _proto([landmark_pb2.NormalizedLandmark(x=0.5, y=0.5)])
    with pytest.raises(ValueError, match="three channel"):
        mp.solutions.drawing_utils.draw_landmarks(np.zeros((4, 4, 4), np.uint8), proto)
    with pytest.raises(ValueError, match="out of range"):
        mp.solutions.drawing_utils.draw_landmarks(np.zeros((4, 4, 3), np.uint8), proto, [(0, 5)])
    mp.solutions.drawing_utils.draw_landmarks(np.zeros((4, 4, 3), np.uint8), landmark_pb2.NormalizedLandmarkList())


def test_connection_sets():
    assert len(mp.solutions.pose.POSE_CONNECTIONS) == 35 and len(mp.solutions.hands.HAND_CONNECTIONS) == 21
    assert mp.solutions.pose.PoseLandmark.RIGHT_FOOT_INDEX == 32 and mp.solutions.hands.HandLandmark.PINKY_TIP == 20


def _plain_pixel_points(landmarks, width, height):
    """MediaPipe's drawing_utils rules written plainly: skip a landmark whose set visibility or presence is below
    0.5, keep it where `(v > 0 or isclose(0, v)) and (v < 1 or isclose(1, v))` holds for x and y, at
    `min(floor(v · size), size − 1)`."""
    import math
    points = {}
    for idx, lm in enumerate(landmarks):
        if hasattr(lm, "HasField"):
            hidden = (lm.HasField("visibility") and lm.visibility < 0.5) or (lm.HasField("presence") and lm.presence < 0.5)
        else:
            hidden = bool((lm.visibility and lm.visibility < 0.5) or (lm.presence and lm.presence < 0.5))
        if hidden:
            continue
        valid = [(v > 0 or math.isclose(0, v)) and (v < 1 or math.isclose(1, v)) for v in (lm.x, lm.y)]
        if all(valid):
            points[idx] = (min(math.floor(lm.x * width), width - 1), min(math.floor(lm.y * height), height - 1))
    return points


def test_drawn_points_follow_mediapipes_rules_on_awkward_values():
    """The drawing's fast reading of landmarks gives MediaPipe's pixel for every landmark, at the image's edges
    (0, −0, 1, within 1e-9 of 1), just outside them, for NaN and infinities, and at the visibility and presence
    thresholds, for landmark_pb2 messages and for the Tasks API's landmark objects alike."""
    import types
    from blazekit.solutions import drawing_utils
    values = [0.0, -0.0, 1.0, 1 + 1e-10, 1 - 1e-12, 1 + 1e-6, -1e-12, 0.5, 0.99999994, 1e-45, float("nan"),
              float("inf"), -float("inf"), 0.3333333432674408]
    scores = [None, 0.0, 0.49999997, 0.5, 0.9]
    messages, plain_objects = [], []
    for i, x in enumerate(values):
        for j, y in enumerate(values):
            visibility, presence = scores[(i + j) % len(scores)], scores[(i * 3 + j) % len(scores)]
            fields = {"x": x, "y": y}
            if visibility is not None:
                fields["visibility"] = visibility
            if presence is not None:
                fields["presence"] = presence
            messages.append(landmark_pb2.NormalizedLandmark(**fields))
            plain_objects.append(types.SimpleNamespace(x=x, y=y, z=0.0, visibility=visibility or 0.0, presence=presence or 0.0))
    for width, height in [(640, 360), (7, 5), (1, 1)]:
        for landmarks in (messages, plain_objects):
            assert drawing_utils._pixel_points(landmarks, width, height) == _plain_pixel_points(landmarks, width, height)


def test_lists_held_as_arrays_read_and_draw_as_messages():
    """A landmark list held as arrays (what mp.solutions.holistic returns) reads as the list of its messages:
    the same length, equality, text and fields (visibility only where set), and once read it is an ordinary
    list. Drawing reads the arrays directly and gives the pixels the messages give, on awkward values too."""
    from blazekit.solutions import drawing_utils
    values = np.array([0.0, -0.0, 1.0, 1 - 1e-7, 0.5, 0.99999994, -1e-12, 1e-45, np.nan, np.inf, -np.inf, 0.333], np.float32)
    xs, ys = np.meshgrid(values, values[::-1])
    count = xs.size
    xyz = np.stack([xs.ravel(), ys.ravel(), np.linspace(-1, 1, count, dtype=np.float32)], axis=1)
    visibility = (np.resize(np.array([0.0, 0.49999997, 0.5, 0.9], np.float32), count), np.arange(count) % 3 != 0)

    def both():
        lazy = landmark_pb2.NormalizedLandmarkList._of_arrays(xyz.copy(), (visibility[0].copy(), visibility[1].copy()))
        read = landmark_pb2.NormalizedLandmarkList._of_arrays(xyz.copy(), (visibility[0].copy(), visibility[1].copy()))
        read.landmark  # noqa: B018 - made into messages
        return lazy, read

    lazy, read = both()
    assert len(lazy) == count and lazy._arrays is not None and read._arrays is None
    for width, height in [(640, 360), (7, 5), (1, 1)]:
        want = _plain_pixel_points(list(read.landmark), width, height)
        assert drawing_utils._array_pixel_points(lazy._arrays, width, height) == want
    for k, point in enumerate(read.landmark):
        assert (point.x, point.y, point.z) == tuple(float(v) for v in xyz[k]) or np.isnan(xyz[k][:2]).any()
        assert point.HasField("visibility") == bool(visibility[1][k]) and not point.HasField("presence")
        if visibility[1][k]:
            assert point.visibility == float(visibility[0][k])
    image = np.zeros((90, 120, 3), np.uint8)
    drawn = {}
    for name, lst in zip(("lazy", "read"), both()):
        canvas = image.copy()
        drawing_utils.draw_landmarks(canvas, lst, [(i, i + 1) for i in range(count - 1)],
                                     landmark_drawing_spec=drawing_utils.DrawingSpec(color=(0, 0, 255), circle_radius=1),
                                     connection_drawing_spec=drawing_utils.DrawingSpec(color=(0, 255, 0), thickness=1))
        drawn[name] = canvas
        assert lst._arrays is not None if name == "lazy" else True   # drawing did not make the messages
    assert drawn["lazy"].any() and np.array_equal(drawn["lazy"], drawn["read"])
    lazy, read = both()
    assert str(lazy) == str(read) and repr(lazy) == repr(read)
    xyz[np.isnan(xyz)] = 0.5   # NaN never equals itself
    lazy, read = both()
    assert lazy == read
    # Once read, the list is the truth: changes to it are what later reads and drawing see.
    lazy.landmark[0].x = 0.25
    lazy.landmark.add(x=0.5, y=0.5)
    assert lazy._arrays is None and len(lazy) == count + 1 and lazy.landmark[0].x == 0.25 and lazy != read
