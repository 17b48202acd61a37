"""The C ABI's holistic landmarker (blazekit_holistic_*) in the task shell the Tasks API's landmarkers use, with
its results converted to what `mp.solutions.holistic` returns. Private: `holistic.Holistic` runs it, and imports
this module on its first `process()` (this module imports the Tasks API, which imports `solutions`)."""
import numpy as np

from .. import _capi
from ..framework.formats import landmark_pb2
from ..tasks.python.vision import _base
from ..tasks.python.vision.pose_landmarker import _landmark_array


def _landmark_list(pointer, count, list_class, with_visibility):
    """`count` C landmarks as a landmark_pb2 list of x, y, z (and visibility, as the legacy graph sets it on the
    pose; presence stays unset, as mp.solutions.holistic clears it), or None when the part is absent. The list
    holds copies of the values as arrays and makes its landmark messages when they are first read."""
    if count == 0 or not pointer:
        return None
    rows = np.array(_landmark_array(pointer, count))   # a copy: the C result is freed after the conversion
    xyz = np.stack([rows["x"], rows["y"], rows["z"]], axis=1)
    visibility = (rows["visibility"], (rows["flags"] & _capi.HAS_VISIBILITY) != 0) if with_visibility else None
    return list_class._of_arrays(xyz, visibility)


class HolisticLandmarker(_base._Landmarker):
    """One C holistic landmarker; `_convert` gives mp.solutions.holistic's outputs as a dict."""
    _prefix = "holistic"
    _Options = _capi.HolisticOptions
    _Callback = _capi.HolisticCallback
    _Result = _capi.HolisticResult

    def _convert(self, r) -> dict:
        normalized, world = landmark_pb2.NormalizedLandmarkList, landmark_pb2.LandmarkList
        mask = None
        if r.segmentation_mask:
            m = r.segmentation_mask.contents
            mask = np.ctypeslib.as_array(m.data, shape=(m.height, m.width)).astype(np.float32, copy=True)
        return {
            "pose_landmarks": _landmark_list(r.pose_landmarks, r.pose_landmark_count, normalized, True),
            "pose_world_landmarks": _landmark_list(r.pose_world_landmarks, r.pose_landmark_count, world, True),
            "left_hand_landmarks": _landmark_list(r.left_hand_landmarks, r.left_hand_landmark_count, normalized, False),
            "right_hand_landmarks": _landmark_list(r.right_hand_landmarks, r.right_hand_landmark_count, normalized, False),
            "face_landmarks": _landmark_list(r.face_landmarks, r.face_landmark_count, normalized, False),
            "segmentation_mask": mask,
        }
