"""Writes the wheels of the built-in models, the distributions pyblazekit depends on:

  pyblazekit-models-pose        pose_detection, pose_landmark_full, pose_landmark_lite
  pyblazekit-models-hands-face  palm_detection_*, hand_landmark_*, hand_recrop, face_detection_short_range,
                                face_landmark, face_landmark_with_attention

Each model goes in as the float16 variant of BlazeKit's model file (BLZKM16: each tensor float16 where every value
survives the round trip, else float32), which the runtime widens back to the same float32 bits at load. The files
land in blazekit/_lib/BlazeKit_BlazeModels.resources/bkm/, beside libblazekit.so from the pyblazekit wheel, where
the library looks for its built-in models; the wheels are tagged py3-none-any (data only) with Root-Is-Purelib false,
so pip puts them in platlib with the library even where purelib is another folder.

  python3 Python/model_wheels.py OUT_DIR     (BLAZEKIT_FLOAT32_MODELS=1: the .bkm files as they are, twice the bytes)

The version is pyblazekit's (Python/pyproject.toml), whose dependencies must name these distributions at it.
"""
import base64
import hashlib
import json
import os
import re
import struct
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
MODELS = os.path.join(REPO, "Models", "bkm")
TARGET = "blazekit/_lib/BlazeKit_BlazeModels.resources/bkm"

DISTRIBUTIONS = {
    "pyblazekit-models-pose": ("The pose networks of pyblazekit (BlazePose detector, full and lite landmark models)",
                               ["pose_detection", "pose_landmark_full", "pose_landmark_lite"]),
    "pyblazekit-models-hands-face": ("The hand and face networks of pyblazekit (palm detectors, hand landmark models, "
                                     "hand_recrop, face detector and face landmark models)",
                                     ["palm_detection_full", "palm_detection_lite", "hand_landmark_full",
                                      "hand_landmark_lite", "hand_recrop", "face_detection_short_range",
                                      "face_landmark", "face_landmark_with_attention"]),
}

# MARK: - The float16 variant of the model file (Sources/BlazeModelFormat/ModelFile.swift, MAINTENANCE.md)

FLOAT32_MAGIC = b"BLZKMDL\0"
FLOAT16_MAGIC = b"BLZKM16\0"


def fnv1a64_words(data):
    """ModelChecksum.fnv1a64Words: FNV-1a 64 over little-endian 64-bit words (a trailing partial word zero-padded)."""
    if len(data) % 8:
        data = bytes(data) + b"\0" * (8 - len(data) % 8)
    h, prime, mask = 0xcbf29ce484222325, 0x100000001b3, (1 << 64) - 1
    for (w,) in struct.iter_unpack("<Q", data):
        h = ((h ^ w) * prime) & mask
    return h


def float16_variant(data):
    """A float32 model file's bytes rewritten as the float16 variant, as ModelFileWriter's `.float16WhereExact`
    writes it: a tensor goes in as float16 when all its values convert to binary16 and back to the same float32
    bits, else as float32; the JSON keeps its key order, only the tensor table's dtype, offset and byteCount
    change. Checked here: every tensor widens back to the original bytes."""
    if data[:8] != FLOAT32_MAGIC:
        raise ValueError("not a float32 BlazeKit model file")
    header_length, data_offset, _ = struct.unpack_from("<QQQ", data, 16)
    header = json.loads(data[64:64 + header_length])
    payload = bytearray()
    originals = {}
    for t in header["tensors"]:
        count = t["byteCount"] // 4
        raw = data[data_offset + t["offset"]:data_offset + t["offset"] + 4 * count]
        originals[t["name"]] = raw
        values = struct.unpack(f"<{count}f", raw)
        try:
            half = struct.pack(f"<{count}e", *values)
            exact = struct.pack(f"<{count}f", *struct.unpack(f"<{count}e", half)) == raw
        except (OverflowError, struct.error):
            exact = False
        t["offset"] = len(payload)
        if exact:
            t["dtype"], t["byteCount"] = "float16", 2 * count
            payload += half
        else:
            payload += raw
        payload += b"\0" * (-len(payload) % 64)
    text = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    new_offset = 64 + len(text) + (-(64 + len(text)) % 64)
    out = bytearray(new_offset + len(payload))
    out[0:8] = FLOAT16_MAGIC
    out[8:16] = data[8:16]                                   # format and op-set versions
    struct.pack_into("<QQQ", out, 16, len(text), new_offset, len(payload))
    out[64:64 + len(text)] = text
    out[new_offset:] = payload
    struct.pack_into("<Q", out, 40, fnv1a64_words(memoryview(out)[64:]))
    # The widening the runtime does, checked: the same float32 bytes for every tensor.
    for t in header["tensors"]:
        start = new_offset + t["offset"]
        stored = out[start:start + t["byteCount"]]
        n = t["byteCount"] // (2 if t["dtype"] == "float16" else 4)
        widened = struct.pack(f"<{n}f", *struct.unpack(f"<{n}{'e' if t['dtype'] == 'float16' else 'f'}", stored))
        if widened != originals[t["name"]]:
            raise AssertionError(f"float16 variant of tensor {t['name']} does not widen to its float32 bytes")
    return bytes(out)


