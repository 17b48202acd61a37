"""Category data class (MediaPipe's containers.category)."""
import dataclasses
from typing import Optional


@dataclasses.dataclass
class Category:
    """A classification category: index, score and labels."""
    index: Optional[int] = None
    score: Optional[float] = None
    display_name: Optional[str] = None
    category_name: Optional[str] = None
