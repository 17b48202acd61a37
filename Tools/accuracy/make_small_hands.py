#!/usr/bin/env python3
"""Measures the hand accurate mode on small hands: found-rate and landmark error, default vs --accurate.

Makes 1920x1080 frames from the hand photos of ../shared/testdata/images (freihand_*, onehand10k_*,
panoptic_*), each photo scaled so that its first MediaPipe reference hand (hands_full of
../shared/testdata/reference/<photo>.json) measures SIZE px (the longer side of the box around its 21
landmarks, as HandAccurateMode.smallestHandSize counts) and pasted at a few places on a flat grey or a
blurred background. The frames go to a scratch directory (never committed), then through
`blaze hand` in each mode; a frame's hand counts as found when a returned hand's landmarks lie on
average within half the hand size of the reference moved into the frame, and its error is that mean
distance divided by the hand size ("err"); "labels" is the same against the photo's human labels
(../shared/testdata/groundtruth.json, visible keypoints only).

    python3 Tools/accuracy/make_small_hands.py --blaze .build/release/blaze --sizes 40,60,90,120 \
        --mode default --mode=--accurate --mode="--accurate --accurate-off refine"

Needs numpy only (PNG read and written with zlib).
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np

W, H = 1920, 1080


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and interlace == 0 and color in (0, 2, 6), (path, depth, color, interlace)
            channels = {0: 1, 2: 3, 6: 4}[color]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8)
    stride = width * channels
    rows = raw.reshape(height, stride + 1)
    out = np.zeros((height, stride), dtype=np.int32)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        kind, line = rows[y, 0], rows[y, 1:].astype(np.int32)
        if kind == 0:
            cur = line
        elif kind == 2:
            cur = (line + prev) & 255
        else:
            cur = np.zeros(stride, dtype=np.int32)
            for x in range(stride):
                a = cur[x - channels] if x >= channels else 0
                b = prev[x]
                c = prev[x - channels] if x >= channels else 0
                if kind == 1:
                    p = a
                elif kind == 3:
                    p = (a + b) // 2
                else:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[x] = (line[x] + p) & 255
        out[y] = cur
        prev = cur
    img = out.reshape(height, width, channels).astype(np.uint8)
    if channels == 1:
        img = np.repeat(img, 3, axis=2)
    return img[:, :, :3]


def write_png(path, img, level=1):
    h, w, _ = img.shape
    raw = b"".join(b"\x00" + img[y].tobytes() for y in range(h))
    chunk = lambda kind, body: struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, level)) + chunk(b"IEND", b""))


def resize(img, scale):
    """Area average when shrinking, bilinear when enlarging."""
    h, w, _ = img.shape
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    f = img.astype(np.float32)
    if scale < 1:
        # Integral image, then the mean of each output pixel's footprint.
        ii = np.zeros((h + 1, w + 1, 3), dtype=np.float64)
        ii[1:, 1:] = f.cumsum(0).cumsum(1)
        ys = np.linspace(0, h, nh + 1)
        xs = np.linspace(0, w, nw + 1)
        y0, y1 = np.floor(ys[:-1]).astype(int), np.maximum(np.ceil(ys[1:]).astype(int), np.floor(ys[:-1]).astype(int) + 1)
        x0, x1 = np.floor(xs[:-1]).astype(int), np.maximum(np.ceil(xs[1:]).astype(int), np.floor(xs[:-1]).astype(int) + 1)
        s = ii[y1][:, x1] - ii[y0][:, x1] - ii[y1][:, x0] + ii[y0][:, x0]
        area = ((y1 - y0)[:, None] * (x1 - x0)[None, :])[:, :, None]
        return np.clip(s / area + 0.5, 0, 255).astype(np.uint8)
    ys = np.clip((np.arange(nh) + 0.5) / scale - 0.5, 0, h - 1)
    xs = np.clip((np.arange(nw) + 0.5) / scale - 0.5, 0, w - 1)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    fy, fx = (ys - y0)[:, None, None], (xs - x0)[None, :, None]
    top = f[y0][:, x0] * (1 - fx) + f[y0][:, x1] * fx
    bottom = f[y1][:, x0] * (1 - fx) + f[y1][:, x1] * fx
    return np.clip(top * (1 - fy) + bottom * fy + 0.5, 0, 255).astype(np.uint8)


def blurred_background(photo):
    """A photo stretched over the frame and box-blurred (radius 24, three passes): colour, no detail."""
    small = resize(photo, 64 / max(photo.shape[:2]))
    big = resize(small, max(W / small.shape[1], H / small.shape[0]) + 0.01)[:H, :W].astype(np.float32)
    for _ in range(3):
        for axis in (0, 1):
            c = np.cumsum(np.pad(big, [(25, 24) if a == axis else (0, 0) for a in range(3)], mode="edge"), axis=axis)
            n = big.shape[axis]
            big = (np.take(c, range(49, 49 + n), axis=axis) - np.take(c, range(0, n), axis=axis)) / 49
    return np.clip(big + 0.5, 0, 255).astype(np.uint8)


def hand_size(landmarks, w, h):
    xs = [l[0] * w for l in landmarks]
    ys = [l[1] * h for l in landmarks]
    return max(max(xs) - min(xs), max(ys) - min(ys))


def make_frames(shared, out, sizes, positions):
    images = os.path.join(shared, "testdata", "images")
    references = os.path.join(shared, "testdata", "reference")
    names = sorted(n for n in os.listdir(images) if n.startswith(("freihand_", "onehand10k_", "panoptic_")))
    backgrounds = [None] + [blurred_background(read_png(os.path.join(images, n)))
                            for n in sorted(os.listdir(images)) if n.startswith("coco_")][:2]
    labels = json.load(open(os.path.join(shared, "testdata", "groundtruth.json")))
    truth = {}
    for name in names:
        ref = json.load(open(os.path.join(references, name.replace(".png", ".json"))))
        hands = ref.get("hands_full") or []
        if not hands:
            continue
        photo = read_png(os.path.join(images, name))
        ph, pw, _ = photo.shape
        landmarks = hands[0]["landmarks"]
        original = hand_size(landmarks, pw, ph)
        for size in sizes:
            scale = size / original
            scaled = resize(photo, scale)
            sh, sw, _ = scaled.shape
            if sw > W or sh > H:
                continue
            for k in range(positions):
                # Places spread over the frame, different for each size and photo.
                seed = (zlib.crc32(name.encode()) + 7919 * size + 104729 * k) & 0xFFFFFFFF
                rng = np.random.default_rng(seed)
                x0, y0 = int(rng.integers(0, W - sw + 1)), int(rng.integers(0, H - sh + 1))
                background = backgrounds[k % len(backgrounds)]
                frame = np.full((H, W, 3), 128, dtype=np.uint8) if background is None else background.copy()
                frame[y0:y0 + sh, x0:x0 + sw] = scaled
                stem = f"{name[:-4]}_s{size}_p{k}"
                write_png(os.path.join(out, stem + ".png"), frame)
                fx, fy = sw / pw, sh / ph
                # The human labels (pixels of the photo; invisible ones [0, 0, 0]) of the photo's only labelled
                # hand, if it has one.
                hand_labels = [h["keypoints"] for h in labels.get(name[:-4], []) if h.get("format") == "hand21"]
                truth[stem + ".png"] = {
                    "size": size,
                    "landmarks": [[(l[0] * pw * fx + x0) / W, (l[1] * ph * fy + y0) / H] for l in landmarks],
                    "labels": [[(k[0] * fx + x0) / W, (k[1] * fy + y0) / H] if k[2] > 0 else None for k in hand_labels[0]]
                    if len(hand_labels) == 1 else None}
    json.dump(truth, open(os.path.join(out, "truth.json"), "w"))
    return truth


def score(lines, truth):
    """Per size: frames, found, summed mean error / size against MediaPipe's reference, and against the human
    labels: frames with labels found, summed mean error / size."""
    per = {}
    for line in lines:
        r = json.loads(line)
        t = truth.get(r.get("image"))
        if t is None:
            continue
        size = t["size"]
        best, match = None, None
        for hand in r.get("hands", []):
            d = np.mean([np.hypot((a[0] - b[0]) * W, (a[1] - b[1]) * H) for a, b in zip(hand["landmarks"], t["landmarks"])])
            if best is None or d < best:
                best, match = d, hand
        e = per.setdefault(size, [0, 0, 0.0, 0, 0.0])
        e[0] += 1
        if best is not None and best < 0.5 * size:
            e[1] += 1
            e[2] += best / size
            if t.get("labels"):
                pairs = [(a, b) for a, b in zip(match["landmarks"], t["labels"]) if b is not None]
                e[3] += 1
                e[4] += np.mean([np.hypot((a[0] - b[0]) * W, (a[1] - b[1]) * H) for a, b in pairs]) / size
    return per


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser()
    parser.add_argument("--blaze", default=os.path.join(here, "..", "..", ".build", "release", "blaze"))
    parser.add_argument("--shared", default=os.path.join(here, "..", "..", "..", "shared"))
    parser.add_argument("--sizes", default="40,60,90,120")
    parser.add_argument("--positions", type=int, default=3, help="frames per photo and size (grey, then blurred photos)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--mode", action="append", help="blaze hand flags of one mode; 'default' for none")
    parser.add_argument("--keep", help="write the frames here and keep them (not under the repository)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    out = args.keep or tempfile.mkdtemp(prefix="small_hands_")
    os.makedirs(out, exist_ok=True)
    truth = make_frames(args.shared, out, sizes, args.positions)
    frames = sorted(os.path.join(out, n) for n in truth)
    print(f"{len(frames)} frames in {out}", file=sys.stderr)
    for mode in args.mode or ["default", "--accurate"]:
        flags = [] if mode == "default" else mode.split()
        t0 = time.time()
        run = subprocess.run([args.blaze, "hand", "--quiet", "--num-hands", "2", "--threads", str(args.threads)] + flags + frames,
                             capture_output=True, text=True)
        elapsed = time.time() - t0
        if run.returncode != 0:
            print(run.stderr, file=sys.stderr)
        per = score(run.stdout.splitlines(), truth)
        cells = []
        for size in sizes:
            n, found, err, labelled, label_err = per.get(size, [0, 0, 0.0, 0, 0.0])
            cells.append(f"{size}px {found}/{n} ({100 * found / max(n, 1):.0f} %) err {err / max(found, 1):.3f}"
                         f" labels {label_err / max(labelled, 1):.3f}")
        print(f"{mode:40s} " + " | ".join(cells) + f" | {elapsed:.1f} s wall")
    if not args.keep:
        shutil.rmtree(out)


if __name__ == "__main__":
    main()
