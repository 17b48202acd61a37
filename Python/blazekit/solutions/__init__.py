"""MediaPipe's legacy Solutions API (`mp.solutions`), which MediaPipe 0.10.30 removed: `pose.Pose` and
`hands.Hands` running the legacy graphs, `drawing_utils`, `drawing_styles`, and the landmark indices and
connections."""
from . import drawing_styles
from . import drawing_utils
from . import hands
from . import pose
