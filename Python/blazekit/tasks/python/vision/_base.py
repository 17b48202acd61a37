"""What the pose and hand landmarkers share: option checks, running modes, errors, the live stream."""
import ctypes
import os
import threading
import weakref

from ...python.core.base_options import BaseOptions
from .core.vision_task_running_mode import VisionTaskRunningMode as RunningMode
from .... import _capi

_MODES = {RunningMode.IMAGE: 0, RunningMode.VIDEO: 1, RunningMode.LIVE_STREAM: 2}


def _raise(status: int, context: str = ""):
    message = _capi.last_error()
    if status == _capi.TIMESTAMP:
        raise ValueError(f"Input timestamp must be monotonically increasing. {message}")
    if status == _capi.MODEL:
        if "no such file" in message and context:
            raise RuntimeError(f"Unable to open file at {context}: {message}")
        raise RuntimeError(message)
    if status in (_capi.INVALID_ARGUMENT, _capi.INVALID_OPTION, _capi.RUNNING_MODE, _capi.CLOSED):
        raise ValueError(message)
    raise RuntimeError(message)


def _check_processing_options(image_processing_options):
    if image_processing_options is None:
        return
    if getattr(image_processing_options, "region_of_interest", None):
        raise ValueError("This task doesn't support region-of-interest.")
    if getattr(image_processing_options, "rotation_degrees", 0):
        raise ValueError("BlazeKit does not support image_processing_options.rotation_degrees yet")


