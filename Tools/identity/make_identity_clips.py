#!/usr/bin/env python3
"""Synthetic multi-person clips with known identities, for BlazeKit's pose IDs (README, "Identities").

People are cut out of test photos with MediaPipe's person mask (../shared/testdata/reference/<photo>.mask0.png,
the mask MediaPipe's PoseLandmarker gives for the photo) and its landmarks (<photo>.json, "poses"[0]), scaled
to a common height, pasted on a smooth synthetic background and moved along paths, back to front by depth.
Each clip is a folder of frame_NNNNN.png (run it with `blaze pose --video --fps 30 --num-poses N DIR`) and
truth.json: per frame, per person on screen, its identity, the 33 landmarks moved into the frame (pixels)
and the share of its mask left visible after occlusion by people in front and the frame's edges.

Clips (30 fps, WIDTHxHEIGHT, default 640x360):
- crossing:      A walks right, B walks left in front of A; A is hidden behind B for a few frames.
- side_by_side:  A and B stand with overlapping boxes, swaying.
- leave_return:  B walks out of the frame on the right and is back in sight about 31 frames later (1 s).
- fast_swap:     A and B swap places in 6 frames, twice.
- appear_mid:    A alone; B walks in from the left at frame 25, C from the right at frame 45.
`--tiny` writes one small crossing clip (256x144, 16 frames, two people, grey background), the fixture of
Tests/BlazeKitTests/Fixtures/identity.

    python3 Tools/identity/make_identity_clips.py --shared ../shared/testdata --out /tmp/idclips
    python3 Tools/identity/make_identity_clips.py --shared ../shared/testdata --tiny \
        --out Tests/BlazeKitTests/Fixtures/identity

Needs numpy only (PNG read and written with zlib, by Tools/accuracy/make_small_hands.py's functions).
"""
import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "accuracy"))
from make_small_hands import read_png, resize, write_png  # noqa: E402

# Identity letter -> test photo whose first MediaPipe pose and mask give the person.
PEOPLE = {"A": "mpii_052475643", "B": "h36m_S7_Greeting.55011271_000396", "C": "h36m_S1_Directions_1.54138969_000001"}


def cutout(testdata, stem, height):
    """The person of `stem` as (rgb, alpha in [0, 1], landmarks (33, 2) in cutout pixels), scaled to `height` px."""
    photo = read_png(os.path.join(testdata, "images", stem + ".png"))
    mask = read_png(os.path.join(testdata, "reference", stem + ".mask0.png"))[:, :, 0]
    pose = json.load(open(os.path.join(testdata, "reference", stem + ".json")))["poses"][0]["landmarks"]
    ys, xs = np.nonzero(mask > 127)
    x0, y0, x1, y1 = xs.min(), ys.min(), xs.max() + 1, ys.max() + 1
    scale = height / (y1 - y0)
    rgb = resize(photo[y0:y1, x0:x1], scale)
    alpha = resize(np.repeat(mask[y0:y1, x0:x1, None], 3, axis=2), scale)[:, :, 0].astype(np.float32) / 255
    h, w = photo.shape[:2]
    landmarks = np.array([[(l[0] * w - x0) * scale, (l[1] * h - y0) * scale] for l in pose], dtype=np.float64)
    return rgb, alpha, landmarks


