"""The harness hook of Google's legacy samples in this folder (BlazeKit's code, not Google's).

Each sample imports this module once, just before its unchanged `import mediapipe as mp`. On import it:

1. picks the implementation: `LEGACY_MP=mediapipe` (default) or `LEGACY_MP=blazekit`. For blazekit it imports
   `blazekit` and puts it (and every `blazekit.*` module then loaded) in `sys.modules` under the `mediapipe`
   names, so the sample's own `import mediapipe as mp` line yields blazekit: the port is "only the import
   changed", done as an alias instead of an edit. `LEGACY_MP_KERNELS=tflite` (mediapipe only) runs mediapipe's
   networks on TFLite's own kernels instead of XNNPACK, to measure MediaPipe against itself (`_tflite_kernels.py`).
2. wraps `mp.solutions.pose.Pose`, `mp.solutions.hands.Hands` and `mp.solutions.holistic.Holistic` (those that
   exist) in place: `__init__` may have `model_complexity` overridden (`LEGACY_POSE_MODEL_COMPLEXITY` for Pose and
   Holistic, `LEGACY_HANDS_MODEL_COMPLEXITY` for Hands: the static samples ask for Pose's heavy model, 2, which
   cannot be obtained here) and Holistic's `refine_face_landmarks` (`LEGACY_REFINE_FACE_LANDMARKS` 0 or 1: the
   static sample asks for True, the webcam one leaves it False), and `process()` records what it returned.
3. records to `LEGACY_RECORD` (a JSON Lines path; nothing is recorded when unset):
   - `{"meta": {...}}` first: implementation, its version, the sample, its arguments, the overrides;
   - `{"construct": "Pose", "instance": k, "args": {...}}` per object made (the arguments actually used);
   - per `process()` call: `{"call", "solution", "instance", "frame" (per object), "file" (static mode:
     the sample's argv[1 + frame]), "image": [h, w, c], "crc32" (of the input pixels),` then each output the
     result has: landmark lists as `[[x, y, z, visibility, presence], ...]` (None when absent; the multi_*
     ones a list per hand), `multi_handedness` as `[[{"index", "score", "label"}, ...], ...]`,
     `segmentation_mask` as `{"shape", "dtype", "mean", "min", "max"}` or None; `"error"` if it raised.
   - `LEGACY_MASKS=DIR` also saves each mask as `DIR/<instance>_<frame>.npz` (array `m`: round(mask * 65535)
     as uint16 after clipping to [0, 1]), for the comparator's mean absolute mask difference.
"""
import inspect
import json
import os
import sys
import zlib

import numpy as np

IMPL = os.environ.get("LEGACY_MP", "mediapipe")
if IMPL not in ("mediapipe", "blazekit"):
    raise SystemExit(f"_record: LEGACY_MP must be mediapipe or blazekit, not {IMPL!r}")


def _alias_blazekit():
    import blazekit  # noqa: F401  (its __init__ loads solutions, tasks and framework)
    for name, module in list(sys.modules.items()):
        if name == "blazekit" or name.startswith("blazekit."):
            sys.modules["mediapipe" + name[len("blazekit"):]] = module


if IMPL == "blazekit":
    _alias_blazekit()
KERNELS = os.environ.get("LEGACY_MP_KERNELS", "xnnpack")
if KERNELS not in ("xnnpack", "tflite") or (KERNELS == "tflite" and IMPL != "mediapipe"):
    raise SystemExit(f"_record: LEGACY_MP_KERNELS must be xnnpack, or tflite with LEGACY_MP=mediapipe, not {KERNELS!r}")
if KERNELS == "tflite":
    from mediapipe.python import solution_base as _solution_base
    from _tflite_kernels import use_tflite_kernels
    use_tflite_kernels(_solution_base)
import mediapipe as _mp  # noqa: E402  (blazekit itself when aliased)

_OVERRIDES = {}   # class name -> {argument: value}
for _cls, _arg, _var in (("Pose", "model_complexity", "LEGACY_POSE_MODEL_COMPLEXITY"),
                         ("Holistic", "model_complexity", "LEGACY_POSE_MODEL_COMPLEXITY"),
                         ("Hands", "model_complexity", "LEGACY_HANDS_MODEL_COMPLEXITY"),
                         ("Holistic", "refine_face_landmarks", "LEGACY_REFINE_FACE_LANDMARKS")):
    if os.environ.get(_var, "") != "":
        _value = int(os.environ[_var])
        _OVERRIDES.setdefault(_cls, {})[_arg] = bool(_value) if _arg == "refine_face_landmarks" else _value

_out = None
_masks = os.environ.get("LEGACY_MASKS") or None
_instances = 0
_calls = 0


