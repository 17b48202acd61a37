"""The newer samples' spelling: `mp.tasks.vision.drawing_styles`. The connection styles take the tasks'
Connection objects as well as index pairs."""
from ....solutions.drawing_styles import *  # noqa: F401,F403
from ....solutions.drawing_styles import (get_default_hand_connections_style, get_default_hand_landmarks_style,  # noqa: F401
                                          get_default_pose_landmarks_style)
