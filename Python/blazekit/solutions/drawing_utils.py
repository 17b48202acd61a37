"""Drawing landmarks on an image (MediaPipe's `mp.solutions.drawing_utils`). Draws with OpenCV, which must be
installed (`pip install opencv-python`), as MediaPipe's does."""
import dataclasses
import math
from collections.abc import Mapping
from typing import Optional, Tuple

import numpy as np

from ..framework.formats.landmark_pb2 import _List, _Point

PRESENCE_THRESHOLD = 0.5
VISIBILITY_THRESHOLD = 0.5

WHITE_COLOR = (224, 224, 224)
BLACK_COLOR = (0, 0, 0)
RED_COLOR = (0, 0, 255)
GREEN_COLOR = (0, 128, 0)
BLUE_COLOR = (255, 0, 0)


@dataclasses.dataclass
class DrawingSpec:
    """How to draw a landmark or a connection: BGR color, line thickness (-1 fills), circle radius."""
    color: Tuple[int, int, int] = WHITE_COLOR
    thickness: int = 2
    circle_radius: int = 2


def _cv2():
    try:
        import cv2
    except ImportError as e:  # pragma: no cover
        raise ImportError("blazekit drawing_utils draws with OpenCV: pip install opencv-python") from e
    return cv2


def _valid(v: float) -> bool:
    """MediaPipe's test of a normalized value, `(v > 0 or isclose(0, v)) and (v < 1 or isclose(1, v))`: isclose(0, v)
    holds only for v == 0 (its tolerance is relative), so the first half is v >= 0 (False for NaN)."""
    return v >= 0 and (v < 1 or math.isclose(1, v))


def _normalized_to_pixel_coordinates(x: float, y: float, width: int, height: int) -> Optional[Tuple[int, int]]:
    """Pixel coordinates of a point normalized to [0, 1], or None outside the image."""
    if not (_valid(x) and _valid(y)):
        return None
    return min(math.floor(x * width), width - 1), min(math.floor(y * height), height - 1)


def _pixel_points(landmarks, width: int, height: int) -> dict:
    """Index -> pixel coordinates of the landmarks drawn: not hidden, inside the image. Our own messages are read
    from their set fields directly (Google's loops draw about 500 landmarks a frame); others through `_hidden`."""
    points = {}
    floor = math.floor
    for idx, landmark in enumerate(landmarks):
        if isinstance(landmark, _Point):
            values = landmark._values
            visibility, presence = values.get("visibility"), values.get("presence")
            if ((visibility is not None and visibility < VISIBILITY_THRESHOLD)
                    or (presence is not None and presence < PRESENCE_THRESHOLD)):
                continue
            x, y = values.get("x", 0.0), values.get("y", 0.0)
        else:
            if _hidden(landmark):
                continue
            x, y = landmark.x, landmark.y
        if (0 <= x < 1 or _valid(x)) and (0 <= y < 1 or _valid(y)):
            px, py = floor(x * width), floor(y * height)   # min(…, size − 1), as MediaPipe clips x = 1
            points[idx] = (px if px < width else width - 1), (py if py < height else height - 1)
    return points


def _array_pixel_points(arrays, width: int, height: int) -> dict:
    """`_pixel_points` of a landmark list still held as arrays (`landmark_pb2._List._of_arrays`), computed on the
    arrays: the same float64 arithmetic, so the same points, without making a message per landmark."""
    xyz, visibility = arrays
    x, y = xyz[:, 0].astype(np.float64), xyz[:, 1].astype(np.float64)

    def valid(v):   # _valid: v >= 0 and (v < 1 or math.isclose(1, v)), which is False for infinities
        with np.errstate(invalid="ignore", over="ignore"):
            return (v >= 0) & ((v < 1) | (np.isfinite(v) & (np.abs(1 - v) <= 1e-9 * np.maximum(1.0, np.abs(v)))))
    keep = valid(x) & valid(y)
    if visibility is not None:
        values, is_set = visibility
        keep &= ~(is_set & (values < VISIBILITY_THRESHOLD))
    index = np.flatnonzero(keep)
    px = np.minimum(np.floor(x[index] * width), width - 1).astype(np.int64)
    py = np.minimum(np.floor(y[index] * height), height - 1).astype(np.int64)
    return dict(zip(index.tolist(), zip(px.tolist(), py.tolist())))


def _landmarks(landmark_list):
    """The landmarks of a NormalizedLandmarkList, or a task result's list of landmarks itself."""
    return list(landmark_list.landmark) if hasattr(landmark_list, "landmark") else list(landmark_list)