def _write(obj):
    if _out is not None:
        _out.write(json.dumps(obj) + "\n")
        _out.flush()


if os.environ.get("LEGACY_RECORD"):
    _out = open(os.environ["LEGACY_RECORD"], "w")
    _write({"meta": {"impl": IMPL, "module": getattr(_mp, "__file__", None),
                     "version": getattr(_mp, "__version__", None),
                     "sample": os.path.basename(sys.argv[0]), "argv": sys.argv[1:],
                     "kernels": KERNELS, "overrides": _OVERRIDES, "masks": os.path.abspath(_masks) if _masks else None}})


def _jsonable(v):
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    return repr(v)


def _landmarks(lst):
    if lst is None:
        return None
    return [[float(lm.x), float(lm.y), float(lm.z), float(lm.visibility), float(lm.presence)] for lm in lst.landmark]


def _multi(lists):
    if lists is None:
        return None
    return [_landmarks(lst) for lst in lists]


def _handedness(lists):
    if lists is None:
        return None
    return [[{"index": int(c.index), "score": float(c.score), "label": str(c.label)} for c in cl.classification]
            for cl in lists]


def _mask(m, instance, frame):
    if m is None:
        return None
    a = np.asarray(m)
    info = {"shape": list(a.shape), "dtype": str(a.dtype), "mean": float(a.mean(dtype=np.float64)),
            "min": float(a.min()), "max": float(a.max())}
    if _masks:
        os.makedirs(_masks, exist_ok=True)
        q = np.round(np.clip(a.astype(np.float64), 0.0, 1.0) * 65535.0).astype(np.uint16)
        np.savez_compressed(os.path.join(_masks, f"{instance}_{frame:05d}.npz"), m=q)
    return info


_FIELDS = (
    ("pose_landmarks", _landmarks), ("pose_world_landmarks", _landmarks),
    ("multi_hand_landmarks", _multi), ("multi_hand_world_landmarks", _multi), ("multi_handedness", _handedness),
    ("face_landmarks", _landmarks), ("left_hand_landmarks", _landmarks), ("right_hand_landmarks", _landmarks),
)
_MISSING = object()


def _hook(module, cls_name):
    cls = getattr(module, cls_name, None)
    if cls is None or getattr(cls, "_legacy_record_hooked", False):
        return
    orig_init, orig_process = cls.__init__, cls.process

    def __init__(self, *args, **kwargs):
        global _instances
        bound = inspect.signature(orig_init).bind(self, *args, **kwargs)
        for argument, value in _OVERRIDES.get(cls_name, {}).items():
            if argument in bound.signature.parameters:
                bound.arguments[argument] = value
            else:
                bound.arguments.setdefault("kwargs", {})[argument] = value
        used = dict(bound.arguments)
        used.pop("self", None)
        for p in bound.signature.parameters.values():
            if p.name not in used and p.default is not inspect.Parameter.empty:
                used[p.name] = p.default
        self._legacy_instance = _instances
        self._legacy_frame = 0
        self._legacy_static = bool(used.get("static_image_mode", False))
        _instances += 1
        _write({"construct": cls_name, "instance": self._legacy_instance,
                "args": {k: _jsonable(v) for k, v in used.items()}})
        orig_init(*bound.args, **bound.kwargs)

    def process(self, image):
        global _calls
        frame = self._legacy_frame
        self._legacy_frame += 1
        rec = {"call": _calls, "solution": cls_name, "instance": self._legacy_instance, "frame": frame}
        _calls += 1
        if self._legacy_static and 1 + frame < len(sys.argv):
            rec["file"] = os.path.basename(sys.argv[1 + frame])
        a = np.asarray(image)
        rec["image"] = list(a.shape)
        rec["crc32"] = zlib.crc32(np.ascontiguousarray(a).tobytes())
        try:
            results = orig_process(self, image)
        except BaseException as e:
            rec["error"] = f"{type(e).__name__}: {e}"
            _write(rec)
            raise
        for name, conv in _FIELDS:
            v = getattr(results, name, _MISSING)
            if v is not _MISSING:
                rec[name] = conv(v)
        m = getattr(results, "segmentation_mask", _MISSING)
        if m is not _MISSING:
            rec["segmentation_mask"] = _mask(m, self._legacy_instance, frame)
        _write(rec)
        return results

    cls.__init__ = __init__
    cls.process = process
    cls._legacy_record_hooked = True


for _mod_name, _cls_name in (("pose", "Pose"), ("hands", "Hands"), ("holistic", "Holistic")):
    _m = getattr(_mp.solutions, _mod_name, None)
    if _m is not None:
        _hook(_m, _cls_name)
