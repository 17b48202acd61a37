"""PoseLandmarker with MediaPipe Tasks 0.10.14's Python names, over BlazeKit's C ABI."""
import ctypes
import dataclasses
from typing import Callable, List, Optional

import numpy as np

from ...python.components.containers import landmark as landmark_module
from ...python.core.base_options import BaseOptions
from .core.vision_task_running_mode import VisionTaskRunningMode as RunningMode
from . import _base
from .... import _capi
from ...._image import Image, ImageFormat

_LANDMARK_DTYPE = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("visibility", "<f4"), ("presence", "<f4"),
                            ("flags", "<u4")])


def _landmark_array(pointer, count):
    """`count` C landmarks (blazekit_landmark) as a structured array over the C memory (not a copy): fields x,
    y, z, visibility, presence and flags."""
    raw = np.ctypeslib.as_array(ctypes.cast(pointer, ctypes.POINTER(ctypes.c_uint8)),
                                shape=(count * _LANDMARK_DTYPE.itemsize,))
    return raw.view(_LANDMARK_DTYPE)


def _landmark_rows(pointer, count):
    """`count` C landmarks (blazekit_landmark) as (x, y, z, visibility, presence, flags) tuples."""
    return _landmark_array(pointer, count).tolist()


def _landmark_lists(pointer, groups, per_group, cls):
    """`groups` lists of `per_group` landmarks from a C array; unset visibility/presence read 0.0, as
    MediaPipe's protobuf-backed landmarks do."""
    if groups == 0:
        return []
    rows = _landmark_rows(pointer, groups * per_group)
    out = []
    for g in range(groups):
        out.append([cls(x=x, y=y, z=z, visibility=v if f & 1 else 0.0, presence=p if f & 2 else 0.0)
                    for (x, y, z, v, p, f) in rows[g * per_group:(g + 1) * per_group]])
    return out


@dataclasses.dataclass
class PoseLandmarkerResult:
    """The pose landmarks of one image: per pose, 33 normalized landmarks, 33 world landmarks and,
    when asked for, a float mask (mp.Image, VEC32F1) of the image's size."""
    pose_landmarks: List[List[landmark_module.NormalizedLandmark]]
    pose_world_landmarks: List[List[landmark_module.Landmark]]
    segmentation_masks: Optional[List[Image]] = None
    #: BlazeKit's addition (not in MediaPipe): in VIDEO and LIVE_STREAM mode, each pose's stable ID, in the
    #: order of `pose_landmarks`; a person keeps it while seen and through short absences, IDs are never
    #: reused. Empty in IMAGE mode.
    pose_ids: List[int] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class PoseAccurateMode:
    """BlazeKit's accurate mode (not in MediaPipe; Swift's PoseAccurateMode): the same networks driven to find
    small, crowded and unusual people and to mark guessed landmarks, at a higher cost. Each part can be
    switched off; `smallest_person_height` (pixels, at least 32) sizes the tiled search."""
    smallest_person_height: int = 120
    tiled_search: bool = True
    rotated_search: bool = True
    zoomed_out_search: bool = True
    zoomed_in_search: bool = True
    refinement: bool = True
    flip_averaging: bool = True
    masked_retry: bool = True

    _PARTS = (("tiles", "tiled_search"), ("rotations", "rotated_search"), ("zoom-out", "zoomed_out_search"),
              ("zoom-in", "zoomed_in_search"), ("refine", "refinement"), ("flip", "flip_averaging"),
              ("masked-retry", "masked_retry"))

    def _turned_off(self) -> bytes:
        return ",".join(name for name, field in self._PARTS if not getattr(self, field)).encode()


@dataclasses.dataclass
class PoseLandmarkerOptions:
    """Options of a PoseLandmarker, MediaPipe's names and defaults."""
    base_options: BaseOptions
    running_mode: RunningMode = RunningMode.IMAGE
    num_poses: int = 1
    min_pose_detection_confidence: float = 0.5
    min_pose_presence_confidence: float = 0.5
    min_tracking_confidence: float = 0.5
    output_segmentation_masks: bool = False
    result_callback: Optional[Callable[[PoseLandmarkerResult, Image, int], None]] = None
    #: BlazeKit's accurate mode; None (the default) gives MediaPipe's results.
    accurate_mode: Optional[PoseAccurateMode] = None
    #: BlazeKit's identities (VIDEO, LIVE_STREAM): frames a person may go unseen and keep its ID (>= 0).
    identity_max_absent_frames: int = 45
    #: The lowest similarity (landmarks, box overlap, motion) at which a pose continues an ID, in [0, 1].
    identity_min_similarity: float = 0.2