class _Landmarker:
    """The task shell: one C landmarker handle, closed by close() or the context manager."""
    _prefix = ""            # "pose" or "hand"
    _Options = None         # the ctypes options struct
    _Callback = None        # the ctypes callback type
    _Result = None          # the ctypes result struct

    def __init__(self, handle, running_mode, c_callback, user_callback):
        self._handle = handle
        self._running_mode = running_mode
        self._c_callback = c_callback   # kept alive as long as the C side may call it
        self._user_callback = user_callback
        self._pending = {}              # live stream: timestamp -> image, for the callback's output_image
        self._pending_lock = threading.Lock()
        self._lock = threading.Lock()
        fn = lambda name: getattr(_capi.lib, f"blazekit_{self._prefix}_landmarker_{name}")
        self._detect, self._detect_for_video, self._detect_async = fn("detect"), fn("detect_for_video"), fn("detect_async")
        self._close, self._destroy = fn("close"), fn("destroy")
        self._free = getattr(_capi.lib, f"blazekit_{self._prefix}_result_free")

    @classmethod
    def _create(cls, options, fill):
        """Checks the callback against the running mode as MediaPipe does, then creates the C landmarker;
        `fill(c_options)` sets the task's own fields."""
        mode = options.running_mode
        if mode not in _MODES:
            raise ValueError(f"Unknown running mode: {mode}")
        callback = options.result_callback
        if mode == RunningMode.LIVE_STREAM:
            if callback is None:
                raise ValueError("The vision task is in live stream mode, a user-defined result callback must be provided.")
        elif callback:
            raise ValueError("The vision task is in image or video mode, a user-defined result callback should not be provided.")
        base = options.base_options or BaseOptions()
        c = cls._Options()
        init = getattr(_capi.lib, f"blazekit_{cls._prefix}_landmarker_options_init_sized")
        status = init(ctypes.byref(c), ctypes.sizeof(c))   # the library writes no byte beyond this package's struct
        if status != _capi.OK:
            _raise(status)
        path = base.model_asset_path
        buffer = base.model_asset_buffer
        keep = None
        if buffer is not None:
            keep = ctypes.create_string_buffer(bytes(buffer), len(buffer))
            c.model_asset_buffer = ctypes.cast(keep, ctypes.c_void_p)
            c.model_asset_buffer_size = len(buffer)
        elif path is not None:
            c.model_asset_path = str(path).encode()
        c.running_mode = _MODES[mode]
        threads = base.thread_count if getattr(base, "thread_count", None) is not None else os.environ.get("BLAZEKIT_NUM_THREADS")
        if threads is None:
            threads = min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
        try:
            c.thread_count = int(threads)
        except ValueError:
            raise ValueError(f"BLAZEKIT_NUM_THREADS must be a whole number, got {threads!r}") from None
        c.fixed_plan = 1 if getattr(base, "fixed_plan", False) else 0
        plan_cache_dir = getattr(base, "plan_cache_dir", None)
        if plan_cache_dir is not None:
            c.plan_cache_dir = os.fsencode(os.path.expanduser(os.fspath(plan_cache_dir)))
        fill(c)
        box = {}
        c_callback = None
        if mode == RunningMode.LIVE_STREAM:
            def relay(user_data, status, message, result, timestamp_ms, box=box):
                task = box.get("task")
                task = task() if task else None
                if task is not None:
                    task._deliver(status, message, result, timestamp_ms)
            c_callback = cls._Callback(relay)
            c.result_callback = c_callback
        handle = ctypes.c_void_p()
        status = getattr(_capi.lib, f"blazekit_{cls._prefix}_landmarker_create")(ctypes.byref(c), ctypes.byref(handle))
        del keep
        if status != _capi.OK:
            _raise(status, context=path or "")
        task = cls(handle, mode, c_callback, callback)
        box["task"] = weakref.ref(task)
        return task

    # -- running modes -------------------------------------------------------------------------------

    def _require(self, mode, name):
        if self._handle is None:
            raise ValueError(f"{type(self).__name__} is closed")
        if self._running_mode != mode:
            raise ValueError(f"Task is not initialized with the {name} mode. Current running mode:{self._running_mode.name}")

    def _run_detect(self, image, image_processing_options):
        self._require(RunningMode.IMAGE, "image")
        _check_processing_options(image_processing_options)
        return self._call_for_result(self._detect, image)

    def _run_detect_for_video(self, image, timestamp_ms, image_processing_options):
        self._require(RunningMode.VIDEO, "video")
        _check_processing_options(image_processing_options)
        return self._call_for_result(self._detect_for_video, image, int(timestamp_ms))

    def _call_for_result(self, function, image, *arguments):
        """`function(handle, image, *arguments, &result)` (the GIL released), the result converted and freed."""
        c_image = image._c_image()
        out = ctypes.POINTER(self._Result)()
        status = function(self._handle, ctypes.byref(c_image), *arguments, ctypes.byref(out))
        if status != _capi.OK:
            _raise(status)
        try:
            return self._convert(out.contents)
        finally:
            self._free(out)

    def _run_detect_async(self, image, timestamp_ms, image_processing_options):
        self._require(RunningMode.LIVE_STREAM, "live stream")
        _check_processing_options(image_processing_options)
        c_image = image._c_image()
        timestamp_ms = int(timestamp_ms)
        with self._pending_lock:
            self._pending[timestamp_ms] = image
        status = self._detect_async(self._handle, ctypes.byref(c_image), timestamp_ms)
        if status != _capi.OK:
            with self._pending_lock:
                if self._pending.get(timestamp_ms) is image:
                    del self._pending[timestamp_ms]
            _raise(status)

    def _deliver(self, status, message, result, timestamp_ms):
        """On the library's callback thread (ctypes holds the GIL here)."""
        with self._pending_lock:
            image = self._pending.pop(timestamp_ms, None)
            for t in [t for t in self._pending if t < timestamp_ms]:   # frames dropped for newer ones
                del self._pending[t]
        if status != _capi.OK:
            raise RuntimeError((message or b"").decode("utf-8", "replace"))
        self._user_callback(self._convert(result.contents), image, timestamp_ms)

    # -- lifetime --------------------------------------------------------------------------------------

    def close(self) -> None:
        """Releases the networks. A live-stream frame being processed finishes first; no callback comes
        after close returns."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            self._close(handle)    # GIL released: a callback in progress can finish
            self._destroy(handle)

    def __enter__(self):
        return self

    def __exit__(self, unused_exc_type, unused_exc_value, unused_traceback):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