def _hidden(landmark) -> bool:
    """Below the visibility or presence threshold. Protobuf-style landmarks are judged by the fields they
    have; task-result landmarks by non-zero values (0.0 means unset, as MediaPipe's results give it)."""
    if hasattr(landmark, "HasField"):
        return ((landmark.HasField("visibility") and landmark.visibility < VISIBILITY_THRESHOLD)
                or (landmark.HasField("presence") and landmark.presence < PRESENCE_THRESHOLD))
    visibility, presence = getattr(landmark, "visibility", None), getattr(landmark, "presence", None)
    return bool((visibility and visibility < VISIBILITY_THRESHOLD) or (presence and presence < PRESENCE_THRESHOLD))


def _endpoints(connection):
    if hasattr(connection, "start"):
        return connection.start, connection.end
    return connection[0], connection[1]


def draw_landmarks(image: np.ndarray, landmark_list, connections=None,
                   landmark_drawing_spec=DrawingSpec(color=RED_COLOR),
                   connection_drawing_spec=DrawingSpec(), is_drawing_landmarks: bool = True):
    """Draws the landmarks and the connections between them on a 3-channel image, in place.

    `landmark_list`: a `landmark_pb2.NormalizedLandmarkList` or a result's list of landmarks.
    `connections`: pairs of landmark indices (tuples, or Connection objects with start/end).
    The drawing specs are one DrawingSpec or a mapping from landmark index / connection to one."""
    if not landmark_list:
        return
    if image.shape[2] != 3:
        raise ValueError("Input image must contain three channel bgr data.")
    cv2 = _cv2()
    rows, cols, _ = image.shape
    arrays = landmark_list._arrays if isinstance(landmark_list, _List) else None
    if arrays is not None:
        count, points = len(arrays[0]), _array_pixel_points(arrays, cols, rows)
    else:
        landmarks = _landmarks(landmark_list)
        count, points = len(landmarks), _pixel_points(landmarks, cols, rows)
    if connections:
        per_connection = isinstance(connection_drawing_spec, Mapping)
        line = cv2.line
        for connection in connections:
            start, end = _endpoints(connection)
            if not (0 <= start < count and 0 <= end < count):
                raise ValueError(f"Landmark index is out of range. Invalid connection from landmark #{start} "
                                 f"to landmark #{end}.")
            if start in points and end in points:
                spec = connection_drawing_spec
                if per_connection:
                    key = connection if isinstance(connection, tuple) else (start, end)
                    spec = spec.get(key) or DrawingSpec()
                line(image, points[start], points[end], spec.color, spec.thickness)
    if is_drawing_landmarks and landmark_drawing_spec:
        per_landmark = isinstance(landmark_drawing_spec, Mapping)
        for idx, px in points.items():
            spec = landmark_drawing_spec[idx] if per_landmark else landmark_drawing_spec
            border = max(spec.circle_radius + 1, int(spec.circle_radius * 1.2))
            cv2.circle(image, px, border, WHITE_COLOR, spec.thickness)
            cv2.circle(image, px, spec.circle_radius, spec.color, spec.thickness)


def _normalize_color(color):
    return tuple(v / 255. for v in color)


def plot_landmarks(landmark_list, connections=None,
                   landmark_drawing_spec: DrawingSpec = DrawingSpec(color=RED_COLOR, thickness=5),
                   connection_drawing_spec: DrawingSpec = DrawingSpec(color=BLACK_COLOR, thickness=5),
                   elevation: int = 10, azimuth: int = 10):
    """Plots landmarks (e.g. `pose_world_landmarks`) and their connections in a matplotlib 3-D figure, then
    `plt.show()`, as MediaPipe's does. Needs matplotlib (`pip install matplotlib`). Raises ValueError for a
    connection whose index is out of range."""
    if not landmark_list:
        return
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:  # pragma: no cover
        raise ImportError("blazekit plot_landmarks plots with matplotlib: pip install matplotlib") from e
    landmarks = _landmarks(landmark_list)
    plt.figure(figsize=(10, 10))
    ax = plt.axes(projection="3d")
    ax.view_init(elev=elevation, azim=azimuth)
    plotted = {}
    for idx, landmark in enumerate(landmarks):
        if _hidden(landmark):
            continue
        ax.scatter3D(xs=[-landmark.z], ys=[landmark.x], zs=[-landmark.y],
                     color=_normalize_color(landmark_drawing_spec.color[::-1]), linewidth=landmark_drawing_spec.thickness)
        plotted[idx] = (-landmark.z, landmark.x, -landmark.y)
    for connection in connections or ():
        start, end = _endpoints(connection)
        if not (0 <= start < len(landmarks) and 0 <= end < len(landmarks)):
            raise ValueError(f"Landmark index is out of range. Invalid connection from landmark #{start} to landmark #{end}.")
        if start in plotted and end in plotted:
            a, b = plotted[start], plotted[end]
            ax.plot3D(xs=[a[0], b[0]], ys=[a[1], b[1]], zs=[a[2], b[2]],
                      color=_normalize_color(connection_drawing_spec.color[::-1]), linewidth=connection_drawing_spec.thickness)
    plt.show()
