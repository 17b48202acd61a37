"""MediaPipe's legacy `mp.solutions.hands`: `Hands`, which runs the legacy hand graph (palms found, hands
tracked from frame to frame, handedness labelled for mirrored images), and the landmark indices and
connections."""
import enum

import numpy as np

from ..framework.formats import classification_pb2, landmark_pb2
from ._legacy import SolutionBase, _check_complexity, _check_unit


class HandLandmark(enum.IntEnum):
    WRIST = 0
    THUMB_CMC = 1
    THUMB_MCP = 2
    THUMB_IP = 3
    THUMB_TIP = 4
    INDEX_FINGER_MCP = 5
    INDEX_FINGER_PIP = 6
    INDEX_FINGER_DIP = 7
    INDEX_FINGER_TIP = 8
    MIDDLE_FINGER_MCP = 9
    MIDDLE_FINGER_PIP = 10
    MIDDLE_FINGER_DIP = 11
    MIDDLE_FINGER_TIP = 12
    RING_FINGER_MCP = 13
    RING_FINGER_PIP = 14
    RING_FINGER_DIP = 15
    RING_FINGER_TIP = 16
    PINKY_MCP = 17
    PINKY_PIP = 18
    PINKY_DIP = 19
    PINKY_TIP = 20


HAND_PALM_CONNECTIONS = ((0, 1), (0, 5), (9, 13), (13, 17), (5, 9), (0, 17))
HAND_THUMB_CONNECTIONS = ((1, 2), (2, 3), (3, 4))
HAND_INDEX_FINGER_CONNECTIONS = ((5, 6), (6, 7), (7, 8))
HAND_MIDDLE_FINGER_CONNECTIONS = ((9, 10), (10, 11), (11, 12))
HAND_RING_FINGER_CONNECTIONS = ((13, 14), (14, 15), (15, 16))
HAND_PINKY_FINGER_CONNECTIONS = ((17, 18), (18, 19), (19, 20))
HAND_CONNECTIONS = frozenset().union(*[
    HAND_PALM_CONNECTIONS, HAND_THUMB_CONNECTIONS, HAND_INDEX_FINGER_CONNECTIONS, HAND_MIDDLE_FINGER_CONNECTIONS,
    HAND_RING_FINGER_CONNECTIONS, HAND_PINKY_FINGER_CONNECTIONS])


class Hands(SolutionBase):
    """MediaPipe Hands (legacy Solutions API): the landmarks and handedness of each hand in an RGB image.

    Arguments as MediaPipe 0.10.14's: static_image_mode (each image on its own; else a video, tracked),
    max_num_hands (default 2), model_complexity (0 lite, 1 full), min_detection_confidence (the palm detector's
    threshold) and min_tracking_confidence (the landmark network's presence threshold). Handedness assumes a
    mirrored (selfie) image, as MediaPipe's legacy graph does: flip camera frames horizontally first, or swap
    the labels. BlazeKit's additions, keyword only: thread_count (threads per inference) and
    plan_cache_dir (a directory, made if missing, that keeps the networks' timed kernel choices:
    later solutions made with it skip the timing; the same results)."""
    _outputs = ("multi_hand_landmarks", "multi_hand_world_landmarks", "multi_handedness")

    def __init__(self, static_image_mode=False, max_num_hands=2, model_complexity=1, min_detection_confidence=0.5,
                 min_tracking_confidence=0.5, *, thread_count=None, plan_cache_dir=None):
        _check_complexity(model_complexity, (0, 1))
        if isinstance(max_num_hands, bool) or not isinstance(max_num_hands, int) or max_num_hands < 1:
            raise ValueError(f"max_num_hands must be a whole number >= 1, got {max_num_hands!r}")
        _check_unit("min_detection_confidence", min_detection_confidence)
        _check_unit("min_tracking_confidence", min_tracking_confidence)
        super().__init__(static_image_mode, plan_cache_dir)
        self._complexity = model_complexity
        self._max_num_hands = max_num_hands
        self._confidences = (float(min_detection_confidence), float(min_tracking_confidence))
        self._thread_count = thread_count
        self._start()

    def _make_task(self):
        from ..tasks.python import vision
        options = vision.HandLandmarkerOptions(
            base_options=self._base_options(), running_mode=self._running_mode, num_hands=self._max_num_hands,
            min_hand_detection_confidence=self._confidences[0], min_hand_presence_confidence=self._confidences[1])

        def legacy(c):
            c.model = 1 if self._complexity == 0 else 0     # blazekit_model: FULL 0, LITE 1
            c.legacy_solution = 1
        return vision.HandLandmarker._create_with(options, legacy)

    def _outputs_of(self, result):
        if not result.hand_landmarks:
            return {"multi_hand_landmarks": None, "multi_hand_world_landmarks": None, "multi_handedness": None}
        landmarks = [landmark_pb2.NormalizedLandmarkList([landmark_pb2.NormalizedLandmark(x=l.x, y=l.y, z=l.z) for l in hand])
                     for hand in result.hand_landmarks]
        world = [landmark_pb2.LandmarkList([landmark_pb2.Landmark(x=l.x, y=l.y, z=l.z) for l in hand])
                 for hand in result.hand_world_landmarks]
        handedness = [classification_pb2.ClassificationList(
                          [classification_pb2.Classification(index=c[0].index, score=c[0].score, label=c[0].category_name)])
                      for c in result.handedness]
        return {"multi_hand_landmarks": landmarks, "multi_hand_world_landmarks": world, "multi_handedness": handedness}

    def process(self, image: np.ndarray):
        """The hands in `image` (RGB, uint8, height x width x 3): a named tuple of multi_hand_landmarks (a
        NormalizedLandmarkList of 21 per hand), multi_hand_world_landmarks (a LandmarkList of 21 per hand, metres)
        and multi_handedness (a ClassificationList per hand: index, score, label "Left" or "Right" for a mirrored
        image), each None when no hand is found. Raises ValueError for an image that is not three-channel RGB and
        after close()."""
        return super().process(image)
