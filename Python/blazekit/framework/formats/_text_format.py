"""Protobuf's text format, for printing the stand-in messages as MediaPipe's protobuf messages print."""
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
