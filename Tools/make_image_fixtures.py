#!/usr/bin/env python3
"""Writes the BlazeImage test fixtures into Tests/BlazeImageTests/Fixtures.

Run by developers (not CI) with a venv that has mediapipe==0.10.14, numpy and opencv (cv2):
    /tmp/peer-venv/bin/python Tools/make_image_fixtures.py        (or .venv-peer/bin/python)

What it writes (all small; see manifest.json for the exact list):
* png/<kind>.png  PNGs of every colour type / bit depth / palette+tRNS / interlace / gAMA, written by the
  minimal encoder below, and png/<kind>.rgb: the RGB8 bytes MediaPipe's loader yields for the file
  (mp.Image.create_from_file, i.e. stb_image; gray replicated to RGB, alpha dropped, as the pipeline does).
* warp/source.rgb  a 64x48 RGB source; warp/perspective.bin  8-bit warpPerspective outputs;
  warp/mask.f32 a float mask; warp/affine.bin  float warpAffine(WARP_INVERSE_MAP) outputs.

Where the expected warp outputs come from. MediaPipe 0.10.14 statically links OpenCV 3.4.20, whose
INTER_LINEAR warps quantize source coordinates to 1/32 pixel and use fixed-point (8U) or tabulated (32F)
weights. The cv2 wheel next to mediapipe is OpenCV 5.x (>= 4.11 rewrote warpAffine/warpPerspective without
that quantization) and differs by up to several levels, so cv2.warp* is NOT used as the reference:
* "mediapipe" perspective cases are MediaPipe's own ImageToTensorCalculator output (a rotated-rect crop,
  float range [0, 255] so the tensor holds the 8-bit warp result exactly);
* "reference" perspective cases (general quadrilaterals, which ImageToTensorCalculator cannot express)
  come from `warp_perspective_ocv34` below, an operation-for-operation port of OpenCV 3.4's code; the
  script asserts that it reproduces every "mediapipe" case bit for bit before trusting it;
* float cases are MediaPipe's WarpAffineCalculator output (graph ImageToTensorCalculator MATRIX ->
  WarpAffineCalculator, BORDER_ZERO), checked against `warp_affine_inverse_ocv34`.
cv2 is used only for getPerspectiveTransform (unchanged since 3.4; verified against the port below).
"""
import json, math, os, struct, sys, zlib
import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "Tests", "BlazeImageTests", "Fixtures")
f32 = np.float32

# ----------------------------------------------------------------------------------------------------
# Minimal PNG encoder (any colour type / bit depth, palette, tRNS, gAMA, Adam7, all five filter types).

def _chunk(tag, data):
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

def _pack_row(samples, depth):
    """samples: 1-D int array of one row's samples."""
    if depth == 16:
        return b"".join(struct.pack(">H", int(v)) for v in samples)
    if depth == 8:
        return bytes(int(v) for v in samples)
    per = 8 // depth
    out = bytearray()
    for i in range(0, len(samples), per):
        byte = 0
        for j in range(per):
            v = int(samples[i + j]) if i + j < len(samples) else 0
            byte |= v << (8 - depth * (j + 1))
        out.append(byte)
    return bytes(out)

def _filter(raw_rows, bpp):
    out = bytearray()
    prev = bytes(len(raw_rows[0])) if raw_rows else b""
    for r, row in enumerate(raw_rows):
        ftype = r % 5
        f = bytearray()
        for i, x in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 0: p = 0
            elif ftype == 1: p = a
            elif ftype == 2: p = b
            elif ftype == 3: p = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            f.append((x - p) & 0xFF)
        out.append(ftype)
        out += f
        prev = row
    return bytes(out)

ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]

