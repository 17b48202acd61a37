"""HandLandmarker with MediaPipe Tasks 0.10.14's Python names, over BlazeKit's C ABI."""
import dataclasses
from typing import Callable, List, Optional

from ...python.components.containers import category as category_module
from ...python.components.containers import landmark as landmark_module
from ...python.core.base_options import BaseOptions
from .core.vision_task_running_mode import VisionTaskRunningMode as RunningMode
from . import _base
from .pose_landmarker import _landmark_lists
from .... import _capi
from ...._image import Image


@dataclasses.dataclass
class HandLandmarkerResult:
    """The hands in one image: per hand, its handedness (one category), 21 normalized landmarks and 21
    world landmarks. BlazeKit sets each normalized landmark's `presence` to the hand's presence score
    (MediaPipe leaves it 0.0)."""
    handedness: List[List[category_module.Category]]
    hand_landmarks: List[List[landmark_module.NormalizedLandmark]]
    hand_world_landmarks: List[List[landmark_module.Landmark]]
    #: BlazeKit's addition (not in MediaPipe): in VIDEO and LIVE_STREAM mode, each hand's stable ID, in the
    #: order of `hand_landmarks`; empty in IMAGE mode.
    hand_ids: List[int] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class HandAccurateMode:
    """BlazeKit's accurate mode for hands (not in MediaPipe; Swift's HandAccurateMode): the palm detector over
    tiles, for hands too small for its whole-frame view (`smallest_hand_size` pixels and up, at least 24),
    and flip averaging; a second landmark pass (`refinement`) is off by default."""
    smallest_hand_size: int = 80
    tiled_search: bool = True
    flip_averaging: bool = True
    refinement: bool = False

    _PARTS = (("tiles", "tiled_search"), ("flip", "flip_averaging"), ("refine", "refinement"))

    def _parts(self, on: bool) -> bytes:
        return ",".join(name for name, field in self._PARTS if bool(getattr(self, field)) == on).encode()


@dataclasses.dataclass
class HandLandmarkerOptions:
    """Options of a HandLandmarker, MediaPipe's names and defaults."""
    base_options: BaseOptions
    running_mode: RunningMode = RunningMode.IMAGE
    num_hands: int = 1
    min_hand_detection_confidence: float = 0.5
    min_hand_presence_confidence: float = 0.5
    min_tracking_confidence: float = 0.5
    result_callback: Optional[Callable[[HandLandmarkerResult, Image, int], None]] = None
    #: BlazeKit's accurate mode; None (the default) gives MediaPipe's results.
    accurate_mode: Optional[HandAccurateMode] = None
    #: BlazeKit's identities (VIDEO, LIVE_STREAM): frames a hand may go unseen and keep its ID (>= 0).
    identity_max_absent_frames: int = 45
    #: The lowest similarity at which a hand continues an ID, in [0, 1].
    identity_min_similarity: float = 0.2
    #: True: each hand's handedness is its track's vote over the frames so far (score: this frame's
    #: probability of that label) instead of the frame's own label.
    vote_handedness: bool = False


