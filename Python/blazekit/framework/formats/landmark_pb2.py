"""Small stand-ins for MediaPipe's landmark protobuf messages (`NormalizedLandmarkList`, `NormalizedLandmark`,
`LandmarkList`, `Landmark`), enough for the samples: keyword construction, field access, `HasField`,
`landmark.extend/append/add`, iteration, `len`, and protobuf's text format when printed. No protobuf dependency."""
from ._message import Message, message_text

_FIELDS = {name: float for name in ("x", "y", "z", "visibility", "presence")}


def _field(name):
    return property(lambda self: self._values.get(name, 0.0), doc=f"`{name}` (0.0 when unset).")


class _Point(Message):
    __slots__ = ()
    _FIELDS = _FIELDS
    _DEFAULTS = {name: 0.0 for name in _FIELDS}
    # Read through properties rather than Message.__getattr__ (drawing reads every landmark of every frame).
    x, y, z, visibility, presence = (_field(name) for name in ("x", "y", "z", "visibility", "presence"))


class NormalizedLandmark(_Point):
    """x, y normalized to the image, z, and optional visibility and presence."""


class Landmark(_Point):
    """x, y, z in world units, and optional visibility and presence."""


class _RepeatedLandmarks(list):
    def __init__(self, cls):
        super().__init__()
        self._cls = cls

    def add(self, **fields):
        item = self._cls(**fields)
        self.append(item)
        return item


class _List:
    _item = None

    def __init__(self, landmark=None):
        self.landmark = _RepeatedLandmarks(self._item)
        if landmark:
            self.landmark.extend(landmark)

    def __len__(self):  # a list with no landmarks is falsy, as an empty message is for draw_landmarks
        return len(self.landmark)

    def __eq__(self, other):
        return type(self) is type(other) and list(self.landmark) == list(other.landmark)

    def __repr__(self):
        return f"{type(self).__name__}(landmark={list(self.landmark)!r})"

    def __str__(self):
        return message_text([("landmark", p._fields()) for p in self.landmark])


class NormalizedLandmarkList(_List):
    _item = NormalizedLandmark


class LandmarkList(_List):
    _item = Landmark