def write_png(path, samples, color_type, depth, palette=None, trns=None, gamma=None, interlace=False):
    """samples: (h, w, channels) int array of raw sample values (palette indices for colour type 3)."""
    h, w, ch = samples.shape
    bits_pp = depth * ch
    bpp = max(1, bits_pp // 8)
    def encode(img):
        rows = [_pack_row(img[y].reshape(-1), depth) for y in range(img.shape[0])]
        return _filter(rows, bpp) if rows and img.shape[1] else b""
    if interlace:
        data = b""
        for x0, y0, dx, dy in ADAM7:
            sub = samples[y0::dy, x0::dx]
            if sub.shape[0] and sub.shape[1]:
                data += encode(sub)
    else:
        data = encode(samples)
    png = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, 1 if interlace else 0))
    if gamma is not None:
        png += _chunk(b"gAMA", struct.pack(">I", int(round(gamma * 100000))))
    if palette is not None:
        png += _chunk(b"PLTE", bytes(np.asarray(palette, np.uint8).reshape(-1)))
    if trns is not None:
        png += _chunk(b"tRNS", trns)
    png += _chunk(b"IDAT", zlib.compress(data, 9)) + _chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)

def png_kinds(rng):
    """(name, samples, color_type, depth, kwargs)"""
    W, H = 13, 11
    kinds = []
    def rnd(depth, ch, w=W, h=H):
        return rng.integers(0, 1 << depth, (h, w, ch))
    kinds.append(("gray1", rnd(1, 1), 0, 1, {}))
    kinds.append(("gray2", rnd(2, 1), 0, 2, {}))
    kinds.append(("gray4", rnd(4, 1), 0, 4, {}))
    kinds.append(("gray8", rnd(8, 1), 0, 8, {}))
    kinds.append(("gray16", rnd(16, 1), 0, 16, {}))
    kinds.append(("gray8_trns", rnd(8, 1), 0, 8, {"trns": struct.pack(">H", 7)}))
    ga8 = rnd(8, 2); kinds.append(("grayalpha8", ga8, 4, 8, {}))
    ga16 = rnd(16, 2); ga16[..., 1] = 65535; kinds.append(("grayalpha16_opaque", ga16, 4, 16, {}))
    kinds.append(("rgb8", rnd(8, 3), 2, 8, {}))
    kinds.append(("rgb16", rnd(16, 3), 2, 16, {}))
    rgbk = rnd(8, 3); rgbk[2, 3] = [10, 20, 30]
    kinds.append(("rgb8_trns", rgbk, 2, 8, {"trns": struct.pack(">HHH", 10, 20, 30)}))
    kinds.append(("rgba8", rnd(8, 4), 6, 8, {}))
    rgba16 = rnd(16, 4); rgba16[..., 3] = 65535; kinds.append(("rgba16_opaque", rgba16, 6, 16, {}))
    pal = rng.integers(0, 256, (256, 3))
    kinds.append(("palette1", rnd(1, 1), 3, 1, {"palette": pal[:2]}))
    kinds.append(("palette4", rnd(4, 1), 3, 4, {"palette": pal[:16]}))
    kinds.append(("palette8", rnd(8, 1), 3, 8, {"palette": pal}))
    kinds.append(("palette8_trns", rnd(8, 1), 3, 8, {"palette": pal, "trns": bytes(rng.integers(0, 256, 200).tolist())}))
    kinds.append(("rgb8_interlaced", rnd(8, 3, 17, 15), 2, 8, {"interlace": True}))
    kinds.append(("rgba8_interlaced", rnd(8, 4, 17, 15), 6, 8, {"interlace": True}))
    kinds.append(("gray16_interlaced", rnd(16, 1, 17, 15), 0, 16, {"interlace": True}))
    kinds.append(("palette4_trns_interlaced", rnd(4, 1, 17, 15), 3, 4, {"palette": pal[:16], "trns": bytes(range(0, 160, 10)), "interlace": True}))
    kinds.append(("rgb8_gamma1", rnd(8, 3), 2, 8, {"gamma": 1.0}))
    kinds.append(("rgb16_gamma045", rnd(16, 3), 2, 16, {"gamma": 0.45455}))
    kinds.append(("rgb8_1x1", rnd(8, 3, 1, 1), 2, 8, {}))
    kinds.append(("rgb8_wide", rnd(8, 3, 300, 2), 2, 8, {}))
    return kinds