class HandLandmarker(_base._Landmarker):
    """Finds hands' 21 landmarks and handedness in images (MediaPipe's HandLandmarker)."""
    _prefix = "hand"
    _Options = _capi.HandOptions
    _Callback = _capi.HandCallback
    _Result = _capi.HandResult

    @classmethod
    def create_from_model_path(cls, model_path: str) -> "HandLandmarker":
        """A landmarker in image mode for the model at `model_path`, other options at their defaults."""
        return cls.create_from_options(HandLandmarkerOptions(base_options=BaseOptions(model_asset_path=model_path),
                                                             running_mode=RunningMode.IMAGE))

    @classmethod
    def create_from_options(cls, options: HandLandmarkerOptions) -> "HandLandmarker":
        """A landmarker for `options`. Raises ValueError for a bad option, RuntimeError for a model that
        cannot be opened."""
        return cls._create_with(options)

    @classmethod
    def _create_with(cls, options: HandLandmarkerOptions, legacy_fill=None) -> "HandLandmarker":
        """create_from_options, with `legacy_fill(c)` setting the C fields of the legacy graph (mp.solutions)."""
        def fill(c):
            c.num_hands = int(options.num_hands)
            c.min_hand_detection_confidence = float(options.min_hand_detection_confidence)
            c.min_hand_presence_confidence = float(options.min_hand_presence_confidence)
            c.min_tracking_confidence = float(options.min_tracking_confidence)
            c.identity_max_absent_frames = int(options.identity_max_absent_frames)
            c.identity_min_similarity = float(options.identity_min_similarity)
            c.vote_handedness = 1 if options.vote_handedness else 0
            mode = options.accurate_mode
            if mode is not None:
                c.accurate_mode = 1
                c.accurate_min_hand_size = int(mode.smallest_hand_size)
                c.accurate_on = mode._parts(True)
                c.accurate_off = mode._parts(False)
            if legacy_fill is not None:
                legacy_fill(c)
        return cls._create(options, fill)

    def _convert(self, r) -> HandLandmarkerResult:
        n, per = r.hand_count, r.landmarks_per_hand
        handedness = []
        for i in range(n):
            c = r.handedness[i]
            handedness.append([category_module.Category(index=c.index, score=c.score,
                                                        display_name=(c.display_name or b"").decode(),
                                                        category_name=(c.category_name or b"").decode())])
        return HandLandmarkerResult(handedness,
                                    _landmark_lists(r.landmarks, n, per, landmark_module.NormalizedLandmark),
                                    _landmark_lists(r.world_landmarks, n, per, landmark_module.Landmark),
                                    hand_ids=_capi.ids(r, n))

    def detect(self, image: Image, image_processing_options=None) -> HandLandmarkerResult:
        """The hands in one photo (running mode IMAGE). The GIL is released during inference."""
        return self._run_detect(image, image_processing_options)

    def detect_for_video(self, image: Image, timestamp_ms: int, image_processing_options=None) -> HandLandmarkerResult:
        """The hands in the next video frame (running mode VIDEO); timestamps must increase."""
        return self._run_detect_for_video(image, timestamp_ms, image_processing_options)

    def detect_async(self, image: Image, timestamp_ms: int, image_processing_options=None) -> None:
        """Queues a camera frame (running mode LIVE_STREAM); result_callback(result, image, timestamp_ms)
        is called on a library thread."""
        self._run_detect_async(image, timestamp_ms, image_processing_options)


class HandLandmarksConnections:
    """The connections between hand landmarks (MediaPipe's HandLandmarksConnections)."""

    @dataclasses.dataclass
    class Connection:
        start: int
        end: int

    HAND_PALM_CONNECTIONS: List["HandLandmarksConnections.Connection"] = []
    HAND_THUMB_CONNECTIONS: List["HandLandmarksConnections.Connection"] = []
    HAND_INDEX_FINGER_CONNECTIONS: List["HandLandmarksConnections.Connection"] = []
    HAND_MIDDLE_FINGER_CONNECTIONS: List["HandLandmarksConnections.Connection"] = []
    HAND_RING_FINGER_CONNECTIONS: List["HandLandmarksConnections.Connection"] = []
    HAND_PINKY_FINGER_CONNECTIONS: List["HandLandmarksConnections.Connection"] = []
    HAND_CONNECTIONS: List["HandLandmarksConnections.Connection"] = []


def _connections(pairs):
    return [HandLandmarksConnections.Connection(a, b) for a, b in pairs]


HandLandmarksConnections.HAND_PALM_CONNECTIONS = _connections([(0, 1), (1, 5), (9, 13), (13, 17), (5, 9), (0, 17)])
HandLandmarksConnections.HAND_THUMB_CONNECTIONS = _connections([(1, 2), (2, 3), (3, 4)])
HandLandmarksConnections.HAND_INDEX_FINGER_CONNECTIONS = _connections([(5, 6), (6, 7), (7, 8)])
HandLandmarksConnections.HAND_MIDDLE_FINGER_CONNECTIONS = _connections([(9, 10), (10, 11), (11, 12)])
HandLandmarksConnections.HAND_RING_FINGER_CONNECTIONS = _connections([(13, 14), (14, 15), (15, 16)])
HandLandmarksConnections.HAND_PINKY_FINGER_CONNECTIONS = _connections([(17, 18), (18, 19), (19, 20)])
HandLandmarksConnections.HAND_CONNECTIONS = (
    HandLandmarksConnections.HAND_PALM_CONNECTIONS + HandLandmarksConnections.HAND_THUMB_CONNECTIONS
    + HandLandmarksConnections.HAND_INDEX_FINGER_CONNECTIONS + HandLandmarksConnections.HAND_MIDDLE_FINGER_CONNECTIONS
    + HandLandmarksConnections.HAND_RING_FINGER_CONNECTIONS + HandLandmarksConnections.HAND_PINKY_FINGER_CONNECTIONS)
