#!/usr/bin/env python3
"""Writes the seed corpora of the model fuzz targets (Tools/fuzzing/fuzz.sh bkm|tflite|task):

  Tools/fuzzing/corpus/tflite/  tiny TFLite FlatBuffers covering every operator the converter lowers, the
                             DEQUANTIZE/DENSIFY folding, PAD fusion, out-of-line buffers and unsupported ops;
  Tools/fuzzing/corpus/task/    zip bundles (stored, deflated, ZIP64, nested paths) holding those models;
  Tools/fuzzing/corpus/bkm/     tiny .bkm models covering every runtime op and its planner variants.

Pure Python, no dependencies; the output is byte-for-byte reproducible. The FlatBuffer layout follows
Tests/BlazeConverterTests/FlatBufferTestBuilder.swift and TinyModels.swift; the .bkm layout follows
Sources/BlazeModelFormat/ModelFile.swift (64-byte header, sorted-key JSON, 64-byte aligned float32 data,
FNV-1a-64 checksum over the 64-bit words of bytes 64..<end).

Usage: python3 Tools/fuzzing/make_model_corpus.py   (from anywhere; replaces the three folders' contents
but the regression-* inputs fuzzing found, which stay)
"""
import io
import json
import os
import struct
import zipfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")

# ----------------------------------------------------------------------------------------------
# FlatBuffers (a port of FlatBufferTestBuilder: front-to-back layout, every uoffset points forward)


class Table:
    def __init__(self, fields=()):
        self.fields = list(fields)  # [(index, (kind, value))]


def u8(v): return ("u8", v)
def i8(v): return ("i8", v)
def u16(v): return ("u16", v)
def i32(v): return ("i32", v)
def u32(v): return ("u32", v)
def u64(v): return ("u64", v)
def table(t): return ("table", t)
def string(s): return ("string", s)
def raw(b): return ("bytes", bytes(b))
def ints(v): return ("ints", list(v))
def u16s(v): return ("u16s", list(v))
def tables(v): return ("tables", list(v))


_SCALAR = {"u8": "<B", "i8": "<b", "u16": "<H", "i32": "<i", "u32": "<I", "u64": "<Q"}


class FlatBufferBuilder:
    def __init__(self):
        self.b = bytearray()

    def align(self, n):
        while len(self.b) % n:
            self.b.append(0)

    def patch32(self, at, v):
        self.b[at:at + 4] = struct.pack("<I", v)

    def write(self, t):
        max_field = max((i for i, _ in t.fields), default=-1)
        offsets = [0] * (max_field + 1)
        size = 4
        for i, (kind, _) in t.fields:
            n = struct.calcsize(_SCALAR[kind]) if kind in _SCALAR else 4
            size = (size + n - 1) // n * n
            offsets[i] = size
            size += n
        self.align(4)
        vtable = len(self.b)
        self.b += struct.pack("<HH", 4 + 2 * (max_field + 1), size)
        for o in offsets:
            self.b += struct.pack("<H", o)
        self.align(8)
        pos = len(self.b)
        self.b += bytes(size)
        self.b[pos:pos + 4] = struct.pack("<i", pos - vtable)
        refs = []
        for i, (kind, v) in t.fields:
            p = pos + offsets[i]
            if kind in _SCALAR:
                fmt = _SCALAR[kind]
                self.b[p:p + struct.calcsize(fmt)] = struct.pack(fmt, v)
            else:
                refs.append((p, (kind, v)))
        for p, value in refs:
            target = self.write_object(value)
            self.patch32(p, target - p)
        return pos

    def write_object(self, value):
        kind, v = value
        if kind == "table":
            return self.write(v)
        if kind == "string":
            self.align(4)
            p = len(self.b)
            data = v.encode()
            self.b += struct.pack("<I", len(data)) + data + b"\0"
            return p
        if kind == "bytes":
            self.align(16)
            p = len(self.b)
            self.b += struct.pack("<I", len(v)) + v
            return p
        if kind in ("ints", "u16s"):
            self.align(4)
            p = len(self.b)
            self.b += struct.pack("<I", len(v))
            for x in v:
                self.b += struct.pack("<i" if kind == "ints" else "<H", x)
            return p
        if kind == "tables":
            self.align(4)
            p = len(self.b)
            self.b += struct.pack("<I", len(v))
            slots = len(self.b)
            self.b += bytes(4 * len(v))
            for k, t in enumerate(v):
                target = self.write(t)
                self.patch32(slots + 4 * k, target - (slots + 4 * k))
            return p
        raise ValueError(kind)


