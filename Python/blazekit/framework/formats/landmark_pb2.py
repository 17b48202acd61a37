"""Small stand-ins for MediaPipe's landmark protobuf messages (`NormalizedLandmarkList`, `NormalizedLandmark`,
`LandmarkList`, `Landmark`), enough for the samples: keyword construction, field access, `HasField`,
`landmark.extend/append/add`, iteration, `len`, and protobuf's text format when printed. No protobuf dependency."""
from ._text_format import message_text

_FIELDS = ("x", "y", "z", "visibility", "presence")


class _Point:
    __slots__ = ("_values",)

    def __init__(self, **fields):
        unknown = set(fields) - set(_FIELDS)
        if unknown:
            raise ValueError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        object.__setattr__(self, "_values", {k: float(v) for k, v in fields.items() if v is not None})

    def __getattr__(self, name):
        if name in _FIELDS:
            return self._values.get(name, 0.0)
        raise AttributeError(name)

    def __setattr__(self, name, value):
        if name not in _FIELDS:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        self._values[name] = float(value)

    def HasField(self, name):  # noqa: N802 (protobuf's spelling)
        if name not in _FIELDS:
            raise ValueError(f"{type(self).__name__} has no field {name!r}")
        return name in self._values

    def ClearField(self, name):  # noqa: N802
        self._values.pop(name, None)

    def __eq__(self, other):
        return type(self) is type(other) and self._values == other._values

    def _fields(self):
        return [(k, self._values[k]) for k in _FIELDS if k in self._values]

    def __str__(self):
        return message_text(self._fields())

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self._values.items())})"


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