# MARK: - Wheels

def pyblazekit_version():
    """pyblazekit's version, checked against its dependencies on the model distributions."""
    text = open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8").read()
    version = re.search(r'^version = "([^"]+)"', text, re.M).group(1)
    for name in DISTRIBUTIONS:
        if f'"{name}=={version}"' not in text:
            raise SystemExit(f"Python/pyproject.toml: dependencies lack \"{name}=={version}\"")
    return version


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_wheel(out_dir, name, summary, models, version):
    """One model wheel, its files in a fixed order with a fixed date (the same bytes on every run)."""
    project = name.replace("-", "_")
    dist_info = f"{project}-{version}.dist-info"
    files = []
    for model in models:
        with open(os.path.join(MODELS, model + ".bkm"), "rb") as f:
            data = f.read()
        if os.environ.get("BLAZEKIT_FLOAT32_MODELS") != "1":
            data = float16_variant(data)
        files.append((f"{TARGET}/{model}.bkm", data))
    with open(os.path.join(REPO, "Models", "NOTICE"), "rb") as f:
        files.append((f"{dist_info}/licenses/NOTICE", f.read()))
    metadata = (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {summary}\n"
                "License: Apache-2.0\nRequires-Python: >=3.9\nLicense-File: NOTICE\n\n"
                f"{summary}. Data only: installed with pyblazekit (import name blazekit), which depends on it; "
                "see pyblazekit's README.\n").encode()
    files.append((f"{dist_info}/METADATA", metadata))
    files.append((f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: BlazeKit Python/model_wheels.py\n"
                                        b"Root-Is-Purelib: false\nTag: py3-none-any\n"))
    record = "\n".join([record_line(n, d) for n, d in files] + [f"{dist_info}/RECORD,,", ""]).encode()
    files.append((f"{dist_info}/RECORD", record))
    path = os.path.join(out_dir, f"{project}-{version}-py3-none-any.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for n, d in files:
            info = zipfile.ZipInfo(n, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, d, compresslevel=9)
    return path


def main(argv):
    if len(argv) != 2:
        raise SystemExit("usage: python3 Python/model_wheels.py OUT_DIR")
    out_dir = argv[1]
    os.makedirs(out_dir, exist_ok=True)
    version = pyblazekit_version()
    listed = sorted(m for _, models in DISTRIBUTIONS.values() for m in models)
    shipped = sorted(f[:-4] for f in os.listdir(MODELS) if f.endswith(".bkm"))
    if listed != shipped:
        raise SystemExit(f"Python/model_wheels.py: the distributions list {listed}, Models/bkm holds {shipped}")
    for name, (summary, models) in DISTRIBUTIONS.items():
        path = write_wheel(out_dir, name, summary, models, version)
        print(f"{os.path.basename(path)}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main(sys.argv)