def flatbuffer(root, identifier=b"TFL3"):
    fb = FlatBufferBuilder()
    fb.b = bytearray(4) + identifier
    pos = fb.write(root)
    fb.patch32(0, pos)
    return bytes(fb.b)


# ----------------------------------------------------------------------------------------------
# TFLite models (a port of TinyTFLite)

FLOAT32, FLOAT16, INT32 = 0, 1, 2
ADD, CONCATENATION, CONV_2D, DEPTHWISE_CONV_2D, DEPTH_TO_SPACE, DEQUANTIZE = 0, 2, 3, 4, 5, 6
FULLY_CONNECTED, LOGISTIC, MAX_POOL_2D, RESHAPE, RESIZE_BILINEAR, CUSTOM, PAD, MEAN = 9, 14, 17, 22, 23, 32, 34, 40
SQUEEZE, PRELU, DENSIFY, GELU = 43, 54, 124, 150
SAME, VALID = 0, 1


def f32(values): return struct.pack("<%df" % len(values), *values)
def i32s(values): return struct.pack("<%di" % len(values), *values)
def u16b(values): return struct.pack("<%dH" % len(values), *values)


def half(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


class TFLite:
    def __init__(self, description="tiny fuzz seed", version=3):
        self.tensors, self.ops, self.inputs, self.outputs = [], [], [], []
        self.description, self.version = description, version
        self.metadata = []           # names of Model.metadata entries (each gets its own buffer)
        self.out_of_line = False     # buffers as Buffer.offset/size into the file instead of inline data

    def tensor(self, name, shape, type=FLOAT32, data=None, sparsity=None):
        self.tensors.append((name, list(shape), type, data, sparsity))
        return len(self.tensors) - 1

    def op(self, code, inputs, outputs, options_type=0, options=None, custom=None):
        self.ops.append((code, list(inputs), list(outputs), options_type, options, custom))

    def build(self):
        codes = []
        for op in self.ops:
            key = (op[0], op[5])
            if key not in codes:
                codes.append(key)
        buffers = [b""]
        tensor_tables = []
        for name, shape, type, data, sparsity in self.tensors:
            fields = [(0, ints(shape)), (1, i8(type)), (3, string(name))]
            if data is not None:
                fields.append((2, u32(len(buffers))))
                buffers.append(bytes(data))
            if sparsity is not None:
                fields.append((6, table(sparsity)))
            tensor_tables.append(Table(fields))
        op_tables = []
        for code, inputs, outputs, options_type, options, custom in self.ops:
            fields = [(0, u32(codes.index((code, custom)))), (1, ints(inputs)), (2, ints(outputs))]
            if options is not None:
                fields += [(3, u8(options_type)), (4, table(options))]
            op_tables.append(Table(fields))
        code_tables = []
        for code, custom in codes:
            fields = [(0, i8(code)), (2, i32(1))] if code < 127 else [(0, i8(127)), (2, i32(1)), (3, i32(code))]
            if custom is not None:
                fields.append((1, string(custom)))
            code_tables.append(Table(fields))
        metadata_buffers = []
        for name in self.metadata:
            metadata_buffers.append(Table([(0, string(name)), (1, u32(len(buffers)))]))
            buffers.append(b"1.5.0\0")
        subgraph = Table([(0, tables(tensor_tables)), (1, ints(self.inputs)), (2, ints(self.outputs)),
                          (3, tables(op_tables)), (4, string("main"))])

        def model(buffer_tables):
            fields = [(0, u32(self.version)), (1, tables(code_tables)), (2, tables([subgraph])),
                      (3, string(self.description)), (4, tables(buffer_tables))]
            if metadata_buffers:
                fields.append((6, tables(metadata_buffers)))
            return Table(fields)

        if not self.out_of_line:
            return flatbuffer(model([Table([(0, raw(b))]) if b else Table() for b in buffers]))
        # Buffers placed after the FlatBuffer, referred to by (offset, size): lay out once with
        # placeholders of the final width, then again with the real offsets (the layout is the same).
        def layout(offsets):
            return flatbuffer(model([Table([(1, u64(o)), (2, u64(len(b)))]) if b else Table()
                                     for b, o in zip(buffers, offsets)]))
        base = layout([0] * len(buffers))
        offsets, end = [], (len(base) + 15) // 16 * 16
        for b in buffers:
            offsets.append(end if b else 0)
            end = (end + len(b) + 15) // 16 * 16 if b else end
        out = bytearray(layout(offsets))
        assert len(out) == len(base)
        for b, o in zip(buffers, offsets):
            if b:
                out += bytes(o - len(out)) + b
        return bytes(out)


def conv_options(padding, stride, activation=0, dilation=1):
    return Table([(0, i8(padding)), (1, i32(stride)), (2, i32(stride)), (3, i8(activation)),
                  (4, i32(dilation)), (5, i32(dilation))])


def depthwise_options(padding, stride, multiplier=1, activation=0):
    return Table([(0, i8(padding)), (1, i32(stride)), (2, i32(stride)), (3, i32(multiplier)), (4, i8(activation))])


def pool_options(padding, stride, filter, activation=0):
    return Table([(0, i8(padding)), (1, i32(stride)), (2, i32(stride)), (3, i32(filter)), (4, i32(filter)),
                  (5, i8(activation))])


def tiny_model():
    """TinyModels.swift's tinyModel(): PAD → CONV_2D (fp16 behind DEQUANTIZE, VALID) → DEPTHWISE_CONV_2D
    (SAME, stride 2, sparse fp16 behind DENSIFY + DEQUANTIZE) → ADD → LOGISTIC."""
    m = TFLite("tiny test model")
    x = m.tensor("input", [1, 6, 6, 3])
    paddings = m.tensor("paddings", [4, 2], INT32, i32s([0, 0, 1, 1, 1, 1, 0, 0]))
    padded = m.tensor("padded", [1, 8, 8, 3])
    m.op(PAD, [x, paddings], [padded])
    w16 = m.tensor("conv/w16", [4, 3, 3, 3], FLOAT16, u16b([half(i % 7 - 3) for i in range(108)]))
    w = m.tensor("conv/w", [4, 3, 3, 3])
    m.op(DEQUANTIZE, [w16], [w])
    b = m.tensor("conv/b", [4], data=f32([0.5, -0.5, 1, 0]))
    y = m.tensor("conv", [1, 6, 6, 4])
    m.op(CONV_2D, [padded, w, b], [y], 1, conv_options(VALID, 1, activation=3))
    segments, indices, stored = [0], [], []
    for cell in range(9):
        for c in range(4):
            if (cell + c) % 2 == 0:
                indices.append(c)
                stored.append(half(cell * 4 + c + 1))
        segments.append(len(indices))
    sparsity = Table([(0, ints([0, 1, 2, 3])), (2, tables([
        Table([(0, i8(0)), (1, i32(1))]), Table([(0, i8(0)), (1, i32(3))]), Table([(0, i8(0)), (1, i32(3))]),
        Table([(0, i8(1)), (2, u8(1)), (3, table(Table([(0, ints(segments))]))),
               (4, u8(2)), (5, table(Table([(0, u16s(indices))])))]),
    ]))])
    dw_sparse = m.tensor("dw/sparse", [1, 3, 3, 4], FLOAT16, u16b(stored), sparsity)
    dw16 = m.tensor("dw/w16", [1, 3, 3, 4], FLOAT16)
    m.op(DENSIFY, [dw_sparse], [dw16])
    dw_w = m.tensor("dw/w", [1, 3, 3, 4])
    m.op(DEQUANTIZE, [dw16], [dw_w])
    dw_b = m.tensor("dw/b", [4], data=f32([0, 0, 0, 0]))
    z = m.tensor("dw", [1, 3, 3, 4])
    m.op(DEPTHWISE_CONV_2D, [y, dw_w, dw_b], [z], 2, depthwise_options(SAME, 2))
    s = m.tensor("sum", [1, 3, 3, 4])
    m.op(ADD, [z, z], [s], 11, Table([(0, i8(1))]))
    out = m.tensor("output", [1, 3, 3, 4])
    m.op(LOGISTIC, [s], [out])
    m.inputs, m.outputs = [x], [out]
    return m


def heads_model():
    """The other operators: CONV_2D 1×1 → MAX_POOL_2D → PRELU → RESIZE_BILINEAR → DEPTH_TO_SPACE →
    RESHAPE → FULLY_CONNECTED, and MEAN + CONCATENATION on a second branch; two outputs."""
    m = TFLite("heads")
    x = m.tensor("image", [1, 8, 8, 3])
    w = m.tensor("c1/w", [8, 1, 1, 3], data=f32([((i * 7) % 11 - 5) / 8 for i in range(24)]))
    b = m.tensor("c1/b", [8], data=f32([0.1 * i for i in range(8)]))
    c1 = m.tensor("c1", [1, 8, 8, 8])
    m.op(CONV_2D, [x, w, b], [c1], 1, conv_options(SAME, 1, activation=1))
    p = m.tensor("pool", [1, 4, 4, 8])
    m.op(MAX_POOL_2D, [c1], [p], 5, pool_options(SAME, 2, 2))
    alpha = m.tensor("alpha", [1, 1, 8], data=f32([0.25] * 8))
    pr = m.tensor("prelu", [1, 4, 4, 8])
    m.op(PRELU, [p, alpha], [pr])
    size = m.tensor("size", [2], INT32, i32s([8, 8]))
    rs = m.tensor("resize", [1, 8, 8, 8])
    m.op(RESIZE_BILINEAR, [pr, size], [rs], 15, Table([(3, u8(1))]))
    d2s = m.tensor("d2s", [1, 16, 16, 2])
    m.op(DEPTH_TO_SPACE, [rs], [d2s], 94, Table([(0, i32(2))]))
    flat = m.tensor("flat", [1, 512])
    shape = m.tensor("shape", [2], INT32, i32s([1, 512]))
    m.op(RESHAPE, [d2s, shape], [flat], 17, Table([(0, ints([1, 512]))]))
    fw = m.tensor("fc/w", [3, 512], data=f32([((i * 5) % 13 - 6) / 64 for i in range(3 * 512)]))
    fb = m.tensor("fc/b", [3], data=f32([1, 2, 3]))
    fc = m.tensor("fc", [1, 3])
    m.op(FULLY_CONNECTED, [flat, fw, fb], [fc], 8, Table([(0, i8(3))]))
    axes = m.tensor("axes", [2], INT32, i32s([1, 2]))
    mean = m.tensor("mean", [1, 8])
    m.op(MEAN, [pr, axes], [mean], 27, Table([(0, u8(0))]))
    cat = m.tensor("concat", [1, 11])
    m.op(CONCATENATION, [fc, mean], [cat], 10, Table([(0, i32(-1)), (1, i8(0))]))
    m.inputs, m.outputs = [x], [cat, d2s]
    return m


def dilated_model():
    """A dilated 3×3 CONV_2D (8 outputs, so not the direct kernel), a depthwise conv with 3-D-style
    [1,KH,KW,C] weights and no bias, FULLY_CONNECTED over a rank-4 input with no bias; out-of-line
    buffers (Buffer.offset/size) and a metadata entry."""
    m = TFLite("dilated", version=3)
    m.out_of_line = True
    m.metadata = ["min_runtime_version"]
    x = m.tensor("x", [1, 9, 9, 3])
    w = m.tensor("w", [8, 3, 3, 3], data=f32([((i * 3) % 17 - 8) / 16 for i in range(216)]))
    b = m.tensor("b", [8], data=f32([0] * 8))
    c = m.tensor("c", [1, 5, 5, 8])
    m.op(CONV_2D, [x, w, b], [c], 1, conv_options(VALID, 1, activation=2, dilation=2))
    dw = m.tensor("dw/w", [1, 3, 3, 8], data=f32([1 / 9] * 72))
    d = m.tensor("d", [1, 5, 5, 8])
    m.op(DEPTHWISE_CONV_2D, [c, dw, -1], [d], 2, depthwise_options(SAME, 1, activation=3))
    fw = m.tensor("fc/w", [4, 8], data=f32([0.5] * 32))
    fc = m.tensor("fc", [1, 5, 5, 4])
    m.op(FULLY_CONNECTED, [d, fw], [fc], 8, Table([(0, i8(0)), (2, u8(1))]))
    m.inputs, m.outputs = [x], [fc]
    return m


def unsupported_model():
    """Operators the converter reports as unsupported (SQUEEZE, GELU > 127, a CUSTOM op)."""
    m = TFLite("unsupported")
    x = m.tensor("x", [1, 4, 4, 3])
    sq = m.tensor("squeezed", [4, 4, 3])
    m.op(SQUEEZE, [x], [sq])
    g = m.tensor("gelu", [4, 4, 3])
    m.op(GELU, [sq], [g])
    c = m.tensor("custom", [4, 4, 3])
    m.op(CUSTOM, [g], [c], custom="Landmarks2TransformMatrix")
    m.inputs, m.outputs = [x], [c]
    return m


def pad_model():
    """PAD → MAX_POOL_2D (VALID) and PAD → PAD chains, a bare ADD of an activation and a constant."""
    m = TFLite("pads")
    x = m.tensor("x", [1, 5, 5, 3])
    pads = m.tensor("pads", [4, 2], INT32, i32s([0, 0, 1, 2, 2, 1, 0, 0]))
    px = m.tensor("px", [1, 8, 8, 3])
    m.op(PAD, [x, pads], [px])
    mp = m.tensor("mp", [1, 3, 3, 3])
    m.op(MAX_POOL_2D, [px], [mp], 5, pool_options(VALID, 3, 2, activation=2))
    k = m.tensor("k", [1, 3, 3, 3], data=f32([0.5] * 27))
    s = m.tensor("s", [1, 3, 3, 3])
    m.op(ADD, [mp, k], [s], 11, Table([(0, i8(0))]))
    m.inputs, m.outputs = [x], [s]
    return m


TFLITE_SEEDS = {
    "tiny.tflite": tiny_model,
    "heads.tflite": heads_model,
    "dilated_offsets.tflite": dilated_model,
    "unsupported.tflite": unsupported_model,
    "pads.tflite": pad_model,
}

# ----------------------------------------------------------------------------------------------
# .task bundles (zip archives, as MediaPipe ships them)


def zip_bundle(entries, compression=zipfile.ZIP_STORED, zip64=False):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = compression
            info.external_attr = 0o644 << 16
            info.create_system = 3
            with z.open(info, "w", force_zip64=zip64) as f:
                f.write(data)
    return buf.getvalue()


def task_seeds(models):
    tiny, heads, pads = models["tiny.tflite"], models["heads.tflite"], models["pads.tflite"]
    return {
        # hand_landmarker.task's layout: two models with known names (their input range is implied).
        "hand_landmarker_stored.task": zip_bundle([("hand_detector.tflite", tiny), ("metadata.json", b"{}"),
                                                   ("hand_landmarks_detector.tflite", heads)]),
        "pose_landmarker_deflated.task": zip_bundle([("pose_detector.tflite", tiny),
                                                     ("pose_landmarks_detector.tflite", pads)], zipfile.ZIP_DEFLATED),
        "nested_zip64.task": zip_bundle([("models/", b""), ("models/palm_detection_lite.tflite", tiny)],
                                        zipfile.ZIP_STORED, zip64=True),
        "unknown_name_deflated.task": zip_bundle([("README.txt", b"fuzz seed\n"), ("Custom.TFLITE", pads)],
                                                 zipfile.ZIP_DEFLATED),
        "no_models.task": zip_bundle([("metadata.json", b'{"name": "none"}')]),
    }

# ----------------------------------------------------------------------------------------------
# .bkm models


def fnv1a64_words(data):
    h, prime, mask = 0xcbf29ce484222325, 0x100000001b3, (1 << 64) - 1
    n = len(data) // 8 * 8
    for (w,) in struct.iter_unpack("<Q", data[:n]):
        h = ((h ^ w) * prime) & mask
    if len(data) > n:
        w = int.from_bytes(data[n:], "little")
        h = ((h ^ w) * prime) & mask
    return h


def bkm(values, nodes, inputs, outputs, constants, name="seed", input_range=(0, 1)):
    """values: [(name, shape, constant index or None)]; nodes: [(op, name, inputs, outputs, attributes)];
    constants: [(name, shape, floats)]."""
    records, data, offset = [], bytearray(), 0
    for cname, shape, floats in constants:
        count = 1
        for d in shape:
            count *= d
        assert count == len(floats), cname
        records.append({"byteCount": 4 * count, "dtype": "float32", "name": cname, "offset": offset, "shape": shape})
        data += f32(floats)
        data += bytes((-len(data)) % 64)
        offset = len(data)
    def value(v):
        d = {"name": v[0], "shape": v[1]}
        if v[2] is not None:
            d["constant"] = v[2]
        return d
    graph = {"values": [value(v) for v in values], "inputs": inputs, "outputs": outputs,
             "nodes": [{"op": op, "name": n, "inputs": i, "outputs": o, "attributes": a} for op, n, i, o, a in nodes]}
    first = values[inputs[0]]
    metadata = {"name": name, "sourceFile": name + ".tflite", "sourceSHA256": "ab" * 32, "converterVersion": "fuzz",
                "input": {"name": first[0], "shape": first[1], "colorOrder": "rgb", "valueRange": list(input_range)},
                "outputs": [{"name": values[o][0], "shape": values[o][1]} for o in outputs],
                "properties": {"fuzz.seed": name}}
    header = json.dumps({"metadata": metadata, "graph": graph, "tensors": records},
                        sort_keys=True, separators=(",", ":")).encode()
    data_offset = (64 + len(header) + 63) // 64 * 64
    out = bytearray(data_offset) + data
    out[0:8] = b"BLZKMDL\0"
    out[8:48] = struct.pack("<IIQQQQ", 1, 1, len(header), data_offset, len(data), 0)
    out[64:64 + len(header)] = header
    out[40:48] = struct.pack("<Q", fnv1a64_words(bytes(out[64:])))
    return bytes(out)


def I(v): return {"i": v}
def IS(v): return {"ints": list(v)}
def S(v): return {"s": v}


def ramp(n, scale=0.125):
    return [((i * 7) % 13 - 6) * scale for i in range(n)]


def window(strides=(1, 1), pads=(0, 0, 0, 0), activation="none", dilations=None):
    a = {"strides": IS(strides), "pads": IS(pads), "activation": S(activation)}
    if dilations is not None:
        a["dilations"] = IS(dilations)
    return a


def bkm_conv():
    """conv2d 1×1 (GEMM / packed 1×1), 3×3 with 2 outputs (direct), 3×3 with 8 outputs (im2col / packed),
    strided and dilated."""
    values = [("x", [1, 6, 6, 3], None),
              ("w1", [8, 1, 1, 3], 0), ("b1", [8], 1), ("y1", [1, 6, 6, 8], None),
              ("w2", [2, 3, 3, 8], 2), ("b2", [2], 3), ("y2", [1, 6, 6, 2], None),
              ("w3", [8, 3, 3, 8], 4), ("b3", [8], 5), ("y3", [1, 2, 2, 8], None)]
    nodes = [("conv2d", "pointwise", [0, 1, 2], [3], window(activation="relu6", dilations=(1, 1))),
             ("conv2d", "few_outputs", [3, 4, 5], [6], window(pads=(1, 1, 1, 1), activation="relu")),
             ("conv2d", "strided_dilated", [3, 7, 8], [9], window(strides=(2, 2), pads=(0, 0, 1, 1),
                                                                   dilations=(2, 2), activation="relu_n1_to_1"))]
    constants = [("w1", [8, 1, 1, 3], ramp(24)), ("b1", [8], ramp(8)), ("w2", [2, 3, 3, 8], ramp(144)),
                 ("b2", [2], [0.5, -0.5]), ("w3", [8, 3, 3, 8], ramp(576, 0.01)), ("b3", [8], [0] * 8)]
    return bkm(values, nodes, [0], [6, 9], constants, "conv")


def bkm_depthwise():
    """depthwise_conv2d with [KH,KW,C] and [1,KH,KW,C] weights, stride 2, SAME-style pads; add; prelu;
    logistic."""
    values = [("x", [1, 8, 8, 3], None),
              ("dw1", [3, 3, 3], 0), ("db1", [3], 1), ("d1", [1, 8, 8, 3], None),
              ("dw2", [1, 3, 3, 3], 2), ("db2", [3], 3), ("d2", [1, 4, 4, 3], None),
              ("d2b", [1, 4, 4, 3], None), ("sum", [1, 4, 4, 3], None),
              ("alpha", [3], 4), ("pr", [1, 4, 4, 3], None), ("sig", [1, 4, 4, 3], None)]
    nodes = [("depthwise_conv2d", "dw_same", [0, 1, 2], [3], window(pads=(1, 1, 1, 1), activation="relu")),
             ("depthwise_conv2d", "dw_stride2", [3, 4, 5], [6], window(strides=(2, 2), pads=(0, 0, 1, 1))),
             ("depthwise_conv2d", "dw_again", [3, 4, 5], [7], window(strides=(2, 2), pads=(1, 1, 0, 0))),
             ("add", "sum", [6, 7], [8], {"activation": S("relu6")}),
             ("prelu", "prelu", [8, 9], [10], {}),
             ("logistic", "sigmoid", [10], [11], {})]
    constants = [("dw1", [3, 3, 3], ramp(27)), ("db1", [3], [0, 1, 2]), ("dw2", [1, 3, 3, 3], ramp(27, 0.25)),
                 ("db2", [3], [0, 0, 0]), ("alpha", [3], [0.1, 0.2, 0.3])]
    return bkm(values, nodes, [0], [11], constants, "depthwise", (-1, 1))


def bkm_layout():
    """pad (rank 4 and 2), max_pool2d, resize_bilinear (align corners / half pixel), depth_to_space,
    reshape, concatenation, mean, fully_connected, an add of a constant; three outputs, one unused
    value and a node feeding no output."""
    values = [("x", [1, 4, 4, 4], None),                    # 0
              ("padded", [1, 6, 6, 4], None),               # 1
              ("pool", [1, 3, 3, 4], None),                 # 2
              ("up", [1, 6, 6, 4], None),                   # 3
              ("up2", [1, 5, 7, 4], None),                  # 4
              ("d2s", [1, 12, 12, 1], None),                # 5
              ("flat", [1, 144], None),                     # 6
              ("fw", [5, 144], 0), ("fb", [5], 1),          # 7, 8
              ("fc", [1, 5], None),                         # 9
              ("mean", [1, 4], None),                       # 10
              ("cat", [1, 9], None),                        # 11
              ("rows", [3, 3], None),                       # 12
              ("rows_padded", [4, 5], None),                # 13
              ("k", [1, 3, 3, 4], 2), ("pk", [1, 3, 3, 4], None),  # 14, 15
              ("unused", [9], None)]                        # 16
    nodes = [("pad", "pad", [0], [1], {"pads": IS([0, 0, 1, 1, 1, 1, 0, 0])}),
             ("max_pool2d", "pool", [1], [2], {"filter": IS([2, 2]), "strides": IS([2, 2]), "pads": IS([0, 0, 0, 0]),
                                               "activation": S("relu")}),
             ("resize_bilinear", "up", [2], [3], {"size": IS([6, 6]), "align_corners": I(1), "half_pixel_centers": I(0)}),
             ("resize_bilinear", "up2", [2], [4], {"size": IS([5, 7]), "half_pixel_centers": I(1)}),
             ("depth_to_space", "d2s", [3], [5], {"block_size": I(2)}),
             ("reshape", "flat", [5], [6], {}),
             ("fully_connected", "fc", [6, 7, 8], [9], {"activation": S("relu")}),
             ("mean", "mean", [4], [10], {"axes": IS([1, 2])}),
             ("concatenation", "cat", [9, 10], [11], {"axis": I(1), "activation": S("none")}),
             ("reshape", "rows", [11], [12], {}),
             ("pad", "rows_padded", [12], [13], {"pads": IS([0, 1, 1, 1])}),
             ("add", "plus_k", [2, 14], [15], {}),
             ("reshape", "dead", [12], [16], {"unused": {"floats": [1.5, -2]}, "note": {"f": 0.5}})]
    constants = [("fw", [5, 144], ramp(720, 0.01)), ("fb", [5], [1, 2, 3, 4, 5]), ("k", [1, 3, 3, 4], ramp(36))]
    return bkm(values, nodes, [0], [13, 15, 11], constants, "layout")


def bkm_minimal():
    """The smallest model: one logistic node."""
    return bkm([("x", [1, 1, 1, 3], None), ("y", [1, 1, 1, 3], None)],
               [("logistic", "y", [0], [1], {})], [0], [1], [], "minimal")


def bkm_fc_rank3():
    """fully_connected on several rows, a mean over the channels, concatenation along axis 0."""
    values = [("x", [1, 2, 2, 6], None), ("w", [3, 6], 0), ("b", [3], 1), ("fc", [4, 3], None),
              ("m", [1, 2, 2], None), ("m4", [4, 1], None), ("cat", [4, 4], None)]
    nodes = [("fully_connected", "fc", [0, 1, 2], [3], {"activation": S("relu_n1_to_1")}),
             ("mean", "m", [0], [4], {"axes": IS([3])}),
             ("reshape", "m4", [4], [5], {}),
             ("concatenation", "cat", [3, 5], [6], {"axis": I(1)})]
    return bkm(values, nodes, [0], [6], [("w", [3, 6], ramp(18)), ("b", [3], [0, 0, 1])], "fc")


BKM_SEEDS = {
    "conv.bkm": bkm_conv,
    "depthwise.bkm": bkm_depthwise,
    "layout.bkm": bkm_layout,
    "minimal.bkm": bkm_minimal,
    "fc.bkm": bkm_fc_rank3,
}

# ----------------------------------------------------------------------------------------------


def write(folder, files):
    path = os.path.join(ROOT, folder)
    os.makedirs(path, exist_ok=True)
    for old in os.listdir(path):
        if not old.startswith("regression-"):   # inputs a campaign found; FuzzRegressionTests reads them
            os.remove(os.path.join(path, old))
    for name, data in sorted(files.items()):
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)
    total = sum(len(d) for d in files.values())
    print("%-7s %2d files, %6d bytes (largest %d)" % (folder, len(files), total, max(len(d) for d in files.values())))


def main():
    models = {name: make().build() for name, make in TFLITE_SEEDS.items()}
    write("tflite", models)
    write("task", task_seeds(models))
    write("bkm", {name: make() for name, make in BKM_SEEDS.items()})


if __name__ == "__main__":
    main()