def mediapipe_rgb(path):
    import mediapipe as mp
    v = np.array(mp.Image.create_from_file(path).numpy_view())
    if v.dtype != np.uint8:
        raise SystemExit(f"{path}: mediapipe gave {v.dtype}; expected uint8")
    if v.ndim == 2:
        v = v[..., None]
    ch = v.shape[2]
    if ch == 1:
        v = np.repeat(v, 3, axis=2)          # pipeline: gray replicated
    elif ch == 2:
        v = np.repeat(v[..., :1], 3, axis=2)  # gray+alpha: gray replicated, alpha dropped
    elif ch == 4:
        v = v[..., :3]                       # RGBA: alpha dropped, colours unchanged
    return np.ascontiguousarray(v, np.uint8)

# ----------------------------------------------------------------------------------------------------
# OpenCV 3.4 ports (imgwarp.cpp / lapack.cpp / matrix_decomp.cpp).

def get_perspective_transform(src, dst):
    """cv::getPerspectiveTransform: a[i][6] = -src.x*dst.x formed in float; DECOMP_LU in double."""
    src = np.asarray(src, np.float32); dst = np.asarray(dst, np.float32)
    a = [[0.0] * 8 for _ in range(8)]; b = [0.0] * 8
    for i in range(4):
        sx, sy, dx, dy = src[i, 0], src[i, 1], dst[i, 0], dst[i, 1]
        a[i][0] = a[i + 4][3] = float(sx); a[i][1] = a[i + 4][4] = float(sy); a[i][2] = a[i + 4][5] = 1.0
        a[i][6] = float(-sx * dx); a[i][7] = float(-sy * dx)
        a[i + 4][6] = float(-sx * dy); a[i + 4][7] = float(-sy * dy)
        b[i] = float(dx); b[i + 4] = float(dy)
    m = len(a)
    for i in range(m):
        k = i
        for j in range(i + 1, m):                  # first strictly larger pivot, as OpenCV
            if abs(a[j][i]) > abs(a[k][i]): k = j
        if abs(a[k][i]) < 2.220446049250313e-14: return np.array([0.0] * 8 + [1.0]).reshape(3, 3)
        if k != i: a[i], a[k] = a[k], a[i]; b[i], b[k] = b[k], b[i]
        d = -1.0 / a[i][i]
        for j in range(i + 1, m):
            alpha = a[j][i] * d
            for kk in range(i + 1, m): a[j][kk] += alpha * a[i][kk]
            b[j] += alpha * b[i]
    for i in range(m - 1, -1, -1):
        s = b[i]
        for kk in range(i + 1, m): s -= a[i][kk] * b[kk]
        b[i] = s / a[i][i]
    return np.array(b + [1.0]).reshape(3, 3)

def invert3(M):
    S = [float(v) for v in np.asarray(M, np.float64).ravel()]
    g = lambda r, c: S[r * 3 + c]
    d = g(0, 0) * (g(1, 1) * g(2, 2) - g(1, 2) * g(2, 1)) - g(0, 1) * (g(1, 0) * g(2, 2) - g(1, 2) * g(2, 0)) \
        + g(0, 2) * (g(1, 0) * g(2, 1) - g(1, 1) * g(2, 0))
    if d == 0: return np.zeros((3, 3))
    d = 1.0 / d
    return np.array([(g(1, 1) * g(2, 2) - g(1, 2) * g(2, 1)) * d, (g(0, 2) * g(2, 1) - g(0, 1) * g(2, 2)) * d,
                     (g(0, 1) * g(1, 2) - g(0, 2) * g(1, 1)) * d, (g(1, 2) * g(2, 0) - g(1, 0) * g(2, 2)) * d,
                     (g(0, 0) * g(2, 2) - g(0, 2) * g(2, 0)) * d, (g(0, 2) * g(1, 0) - g(0, 0) * g(1, 2)) * d,
                     (g(1, 0) * g(2, 1) - g(1, 1) * g(2, 0)) * d, (g(0, 1) * g(2, 0) - g(0, 0) * g(2, 1)) * d,
                     (g(0, 0) * g(1, 1) - g(0, 1) * g(1, 0)) * d]).reshape(3, 3)

def _wtab_fixed():
    t = np.zeros((1024, 4), np.int64)
    for fy in range(32):
        for fx in range(32):
            t[fy * 32 + fx] = [(32 - fx) * (32 - fy) * 32, fx * (32 - fy) * 32, (32 - fx) * fy * 32, fx * fy * 32]
    t[0] = [32767, 0, 0, 1]   # saturate_cast<short>(32768) + OpenCV's sum fix-up
    return t

