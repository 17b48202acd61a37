"""MediaPipe's legacy Solutions API (`mp.solutions`), which MediaPipe 0.10.30 removed: `pose.Pose`, `hands.Hands`
and `holistic.Holistic` running the legacy graphs, `drawing_utils`, `drawing_styles`, and the landmark indices and
connections (`face_mesh_connections` for the face mesh)."""
from . import drawing_styles
from . import drawing_utils
from . import face_mesh_connections
from . import hands
from . import holistic
from . import pose
