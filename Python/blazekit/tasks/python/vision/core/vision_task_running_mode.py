"""The running mode of a vision task (MediaPipe's VisionTaskRunningMode)."""
import enum


class VisionTaskRunningMode(enum.Enum):
    IMAGE = "IMAGE"
    VIDEO = "VIDEO"
    LIVE_STREAM = "LIVE_STREAM"
