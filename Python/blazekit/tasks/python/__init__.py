"""BlazeKit Tasks API (MediaPipe's mediapipe.tasks.python)."""
from . import components
from . import core
from . import vision

BaseOptions = core.base_options.BaseOptions
