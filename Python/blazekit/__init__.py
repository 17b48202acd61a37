"""BlazeKit: MediaPipe 0.10.14's pose and hand landmarkers, deterministic and fast, with MediaPipe's
Python names. Replace `mediapipe` with `blazekit` in import lines:

    import blazekit as mp
    from blazekit.tasks import python
    from blazekit.tasks.python import vision
"""
from ._image import Image, ImageFormat
from . import _capi

from . import framework  # noqa: E402
from . import solutions  # noqa: E402
import blazekit.tasks.python as tasks  # noqa: E402  (mp.tasks.vision, mp.tasks.BaseOptions, as in MediaPipe)

__version__ = _capi.lib.blazekit_version_string().decode()