def _wtab_float():
    t = np.zeros((1024, 4), np.float32)
    for fy in range(32):
        for fx in range(32):
            y = f32(fy) * f32(1 / 32); x = f32(fx) * f32(1 / 32)
            t[fy * 32 + fx] = [(f32(1) - y) * (f32(1) - x), (f32(1) - y) * x, y * (f32(1) - x), y * x]
    return t

WT_FIXED, WT_FLOAT = _wtab_fixed(), _wtab_float()

def _clamp_round(v):
    if not (v < 2147483647.0): return 2147483647
    if v <= -2147483648.0: return -2147483648
    return int(np.rint(v))

def _cvround(v):
    if not (-2147483648.5 < v < 2147483647.5): return -2147483648
    r = int(np.rint(v)); return -2147483648 if r >= 2147483648 else r

def _i32(v):
    return ((v + 2**31) % 2**32) - 2**31

def warp_perspective_ocv34(src, M, w, h, border):
    """cv::warpPerspective(src, M, (w, h), INTER_LINEAR, BORDER_CONSTANT(0) | BORDER_REPLICATE), OpenCV 3.4."""
    Mi = invert3(M).ravel()
    H, W, cn = src.shape
    out = np.zeros((h, w, cn), np.uint8)
    bh0 = min(16, h); bw0 = min(1024 // bh0, w)
    s = src.astype(np.int64)
    def px(xx, yy):
        if border == "replicate":
            return s[min(max(yy, 0), H - 1), min(max(xx, 0), W - 1)]
        return s[yy, xx] if (0 <= xx < W and 0 <= yy < H) else np.zeros(cn, np.int64)
    for y in range(h):
        for xb in range(0, w, bw0):
            X0 = Mi[0] * xb + Mi[1] * y + Mi[2]; Y0 = Mi[3] * xb + Mi[4] * y + Mi[5]; W0 = Mi[6] * xb + Mi[7] * y + Mi[8]
            for x1 in range(min(bw0, w - xb)):
                Wv = W0 + Mi[6] * x1
                Wv = 32.0 / Wv if Wv != 0 else 0.0
                X = _clamp_round((X0 + Mi[0] * x1) * Wv); Y = _clamp_round((Y0 + Mi[3] * x1) * Wv)
                sx = max(-32768, min(32767, X >> 5)); sy = max(-32768, min(32767, Y >> 5))
                wt = WT_FIXED[(Y & 31) * 32 + (X & 31)]
                if border == "zero" and (sx >= W or sx + 1 < 0 or sy >= H or sy + 1 < 0):
                    continue
                v = px(sx, sy) * wt[0] + px(sx + 1, sy) * wt[1] + px(sx, sy + 1) * wt[2] + px(sx + 1, sy + 1) * wt[3]
                out[y, xb + x1] = np.clip((v + 16384) >> 15, 0, 255)
    return out

def warp_affine_inverse_ocv34(src, M, w, h):
    """cv::warpAffine(src, M, (w, h), INTER_LINEAR | WARP_INVERSE_MAP, BORDER_CONSTANT 0) on CV_32FC1, OpenCV 3.4."""
    H, W = src.shape; M = [float(v) for v in M]
    out = np.zeros((h, w), np.float32)
    ad = [_cvround(M[0] * x * 1024) for x in range(w)]; bd = [_cvround(M[3] * x * 1024) for x in range(w)]
    g = lambda xx, yy: src[yy, xx] if (0 <= xx < W and 0 <= yy < H) else f32(0)
    for y in range(h):
        X0 = _i32(_cvround((M[1] * y + M[2]) * 1024) + 16); Y0 = _i32(_cvround((M[4] * y + M[5]) * 1024) + 16)
        for x in range(w):
            X = _i32(X0 + ad[x]) >> 5; Y = _i32(Y0 + bd[x]) >> 5
            sx = max(-32768, min(32767, X >> 5)); sy = max(-32768, min(32767, Y >> 5))
            if sx >= W or sx + 1 < 0 or sy >= H or sy + 1 < 0: continue
            wt = WT_FLOAT[(Y & 31) * 32 + (X & 31)]
            out[y, x] = ((g(sx, sy) * wt[0] + g(sx + 1, sy) * wt[1]) + g(sx, sy + 1) * wt[2]) + g(sx + 1, sy + 1) * wt[3]
    return out

# ----------------------------------------------------------------------------------------------------
# MediaPipe emulation of the quantities its graphs compute in float, and the graphs themselves.

def box_points(cx, cy, w, h, angle_deg):
    """cv::RotatedRect::points (3.4), float fields."""
    cx, cy, w, h = f32(cx), f32(cy), f32(w), f32(h)
    _angle = float(f32(angle_deg)) * math.pi / 180.0
    b = f32(f32(math.cos(_angle)) * f32(0.5)); a = f32(f32(math.sin(_angle)) * f32(0.5))
    p0 = (cx - a * h - b * w, cy + b * h - a * w)
    p1 = (cx + a * h - b * w, cy - b * h - a * w)
    return np.array([p0, p1, (f32(2) * cx - p0[0], f32(2) * cy - p0[1]), (f32(2) * cx - p1[0], f32(2) * cy - p1[1])], np.float32)

def mp_crop_quad(rect, W, H):
    """GetRoi + ImageToTensorOpenCvConverter: NormalizedRect (float fields) -> boxPoints corners."""
    ncx, ncy, nw, nh, rot = [f32(v) for v in rect]
    cx, cy, w, h = ncx * f32(W), ncy * f32(H), nw * f32(W), nh * f32(H)
    return box_points(cx, cy, w, h, f32(float(rot * f32(180.0)) / math.pi))

def mp_mask_matrix(rect, W, H, mask_w, mask_h):
    """The float 2x3 dst->src matrix WarpAffineCalculator hands cv::warpAffine when fed the crop MATRIX
    (GetRotatedSubRectToRectTransformMatrix) of `rect` and OUTPUT_SIZE = W x H."""
    ncx, ncy, nw, nh, rot = [f32(v) for v in rect]
    a, b, e, f = nw * f32(W), nh * f32(H), ncx * f32(W), ncy * f32(H)
    c, d = f32(math.cos(float(rot))), f32(math.sin(float(rot)))
    g, h, flip = f32(1) / f32(W), f32(1) / f32(H), f32(1)
    M = np.zeros((4, 4), np.float32)
    M[0] = [a * c * flip * g, -b * d * g, 0, (f32(-0.5) * a * c * flip + f32(0.5) * b * d + e) * g]
    M[1] = [a * d * flip * h, b * c * h, 0, (f32(-0.5) * b * c - f32(0.5) * a * d * flip + f) * h]
    M[2] = [0, 0, a * g, 0]; M[3] = [0, 0, 0, 1]
    def mul(A, B):
        R = np.zeros((4, 4), np.float32)
        for i in range(4):
            for j in range(4):
                s = f32(0)
                for k in range(4): s = f32(s + A[i, k] * B[k, j])
                R[i, j] = s
        return R
    nd = np.diag(np.array([f32(1) / f32(W), f32(1) / f32(H), 1, 1], np.float32))
    ss = np.diag(np.array([mask_w, mask_h, 1, 1], np.float32))
    T = mul(mul(ss, M), nd)
    return np.array([T[0, 0], T[0, 1], T[0, 3], T[1, 0], T[1, 1], T[1, 3]], np.float32)

def _run_graph(cfg, inputs, out_stream, getter):
    import mediapipe as mp
    g = mp.CalculatorGraph(graph_config=cfg)
    out = []
    g.observe_output_stream(out_stream, lambda s, p: out.append(getter(p)))
    g.start_run()
    for name, packet in inputs:
        g.add_packet_to_input_stream(name, packet.at(0))
    g.close()
    return out[0]

def mp_crop(src, rect, tw, th, border):
    import mediapipe as mp
    from mediapipe.framework.formats import rect_pb2
    from mediapipe.python import packet_creator, packet_getter
    cfg = f"""
input_stream: "image" input_stream: "rect" output_stream: "floats"
node {{ calculator: "ImageToTensorCalculator" input_stream: "IMAGE:image" input_stream: "NORM_RECT:rect"
  output_stream: "TENSORS:tensors"
  options {{ [mediapipe.ImageToTensorCalculatorOptions.ext] {{ output_tensor_width: {tw} output_tensor_height: {th}
    keep_aspect_ratio: false output_tensor_float_range {{ min: 0.0 max: 255.0 }}
    border_mode: {"BORDER_ZERO" if border == "zero" else "BORDER_REPLICATE"} }} }} }}
node {{ calculator: "TensorsToFloatsCalculator" input_stream: "TENSORS:tensors" output_stream: "FLOATS:floats" }}
"""
    r = rect_pb2.NormalizedRect(x_center=rect[0], y_center=rect[1], width=rect[2], height=rect[3], rotation=rect[4])
    img = mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(src))
    v = np.array(_run_graph(cfg, [("image", packet_creator.create_image(img)), ("rect", packet_creator.create_proto(r))],
                            "floats", packet_getter.get_float_list), np.float32).reshape(th, tw, 3)
    assert np.all(v == np.round(v)) and v.min() >= 0 and v.max() <= 255
    return v.astype(np.uint8)

