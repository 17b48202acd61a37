"""Default drawing styles for pose, hand and face mesh landmarks (MediaPipe's `mp.solutions.drawing_styles`)."""
from typing import Mapping, Tuple

from . import face_mesh_connections as _face
from .drawing_utils import DrawingSpec
from .hands import (HAND_INDEX_FINGER_CONNECTIONS, HAND_MIDDLE_FINGER_CONNECTIONS, HAND_PALM_CONNECTIONS,
                    HAND_PINKY_FINGER_CONNECTIONS, HAND_RING_FINGER_CONNECTIONS, HAND_THUMB_CONNECTIONS, HandLandmark)
from .pose import PoseLandmark

_RADIUS = 5
_RED = (48, 48, 255)
_GREEN = (48, 255, 48)
_BLUE = (192, 101, 21)
_YELLOW = (0, 204, 255)
_GRAY = (128, 128, 128)
_PURPLE = (128, 64, 128)
_PEACH = (180, 229, 255)
_WHITE = (224, 224, 224)
_CYAN = (192, 255, 48)
_MAGENTA = (192, 48, 255)
_THICKNESS_WRIST_MCP = 3
_THICKNESS_FINGER = 2
_THICKNESS_DOT = -1
_THICKNESS_POSE_LANDMARKS = 2
_THICKNESS_TESSELATION = 1
_THICKNESS_CONTOURS = 2

H = HandLandmark
_HAND_LANDMARK_GROUPS = [
    ((H.WRIST, H.THUMB_CMC, H.INDEX_FINGER_MCP, H.MIDDLE_FINGER_MCP, H.RING_FINGER_MCP, H.PINKY_MCP), _RED),
    ((H.THUMB_MCP, H.THUMB_IP, H.THUMB_TIP), _PEACH),
    ((H.INDEX_FINGER_PIP, H.INDEX_FINGER_DIP, H.INDEX_FINGER_TIP), _PURPLE),
    ((H.MIDDLE_FINGER_PIP, H.MIDDLE_FINGER_DIP, H.MIDDLE_FINGER_TIP), _YELLOW),
    ((H.RING_FINGER_PIP, H.RING_FINGER_DIP, H.RING_FINGER_TIP), _GREEN),
    ((H.PINKY_PIP, H.PINKY_DIP, H.PINKY_TIP), _BLUE),
]
_HAND_CONNECTION_GROUPS = [
    (HAND_PALM_CONNECTIONS, _GRAY, _THICKNESS_WRIST_MCP),
    (HAND_THUMB_CONNECTIONS, _PEACH, _THICKNESS_FINGER),
    (HAND_INDEX_FINGER_CONNECTIONS, _PURPLE, _THICKNESS_FINGER),
    (HAND_MIDDLE_FINGER_CONNECTIONS, _YELLOW, _THICKNESS_FINGER),
    (HAND_RING_FINGER_CONNECTIONS, _GREEN, _THICKNESS_FINGER),
    (HAND_PINKY_FINGER_CONNECTIONS, _BLUE, _THICKNESS_FINGER),
]


def get_default_hand_landmarks_style() -> Mapping[int, DrawingSpec]:
    """Each hand landmark's drawing spec: filled dots, one color per finger."""
    style = {}
    for landmarks, color in _HAND_LANDMARK_GROUPS:
        spec = DrawingSpec(color=color, thickness=_THICKNESS_DOT, circle_radius=_RADIUS)
        for landmark in landmarks:
            style[landmark] = spec
    return style


def get_default_hand_connections_style() -> Mapping[Tuple[int, int], DrawingSpec]:
    """Each hand connection's drawing spec: one color per finger, the palm thicker."""
    style = {}
    for connections, color, thickness in _HAND_CONNECTION_GROUPS:
        spec = DrawingSpec(color=color, thickness=thickness)
        for connection in connections:
            style[connection] = spec
    return style


def get_default_pose_landmarks_style() -> Mapping[int, DrawingSpec]:
    """Each pose landmark's drawing spec: orange on the left, cyan on the right, the nose white."""
    left = DrawingSpec(color=(0, 138, 255), thickness=_THICKNESS_POSE_LANDMARKS)
    right = DrawingSpec(color=(231, 217, 0), thickness=_THICKNESS_POSE_LANDMARKS)
    style = {}
    for landmark in PoseLandmark:
        if landmark.name.startswith("LEFT_") or landmark.name == "MOUTH_LEFT":
            style[landmark] = left
        elif landmark.name.startswith("RIGHT_") or landmark.name == "MOUTH_RIGHT":
            style[landmark] = right
    style[PoseLandmark.NOSE] = DrawingSpec(color=_WHITE, thickness=_THICKNESS_POSE_LANDMARKS)
    return style


# The face mesh's contours by part: MediaPipe's style 0 (the default) and style 1.
_FACE_CONTOUR_STYLES = (
    ((_face.FACEMESH_LIPS, _WHITE), (_face.FACEMESH_LEFT_EYE, _GREEN), (_face.FACEMESH_LEFT_EYEBROW, _GREEN),
     (_face.FACEMESH_RIGHT_EYE, _RED), (_face.FACEMESH_RIGHT_EYEBROW, _RED), (_face.FACEMESH_FACE_OVAL, _WHITE)),
    ((_face.FACEMESH_LIPS, _BLUE), (_face.FACEMESH_LEFT_EYE, _CYAN), (_face.FACEMESH_LEFT_EYEBROW, _GREEN),
     (_face.FACEMESH_RIGHT_EYE, _MAGENTA), (_face.FACEMESH_RIGHT_EYEBROW, _RED), (_face.FACEMESH_FACE_OVAL, _WHITE),
     (_face.FACEMESH_NOSE, _YELLOW)),
)


def _connection_style(parts) -> Mapping[Tuple[int, int], DrawingSpec]:
    """Each connection of each (connections, color) part: one contour-thick spec per part."""
    style = {}
    for connections, color in parts:
        spec = DrawingSpec(color=color, thickness=_THICKNESS_CONTOURS)
        for connection in connections:
            style[connection] = spec
    return style


def get_default_face_mesh_contours_style(i: int = 0) -> Mapping[Tuple[int, int], DrawingSpec]:
    """Each face mesh contour connection's drawing spec: style 0 (the default) white lips and oval, green left and
    red right eye and eyebrow; style 1 (i=1) also the nose, in other colors."""
    return _connection_style(_FACE_CONTOUR_STYLES[1 if i == 1 else 0])


def get_default_face_mesh_tesselation_style() -> DrawingSpec:
    """The face mesh tesselation's drawing spec: thin gray lines."""
    return DrawingSpec(color=_GRAY, thickness=_THICKNESS_TESSELATION)


def get_default_face_mesh_iris_connections_style() -> Mapping[Tuple[int, int], DrawingSpec]:
    """Each iris connection's drawing spec: the left iris green, the right red."""
    return _connection_style(((_face.FACEMESH_LEFT_IRIS, _GREEN), (_face.FACEMESH_RIGHT_IRIS, _RED)))
