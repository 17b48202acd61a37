"""Small stand-ins for MediaPipe's classification protobuf messages (`Classification`, `ClassificationList`), as
`mp.solutions.hands` returns them in `multi_handedness`: keyword construction, field access, `HasField`,
`classification[i]`, iteration, `len`, and protobuf's text format when printed. No protobuf dependency."""
from ._text_format import message_text

_FIELDS = {"index": int, "score": float, "label": str, "display_name": str}
_DEFAULTS = {"index": 0, "score": 0.0, "label": "", "display_name": ""}


class Classification:
    """One class: its index in the model's label map, its score and label."""
    __slots__ = ("_values",)

    def __init__(self, **fields):
        unknown = set(fields) - set(_FIELDS)
        if unknown:
            raise ValueError(f"Classification has no field {sorted(unknown)[0]!r}")
        object.__setattr__(self, "_values", {k: _FIELDS[k](v) for k, v in fields.items() if v is not None})

    def __getattr__(self, name):
        if name in _FIELDS:
            return self._values.get(name, _DEFAULTS[name])
        raise AttributeError(name)

    def __setattr__(self, name, value):
        if name not in _FIELDS:
            raise AttributeError(f"Classification has no field {name!r}")
        self._values[name] = _FIELDS[name](value)

    def HasField(self, name):  # noqa: N802 (protobuf's spelling)
        if name not in _FIELDS:
            raise ValueError(f"Classification has no field {name!r}")
        return name in self._values

    def __eq__(self, other):
        return type(self) is type(other) and self._values == other._values

    def _fields(self):
        return [(k, self._values[k]) for k in _FIELDS if k in self._values]

    def __str__(self):
        return message_text(self._fields())

    def __repr__(self):
        return f"Classification({', '.join(f'{k}={v!r}' for k, v in self._values.items())})"


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