def mp_mask_warp(mask, W, H, rect):
    import mediapipe as mp
    from mediapipe.framework.formats import rect_pb2
    from mediapipe.python import packet_creator, packet_getter
    cfg = """
input_stream: "image" input_stream: "rect" input_stream: "mask" output_stream: "out"
node { calculator: "ImageToTensorCalculator" input_stream: "IMAGE:image" input_stream: "NORM_RECT:rect"
  output_stream: "TENSORS:tensors" output_stream: "MATRIX:matrix"
  options { [mediapipe.ImageToTensorCalculatorOptions.ext] { output_tensor_width: 8 output_tensor_height: 8
    keep_aspect_ratio: false output_tensor_float_range { min: 0.0 max: 1.0 } } } }
node { calculator: "ImagePropertiesCalculator" input_stream: "IMAGE:image" output_stream: "SIZE:size" }
node { calculator: "WarpAffineCalculator" input_stream: "IMAGE:mask" input_stream: "MATRIX:matrix"
  input_stream: "OUTPUT_SIZE:size" output_stream: "IMAGE:out"
  options { [mediapipe.WarpAffineCalculatorOptions.ext] { border_mode: BORDER_ZERO } } }
"""
    r = rect_pb2.NormalizedRect(x_center=rect[0], y_center=rect[1], width=rect[2], height=rect[3], rotation=rect[4])
    img = mp.Image(image_format=mp.ImageFormat.SRGB, data=np.zeros((H, W, 3), np.uint8))
    m = mp.Image(image_format=mp.ImageFormat.VEC32F1, data=np.ascontiguousarray(mask, np.float32))
    v = _run_graph(cfg, [("image", packet_creator.create_image(img)), ("rect", packet_creator.create_proto(r)),
                         ("mask", packet_creator.create_image(m))], "out",
                   lambda p: np.array(packet_getter.get_image(p).numpy_view(), copy=True))
    return v.reshape(H, W).astype(np.float32)

