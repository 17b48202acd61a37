"""The newer samples' spelling: `mp.tasks.vision.drawing_utils` (draws a result's landmark list directly)."""
from ....solutions.drawing_utils import *  # noqa: F401,F403
from ....solutions.drawing_utils import DrawingSpec, draw_landmarks  # noqa: F401
