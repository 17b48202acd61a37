"""Small stand-ins for MediaPipe's classification protobuf messages (`Classification`, `ClassificationList`), as
`mp.solutions.hands` returns them in `multi_handedness`: keyword construction, field access, `HasField`,
`classification[i]`, iteration, `len`, and protobuf's text format when printed. No protobuf dependency."""
from ._message import Message, message_text


class Classification(Message):
    """One class: its index in the model's label map, its score and label."""
    __slots__ = ()
    _FIELDS = {"index": int, "score": float, "label": str, "display_name": str}
    _DEFAULTS = {"index": 0, "score": 0.0, "label": "", "display_name": ""}


class _RepeatedClassifications(list):
    def add(self, **fields):
        item = Classification(**fields)
        self.append(item)
        return item


class ClassificationList:
    """`classification`: the classes of one item (for a hand, its handedness)."""

    def __init__(self, classification=None):
        self.classification = _RepeatedClassifications(classification or [])

    def __len__(self):
        return len(self.classification)

    def __eq__(self, other):
        return type(self) is type(other) and self.classification == other.classification

    def __str__(self):
        return message_text([("classification", c._fields()) for c in self.classification])

    def __repr__(self):
        return f"ClassificationList(classification={self.classification!r})"