def background(width, height, seed):
    """A smooth colour field: two gradients and a few low-frequency waves (no person-like detail)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    out = np.zeros((height, width, 3), np.float32)
    for c in range(3):
        base = 90 + 60 * rng.random()
        field = base + 40 * (x / width) * rng.uniform(-1, 1) + 40 * (y / height) * rng.uniform(-1, 1)
        for _ in range(3):
            fx, fy, ph = rng.uniform(0.5, 3), rng.uniform(0.5, 3), rng.uniform(0, 2 * math.pi)
            field += 12 * np.sin(2 * math.pi * (fx * x / width + fy * y / height) + ph)
        out[:, :, c] = field
    return np.clip(out, 0, 255)


def lerp(a, b, t):
    return a + (b - a) * min(max(t, 0.0), 1.0)


def scenarios(width, height):
    """name -> (frame count, {identity: (depth, f(frame) -> (centre x, feet y) or None)})."""
    w, feet = width, height - 0.06 * height
    step = w / 640
    sway = lambda t, phase: 15 * step * math.sin(t / 6 + phase)
    return {
        "crossing": (72, {"A": (0, lambda t: (lerp(0.15 * w, 0.85 * w, t / 71), feet)),
                          "B": (1, lambda t: (lerp(0.85 * w, 0.15 * w, t / 71), feet - 4 * step))}),
        "side_by_side": (60, {"A": (0, lambda t: (0.42 * w + sway(t, 0), feet)),
                              "B": (1, lambda t: (0.58 * w + sway(t, 2), feet - 6 * step))}),
        "leave_return": (90, {"A": (0, lambda t: (0.3 * w, feet)),
                              "B": (1, lambda t: None if 29 <= t < 35 else
                                    (0.7 * w + 12 * step * (t if t < 29 else max(64 - t, 0)), feet))}),
        "fast_swap": (60, {"A": (0, lambda t: (lerp(0.3 * w, 0.7 * w, (t - 15) / 6) if t < 40 else
                                                lerp(0.7 * w, 0.3 * w, (t - 40) / 6), feet)),
                           "B": (1, lambda t: (lerp(0.7 * w, 0.3 * w, (t - 15) / 6) if t < 40 else
                                               lerp(0.3 * w, 0.7 * w, (t - 40) / 6), feet))}),
        "appear_mid": (75, {"A": (0, lambda t: (0.5 * w, feet)),
                            "B": (1, lambda t: None if t < 25 else (lerp(-0.1 * w, 0.2 * w, (t - 25) / 15), feet)),
                            "C": (2, lambda t: None if t < 45 else (lerp(1.1 * w, 0.8 * w, (t - 45) / 15), feet))}),
    }


def paste(frame, rgb, alpha, left, top):
    """Alpha-blends the cutout at integer (left, top); returns the covered-pixel map of this person."""
    h, w = alpha.shape
    fh, fw = frame.shape[:2]
    x0, y0, x1, y1 = max(left, 0), max(top, 0), min(left + w, fw), min(top + h, fh)
    mine = np.zeros((fh, fw), np.float32)
    if x0 >= x1 or y0 >= y1:
        return mine
    a = alpha[y0 - top:y1 - top, x0 - left:x1 - left]
    frame[y0:y1, x0:x1] = frame[y0:y1, x0:x1] * (1 - a[:, :, None]) + rgb[y0 - top:y1 - top, x0 - left:x1 - left] * a[:, :, None]
    mine[y0:y1, x0:x1] = a
    return mine


def make_clip(out, name, frames, people, cutouts, width, height, seed, flat=False):
    """Writes the clip's frames and truth.json; `flat`: a plain grey background and the smallest PNGs."""
    os.makedirs(out, exist_ok=True)
    bg = np.full((height, width, 3), 128, np.float32) if flat else background(width, height, seed)
    truth = {"clip": name, "width": width, "height": height, "fps": 30, "frames": []}
    for t in range(frames):
        frame = bg.copy()
        placed = []
        for ident, (depth, path) in sorted(people.items(), key=lambda p: p[1][0]):
            where = path(t)
            if where is None:
                continue
            rgb, alpha, landmarks = cutouts[ident]
            left, top = int(round(where[0] - alpha.shape[1] / 2)), int(round(where[1] - alpha.shape[0]))
            placed.append((ident, left, top, landmarks, alpha.sum(), paste(frame, rgb, alpha, left, top)))
        entries = []
        for k, (ident, left, top, landmarks, total, mine) in enumerate(placed):
            visible = mine.copy()
            for later in placed[k + 1:]:
                visible *= 1 - later[5]
            entries.append({"id": ident, "visible": round(float(visible.sum() / total), 4),
                            "height": float(landmarks[:, 1].max() - landmarks[:, 1].min()),
                            "landmarks": [[round(float(x + left), 2), round(float(y + top), 2)] for x, y in landmarks]})
        write_png(os.path.join(out, f"frame_{t:05d}.png"), np.clip(frame + 0.5, 0, 255).astype(np.uint8), 9 if flat else 1)
        truth["frames"].append({"frame": f"frame_{t:05d}", "people": entries})
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f, separators=(",", ":"))
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", required=True, help="../shared/testdata (images/, reference/)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--size", default="640x360", help="WIDTHxHEIGHT of the frames")
    ap.add_argument("--only", default="", help="comma-separated clip names (default: all)")
    ap.add_argument("--tiny", action="store_true", help="the small test fixture: one crossing, 256x144, 16 frames")
    args = ap.parse_args()
    width, height = (256, 144) if args.tiny else map(int, args.size.split("x"))
    person_height = int(0.75 * height)
    cutouts = {k: cutout(args.shared, stem, person_height) for k, stem in PEOPLE.items()}
    clips = scenarios(width, height)
    if args.tiny:
        _, people = clips["crossing"]
        step = lambda f: (lambda t: f(t * 71 / 15))
        make_clip(args.out, "crossing_tiny", 16, {k: (d, step(p)) for k, (d, p) in people.items()}, cutouts, width, height, 7,
                  flat=True)
        return
    wanted = [n for n in args.only.split(",") if n] or list(clips)
    for i, name in enumerate(wanted):
        frames, people = clips[name]
        make_clip(os.path.join(args.out, name), name, frames, people, cutouts, width, height, i + 1)
        print(f"{name}: {frames} frames, people {sorted(people)}")


if __name__ == "__main__":
    main()
