"""MediaPipe's `mediapipe.framework` names the samples use (no protobuf dependency)."""
from . import formats
