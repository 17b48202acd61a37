"""Protobuf's text format and a flat message base, for the stand-in messages (printed as MediaPipe's protobuf messages print)."""
import struct


def _scalar(value):
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, float):
        # protobuf's SimpleFtoa: %.6g when that reads back as the same float32, else %.9g
        f32 = struct.unpack("f", struct.pack("f", value))[0]
        text = f"{f32:.6g}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == f32:
            return text
        return f"{f32:.9g}"
    return str(value)


def message_text(fields, indent=0):
    """`fields`: (name, value) pairs, a value being a scalar or, for a sub-message, an iterable of pairs."""
    pad = "  " * indent
    lines = []
    for name, value in fields:
        if isinstance(value, (int, float, str)):
            lines.append(f"{pad}{name}: {_scalar(value)}\n")
        else:
            lines.append(f"{pad}{name} {{\n{message_text(value, indent + 1)}{pad}}}\n")
    return "".join(lines)


class Message:
    """A flat protobuf message stand-in: `_FIELDS` maps each field, in field-number order, to its type and
    `_DEFAULTS` gives what an unset field reads as. Keyword construction, attribute access, `HasField`,
    `ClearField`, equality, and protobuf's text format when printed."""
    __slots__ = ("_values",)
    _FIELDS = {}
    _DEFAULTS = {}

    def __init__(self, **fields):
        types, values = self._FIELDS, {}
        for k, v in fields.items():
            convert = types.get(k)
            if convert is None:
                raise ValueError(f"{type(self).__name__} has no field {k!r}")
            if v is not None:
                values[k] = convert(v)
        object.__setattr__(self, "_values", values)

    @classmethod
    def _of(cls, values):
        """A message holding `values` (a dict of set fields, already of their fields' types) as it is: the
        converters' path, which makes thousands per frame."""
        message = object.__new__(cls)
        object.__setattr__(message, "_values", values)
        return message

    def __getattr__(self, name):
        if name in self._FIELDS:
            return self._values.get(name, self._DEFAULTS[name])
        raise AttributeError(name)

    def __setattr__(self, name, value):
        if name not in self._FIELDS:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        self._values[name] = self._FIELDS[name](value)

    def HasField(self, name):  # noqa: N802 (protobuf's spelling)
        if name not in self._FIELDS:
            raise ValueError(f"{type(self).__name__} has no field {name!r}")
        return name in self._values

    def ClearField(self, name):  # noqa: N802
        self._values.pop(name, None)

    def __eq__(self, other):
        return type(self) is type(other) and self._values == other._values

    def _fields(self):
        return [(k, self._values[k]) for k in self._FIELDS if k in self._values]

    def __str__(self):
        return message_text(self._fields())

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self._fields())})"
