"""What `mp.solutions.pose.Pose` and `mp.solutions.hands.Hands` share (MediaPipe's `SolutionBase`): the checks
of `process()`'s image, the outputs as a named tuple with None for what was not found, `close()` and `with`.
The graphs themselves are BlazeKit's legacy pipelines, run through the landmarkers of the Tasks API with the
C ABI's `legacy_solution` switch, so Swift, C and Python give the same numbers."""
import collections
import ctypes
import os

import numpy as np

from .. import _capi


class _RGBFrame:
    """A contiguous RGB uint8 array as the landmarkers read it, without the copy mp.Image makes."""

    def __init__(self, data: np.ndarray):
        self._data = data

    def _c_image(self) -> _capi.Image:
        image = _capi.Image()
        image.struct_size = ctypes.sizeof(_capi.Image)
        image.pixels = self._data.ctypes.data
        image.byte_count = self._data.nbytes
        image.height, image.width = self._data.shape[:2]
        image.bytes_per_row = self._data.strides[0]
        image.format = _capi.PIXEL_RGB
        image.orientation = 0
        return image


def _check_unit(name, value):
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a number in [0.0, 1.0], got {value!r}")


def _check_complexity(value, allowed):
    if isinstance(value, bool) or value not in allowed:
        raise ValueError(f"model_complexity must be one of {', '.join(map(str, allowed))}, got {value!r}")


class _ModelNotFound(RuntimeError):
    """A model the solution runs is not on this machine (pose_landmark_heavy): raised by `process()`, not by the
    constructor, so that the solution still constructs, as Google's samples expect, and fails when used."""


class SolutionBase:
    """The shell of a legacy solution: one landmarker, made by the constructor as MediaPipe's starts its graph
    there (so a bad option or model fails at once, and the first frame does not pay for loading and planning the
    networks), one frame per call. Each solution's constructor ends with `_start()`."""
    _outputs = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._Outputs = collections.namedtuple("SolutionOutputs", cls._outputs)   # made once, not per frame

    def __init__(self, static_image_mode: bool, plan_cache_dir=None):
        self._static = bool(static_image_mode)
        self._plan_cache_dir = plan_cache_dir
        self._task = None
        self._closed = False
        self._frames = 0

    def _make_task(self):  # pragma: no cover - each solution defines it
        raise NotImplementedError

    def _start(self):
        """Makes the landmarker; when a model it needs is not on this machine, `process()` tries again and raises."""
        try:
            self._task = self._make_task()
        except _ModelNotFound:
            self._task = None

    def _base_options(self, model_asset_path=None):
        """The task's base options: the model (None: the built-in ones), the solution's thread_count and
        plan_cache_dir."""
        from ..tasks.python.core.base_options import BaseOptions   # here: blazekit.tasks imports this package
        base = BaseOptions(model_asset_path=model_asset_path, plan_cache_dir=self._plan_cache_dir)
        base.thread_count = self._thread_count
        return base

    def _pose_base_options(self):
        """The base options of a solution with a pose landmark network (Pose, Holistic): its model_path, else for
        model_complexity 2 the heavy model (heavy_pose_model()), else the built-in networks."""
        path = self._model_path
        if path is None and self._complexity == 2:
            path = heavy_pose_model()
        return self._base_options(path)

    @property
    def _running_mode(self):
        from ..tasks.python.vision.core.vision_task_running_mode import VisionTaskRunningMode as RunningMode
        return RunningMode.IMAGE if self._static else RunningMode.VIDEO

    def process(self, image: np.ndarray):
        """Processes one RGB image (a numpy array of shape (height, width, 3), uint8) and returns a named tuple
        of the solution's outputs, each None where nothing was found. Frames of a video (static_image_mode
        False) are tracked from call to call. Raises ValueError for an image that is not three-channel RGB or
        after close(), RuntimeError when the model cannot be loaded."""
        if self._closed:
            raise ValueError("_input_stream_type_info is None in SolutionBase: process() after close()")
        data = np.asarray(image)
        if data.ndim != 3 or data.shape[2] != 3:
            raise ValueError("Input image must contain three channel rgb data.")
        if data.dtype != np.uint8:
            raise ValueError(f"Input image must contain three channel rgb data of uint8, got {data.dtype}")
        if data.shape[0] < 1 or data.shape[1] < 1:
            raise ValueError(f"Input image is empty ({data.shape[1]}x{data.shape[0]})")
        frame = _RGBFrame(np.ascontiguousarray(data))
        if self._task is None:
            self._task = self._make_task()
        self._frames += 1
        if self._static:
            result = self._task._call_for_result(self._task._detect, frame)
        else:
            result = self._task._call_for_result(self._task._detect_for_video, frame, self._frames)
        return self._Outputs(**self._outputs_of(result))

    def _outputs_of(self, result):  # pragma: no cover - each solution defines it
        raise NotImplementedError

    def reset(self) -> None:
        """Starts a new stream: nothing tracked, no filter state (a new landmarker, as MediaPipe restarts its graph)."""
        if self._task is not None:
            self._task.close()
            self._task = None
        if not self._closed:
            self._start()

    def close(self) -> None:
        """Releases the networks. A second close() raises ValueError, as MediaPipe's does."""
        if self._closed:
            raise ValueError("Closing SolutionBase._graph which is already None")
        self._closed = True
        if self._task is not None:
            self._task.close()
            self._task = None

    def __enter__(self):
        return self

    def __exit__(self, unused_exc_type, unused_exc_value, unused_traceback):
        self.close()

    def __del__(self):
        task = getattr(self, "_task", None)
        if task is not None:
            try:
                task.close()
            except Exception:
                pass


def heavy_pose_model() -> str:
    """The pose_landmark_heavy model `model_complexity=2` runs: $BLAZEKIT_POSE_LANDMARK_HEAVY (a .tflite or a
    converted .bkm), else pose_landmark_heavy.tflite or .bkm in $BLAZEKIT_MODELS_DIR. RuntimeError, naming the
    model and the ways to supply it, when none is there."""
    path = os.environ.get("BLAZEKIT_POSE_LANDMARK_HEAVY")
    if path:
        if not os.path.isfile(path):
            raise _ModelNotFound(f"BLAZEKIT_POSE_LANDMARK_HEAVY is {path!r}, which is not a file")
        return path
    directory = os.environ.get("BLAZEKIT_MODELS_DIR")
    if directory:
        for name in ("pose_landmark_heavy.bkm", "pose_landmark_heavy.tflite"):
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate):
                return candidate
    raise _ModelNotFound(
        "model_complexity=2 runs pose_landmark_heavy, which BlazeKit does not ship (MediaPipe downloads it from "
        "https://storage.googleapis.com/mediapipe-assets/pose_landmark_heavy.tflite). Download that file, then "
        "set BLAZEKIT_POSE_LANDMARK_HEAVY=/path/to/pose_landmark_heavy.tflite (a .tflite or a converted .bkm), or "
        "put it in the directory named by BLAZEKIT_MODELS_DIR; or use model_complexity=1 (full) or 0 (lite)"
        + (f"; BLAZEKIT_MODELS_DIR={directory!r} has no pose_landmark_heavy.tflite or .bkm" if directory else ""))
