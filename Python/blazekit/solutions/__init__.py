"""What MediaPipe's samples use from `mp.solutions`: drawing_utils, drawing_styles and the pose and hand
landmark indices and connections."""
from . import drawing_styles
from . import drawing_utils
from . import hands
from . import pose