# ----------------------------------------------------------------------------------------------------

def main():
    import cv2, mediapipe as mp
    print(f"mediapipe {mp.__version__}, cv2 {cv2.__version__}, numpy {np.__version__}")
    if mp.__version__ != "0.10.14":
        sys.exit("need mediapipe==0.10.14 (the reference implementation)")
    rng = np.random.default_rng(20240607)
    os.makedirs(os.path.join(OUT, "png"), exist_ok=True)
    os.makedirs(os.path.join(OUT, "warp"), exist_ok=True)
    manifest = {"png": [], "perspective": [], "affine": [], "transforms": []}

    # PNG kinds.
    for name, samples, ctype, depth, kw in png_kinds(rng):
        path = os.path.join(OUT, "png", name + ".png")
        write_png(path, np.asarray(samples), ctype, depth, **kw)
        if ctype == 4 or (ctype == 0 and "trns" in kw):
            # stb_image yields 2 channels (gray + alpha; tRNS adds alpha) and MediaPipe refuses those
            # ("Expected image with 1, 3 or 4 channels, found 2"); BlazeImage decodes them the stb way:
            # gray (16-bit >> 8, 8-bit as is) replicated, alpha dropped.
            assert depth in (8, 16)
            try:
                mediapipe_rgb(path)
                sys.exit(f"{name}: mediapipe now accepts 2-channel images; take the expected bytes from it")
            except RuntimeError:
                pass
            g = np.asarray(samples)[..., 0] >> (8 if depth == 16 else 0)
            rgb = np.repeat(g[..., None], 3, axis=2).astype(np.uint8)
        else:
            rgb = mediapipe_rgb(path)
        rgb.tofile(os.path.join(OUT, "png", name + ".rgb"))
        manifest["png"].append({"name": name, "width": int(rgb.shape[1]), "height": int(rgb.shape[0])})

    # Source image: noise plus a gradient (so both sharp and smooth areas are sampled).
    H, W = 48, 64
    yy, xx = np.mgrid[0:H, 0:W]
    src = rng.integers(0, 256, (H, W, 3)).astype(np.int64)
    src[: H // 2] = np.stack([xx * 4, yy * 5, (xx + yy) * 2], -1)[: H // 2] % 256
    src = src.astype(np.uint8)
    src.tofile(os.path.join(OUT, "warp", "source.rgb"))

    blobs, offset = [], 0
    def add_output(arr):
        nonlocal offset
        b = np.ascontiguousarray(arr).tobytes(); blobs.append(b); offset += len(b)
        return offset - len(b)

    # MediaPipe crops (rotated rects): inside, partly and fully outside, up/down-scaling, wide tensors.
    rects = [(0.5, 0.5, 1.0, 1.0, 0.0, 64, 48), (0.5, 0.5, 1.0, 1.0, 0.0, 32, 32), (0.5, 0.5, 1.0, 1.0, 0.0, 100, 80),
             (0.5, 0.5, 1.0, 1.333, -math.pi / 2, 40, 40), (0.5, 0.5, 1.0, 1.0, math.pi, 30, 20),
             (0.25, 0.3, 0.2, 0.25, 0.3, 70, 36), (0.9, 0.1, 0.6, 0.7, 2.5, 24, 24), (-0.2, 1.1, 0.5, 0.5, -1.0, 16, 16),
             (3.0, 3.0, 0.2, 0.2, 0.0, 8, 8), (0.5, 0.5, 3.0, 3.0, 0.7, 20, 30)]
    for _ in range(10):
        rects.append((rng.uniform(-0.2, 1.2), rng.uniform(-0.2, 1.2), rng.uniform(0.05, 1.6), rng.uniform(0.05, 1.6),
                      rng.uniform(-4, 4), int(rng.integers(4, 72)), int(rng.integers(4, 40))))
    for rect in rects:
        tw, th = rect[5], rect[6]
        quad = mp_crop_quad(rect[:5], W, H)
        dstq = np.array([[0, th], [0, 0], [tw, 0], [tw, th]], np.float32)
        M = get_perspective_transform(quad, dstq)
        assert np.array_equal(M, cv2.getPerspectiveTransform(quad, dstq)), "getPerspectiveTransform port differs from cv2"
        for border in ("zero", "replicate"):
            expected = mp_crop(src, rect[:5], tw, th, border)
            port = warp_perspective_ocv34(src, M, tw, th, border)
            n = int((port != expected).sum())
            if n:
                sys.exit(f"OpenCV-3.4 port differs from MediaPipe on {rect} {border}: {n} values")
            manifest["perspective"].append({"origin": "mediapipe", "rect": [float(v) for v in rect[:5]],
                                            "sourceQuad": quad.ravel().tolist(), "destinationQuad": dstq.ravel().tolist(),
                                            "matrix": M.ravel().tolist(), "width": tw, "height": th, "border": border,
                                            "offset": add_output(expected)})
    # General quadrilaterals (true perspective), from the port.
    for i in range(8):
        tw, th = int(rng.integers(8, 90)), int(rng.integers(8, 40))
        base = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float64)
        quad = (base * rng.uniform(0.3, 1.4) + rng.normal(0, 12, (4, 2)) + rng.uniform(-20, 20, 2)).astype(np.float32)
        dstq = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32) + rng.normal(0, 2, (4, 2)).astype(np.float32)
        M = get_perspective_transform(quad, dstq)
        assert np.array_equal(M, cv2.getPerspectiveTransform(quad, dstq))
        for border in ("zero", "replicate"):
            out = warp_perspective_ocv34(src, M, tw, th, border)
            manifest["perspective"].append({"origin": "reference", "sourceQuad": quad.ravel().tolist(),
                                            "destinationQuad": dstq.ravel().tolist(), "matrix": M.ravel().tolist(),
                                            "width": tw, "height": th, "border": border, "offset": add_output(out)})
    with open(os.path.join(OUT, "warp", "perspective.bin"), "wb") as f:
        f.write(b"".join(blobs))

    # getPerspectiveTransform / invert on more quads (matrix only).
    for i in range(12):
        s = rng.normal(0, 100, (4, 2)).astype(np.float32); d = rng.normal(0, 100, (4, 2)).astype(np.float32)
        M = cv2.getPerspectiveTransform(s, d)
        inv = cv2.invert(M, flags=cv2.DECOMP_LU)[1]
        assert np.array_equal(M, get_perspective_transform(s, d)) and np.array_equal(inv, invert3(M))
        manifest["transforms"].append({"sourceQuad": s.ravel().tolist(), "destinationQuad": d.ravel().tolist(),
                                       "matrix": M.ravel().tolist(), "inverse": inv.ravel().tolist()})

    # Float mask warps (MediaPipe WarpAffineCalculator).
    mh, mw = 24, 32
    my, mx = np.mgrid[0:mh, 0:mw]
    mask = (rng.random((mh, mw)) * 0.5 + 0.5 * np.sin(mx / 5.0) * np.cos(my / 4.0)).astype(np.float32)
    mask.tofile(os.path.join(OUT, "warp", "mask.f32"))
    blobs, offset = [], 0
    cases = [((0.5, 0.5, 1.0, 1.0, 0.0), 64, 48), ((0.4, 0.6, 0.5, 0.6, 0.4), 40, 50), ((0.5, 0.5, 1.0, 1.0, math.pi / 2), 30, 30),
             ((0.8, 0.2, 0.3, 0.4, -2.0), 57, 33), ((0.5, 0.5, 2.0, 2.0, 1.0), 20, 20), ((0.5, 0.5, 0.1, 0.1, 0.2), 90, 60)]
    for _ in range(10):
        cases.append(((rng.uniform(-0.2, 1.2), rng.uniform(-0.2, 1.2), rng.uniform(0.1, 1.5), rng.uniform(0.1, 1.5),
                       rng.uniform(-4, 4)), int(rng.integers(8, 80)), int(rng.integers(8, 60))))
    for rect, ow, oh in cases:
        expected = mp_mask_warp(mask, ow, oh, rect)
        Mf = mp_mask_matrix(rect, ow, oh, mw, mh)
        port = warp_affine_inverse_ocv34(mask, Mf.astype(np.float64), ow, oh)
        if not np.array_equal(port, expected):
            sys.exit(f"float warp port differs from MediaPipe on {rect}: max {np.abs(port - expected).max()}")
        manifest["affine"].append({"rect": [float(v) for v in rect], "inverseMatrix": [float(v) for v in Mf],
                                   "width": ow, "height": oh, "offset": add_output(expected.astype("<f4"))})
    with open(os.path.join(OUT, "warp", "affine.bin"), "wb") as f:
        f.write(b"".join(blobs))

    manifest["source"] = {"width": W, "height": H}
    manifest["mask"] = {"width": mw, "height": mh}
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    total = sum(os.path.getsize(os.path.join(dp, fn)) for dp, _, fns in os.walk(OUT) for fn in fns)
    print(f"wrote {len(manifest['png'])} PNG kinds, {len(manifest['perspective'])} perspective, "
          f"{len(manifest['affine'])} float warps, {len(manifest['transforms'])} transforms; fixtures {total} bytes")

if __name__ == "__main__":
    main()