class PoseLandmarker(_base._Landmarker):
    """Finds people's 33 body landmarks in images (MediaPipe's PoseLandmarker)."""
    _prefix = "pose"
    _Options = _capi.PoseOptions
    _Callback = _capi.PoseCallback
    _Result = _capi.PoseResult

    @classmethod
    def create_from_model_path(cls, model_path: str) -> "PoseLandmarker":
        """A landmarker in image mode for the model at `model_path`, other options at their defaults."""
        return cls.create_from_options(PoseLandmarkerOptions(base_options=BaseOptions(model_asset_path=model_path),
                                                             running_mode=RunningMode.IMAGE))

    @classmethod
    def create_from_options(cls, options: PoseLandmarkerOptions) -> "PoseLandmarker":
        """A landmarker for `options`. Raises ValueError for a bad option, RuntimeError for a model that
        cannot be opened."""
        return cls._create_with(options)

    @classmethod
    def _create_with(cls, options: PoseLandmarkerOptions, legacy_fill=None) -> "PoseLandmarker":
        """create_from_options, with `legacy_fill(c)` setting the C fields of the legacy graph (mp.solutions)."""
        def fill(c):
            c.num_poses = int(options.num_poses)
            c.min_pose_detection_confidence = float(options.min_pose_detection_confidence)
            c.min_pose_presence_confidence = float(options.min_pose_presence_confidence)
            c.min_tracking_confidence = float(options.min_tracking_confidence)
            c.output_segmentation_masks = 1 if options.output_segmentation_masks else 0
            c.identity_max_absent_frames = int(options.identity_max_absent_frames)
            c.identity_min_similarity = float(options.identity_min_similarity)
            mode = options.accurate_mode
            if mode is not None:
                c.accurate_mode = 1
                c.accurate_min_person_height = int(mode.smallest_person_height)
                c.accurate_off = mode._turned_off()
            if legacy_fill is not None:
                legacy_fill(c)
        task = cls._create(options, fill)
        task._masks = bool(options.output_segmentation_masks)
        return task

    def _convert(self, r) -> PoseLandmarkerResult:
        n, per = r.pose_count, r.landmarks_per_pose
        result = PoseLandmarkerResult(_landmark_lists(r.landmarks, n, per, landmark_module.NormalizedLandmark),
                                      _landmark_lists(r.world_landmarks, n, per, landmark_module.Landmark),
                                      pose_ids=_capi.ids(r, n))
        if getattr(self, "_masks", False) and n:
            masks = []
            for i in range(r.mask_count):
                m = r.segmentation_masks[i]
                data = np.ctypeslib.as_array(m.data, shape=(m.height, m.width)).copy()
                masks.append(Image(image_format=ImageFormat.VEC32F1, data=data))
            result.segmentation_masks = masks
        return result

    def detect(self, image: Image, image_processing_options=None) -> PoseLandmarkerResult:
        """The poses in one photo (running mode IMAGE). The GIL is released during inference."""
        return self._run_detect(image, image_processing_options)

    def detect_for_video(self, image: Image, timestamp_ms: int, image_processing_options=None) -> PoseLandmarkerResult:
        """The poses in the next video frame (running mode VIDEO); timestamps must increase."""
        return self._run_detect_for_video(image, timestamp_ms, image_processing_options)

    def detect_async(self, image: Image, timestamp_ms: int, image_processing_options=None) -> None:
        """Queues a camera frame (running mode LIVE_STREAM); result_callback(result, image, timestamp_ms)
        is called on a library thread."""
        self._run_detect_async(image, timestamp_ms, image_processing_options)


class PoseLandmarksConnections:
    """The connections between pose landmarks (MediaPipe's PoseLandmarksConnections)."""

    @dataclasses.dataclass
    class Connection:
        start: int
        end: int

    POSE_LANDMARKS: List["PoseLandmarksConnections.Connection"] = []


PoseLandmarksConnections.POSE_LANDMARKS = [PoseLandmarksConnections.Connection(a, b) for a, b in [
    (0, 1), (1, 2), (2, 3), (3, 7), (0, 4), (4, 5), (5, 6), (6, 8), (9, 10), (11, 12), (11, 13), (13, 15),
    (15, 17), (15, 19), (15, 21), (17, 19), (12, 14), (14, 16), (16, 18), (16, 20), (16, 22), (18, 20),
    (11, 23), (12, 24), (23, 24), (23, 25), (24, 26), (25, 27), (26, 28), (27, 29), (28, 30), (29, 31),
    (30, 32), (27, 31), (28, 32)]]
