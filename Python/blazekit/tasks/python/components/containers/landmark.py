"""Landmark data classes (MediaPipe's containers.landmark)."""
import dataclasses
from typing import Optional


@dataclasses.dataclass
class Landmark:
    """A landmark in world coordinates (metres)."""
    x: Optional[float] = None
    y: Optional[float] = None
    z: Optional[float] = None
    visibility: Optional[float] = None
    presence: Optional[float] = None


@dataclasses.dataclass
class NormalizedLandmark:
    """A landmark normalized to the image's width and height."""
    x: Optional[float] = None
    y: Optional[float] = None
    z: Optional[float] = None
    visibility: Optional[float] = None
    presence: Optional[float] = None
