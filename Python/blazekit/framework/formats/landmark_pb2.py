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
        self._arrays = None
        self._landmark = _RepeatedLandmarks(self._item)
        if landmark:
            self._landmark.extend(landmark)

    @classmethod
    def _of_arrays(cls, xyz, visibility=None):
        """A list of `len(xyz)` landmarks held as arrays until `landmark` is first read: `xyz` float32 of shape
        (count, 3); `visibility` None (unset on every landmark) or a pair (float32 values, bool "is set") of
        shape (count,). The converters' path: a Holistic frame has over 500 landmarks, which loops such as
        Google's samples only draw (`drawing_utils` reads the arrays) or test for None."""
        made = cls.__new__(cls)
        made._arrays = (xyz, visibility)
        made._landmark = None
        return made

    @property
    def landmark(self):
        """The landmark messages (repeated field: iterate, index, `add`, `extend`, `append`)."""
        if self._landmark is None:
            xyz, visibility = self._arrays
            point = self._item._of
            made = _RepeatedLandmarks(self._item)
            if visibility is None:
                made.extend(point({"x": x, "y": y, "z": z}) for x, y, z in xyz.tolist())
            else:
                made.extend(point({"x": x, "y": y, "z": z, "visibility": v}) if is_set else point({"x": x, "y": y, "z": z})
                            for (x, y, z), v, is_set in zip(xyz.tolist(), visibility[0].tolist(), visibility[1].tolist()))
            self._landmark, self._arrays = made, None
        return self._landmark

    def __len__(self):  # a list with no landmarks is falsy, as an empty message is for draw_landmarks
        return len(self._arrays[0]) if self._landmark is None else len(self._landmark)

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
