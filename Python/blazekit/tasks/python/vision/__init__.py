"""BlazeKit's vision tasks with MediaPipe Tasks' Python names."""
from . import core
from . import drawing_styles
from . import drawing_utils
from . import hand_landmarker
from . import pose_landmarker

HandAccurateMode = hand_landmarker.HandAccurateMode
HandLandmarker = hand_landmarker.HandLandmarker
HandLandmarkerOptions = hand_landmarker.HandLandmarkerOptions
HandLandmarkerResult = hand_landmarker.HandLandmarkerResult
HandLandmarksConnections = hand_landmarker.HandLandmarksConnections
PoseAccurateMode = pose_landmarker.PoseAccurateMode
PoseLandmarker = pose_landmarker.PoseLandmarker
PoseLandmarkerOptions = pose_landmarker.PoseLandmarkerOptions
PoseLandmarkerResult = pose_landmarker.PoseLandmarkerResult
PoseLandmarksConnections = pose_landmarker.PoseLandmarksConnections
RunningMode = core.vision_task_running_mode.VisionTaskRunningMode
