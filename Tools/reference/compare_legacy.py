"""Compares two runs of Google's legacy samples (JSON Lines written by run_legacy_samples.py, i.e. by
legacy_samples/_record.py) and prints a markdown table.

    compare_legacy.py REF.jsonl TEST.jsonl
    compare_legacy.py REF_DIR TEST_DIR        # every *.jsonl present in both folders

REF is the reference (mediapipe 0.10.14), TEST the implementation checked (blazekit). Records are paired by
call order (photo i with photo i, frame i with frame i); "inputs same" counts calls whose input pixels had the
same CRC-32 in both runs (different OpenCV builds may decode a clip differently).

Per part (pose; hands; holistic: pose, face, left_hand, right_hand), over photos (static_image_mode=True) or
frames (video):
- same presence: photos/frames where both found the part, or neither (hands: the same number of hands); a
  part found by both with a different number of landmarks (a 468- against a 478-point face) counts as
  different and is not compared ("counts differ" in the both column);
- both: photos/frames where both found it; landmark lists are matched there (hands: greedily by the mean
  normalized x,y distance of the 21 landmarks, pairs further apart than 0.1 left unmatched; single parts are
  paired as they are);
- mean |Δ| and max |Δ|: the absolute differences of normalized x and of y (each coordinate one sample) over
  all matched landmarks; world |Δ|: the same for world x,y,z, in metres;
- ≤ 0.002: photos/frames (of "both") whose largest x,y difference is at most 0.002; and how many landmark
  coordinates are within 0.002;
- labels: matched hands whose handedness label (top category) agrees;
- mask |Δ|: mean absolute segmentation-mask difference per photo/frame where both have a mask, averaged; from
  the runs' saved masks (`--masks`), or, without them, the difference of the masks' means (marked "means").
  Runs with masks also get a "mask" row: the mask's presence (same presence, found ref/test) and that mean.
Needs numpy.
"""
import argparse
import json
import os
import sys

import numpy as np

PARTS = {
    "Pose": [("pose", "pose_landmarks", "pose_world_landmarks", None, False)],
    "Hands": [("hands", "multi_hand_landmarks", "multi_hand_world_landmarks", "multi_handedness", True)],
    "Holistic": [("pose", "pose_landmarks", "pose_world_landmarks", None, False),
                 ("face", "face_landmarks", None, None, False),
                 ("left_hand", "left_hand_landmarks", None, None, False),
                 ("right_hand", "right_hand_landmarks", None, None, False)],
}
MATCH_LIMIT = 0.1
BAR = 0.002


def load(path):
    meta, constructs, calls = {}, {}, []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if "meta" in r:
                meta = r["meta"]
            elif "construct" in r:
                constructs[r["instance"]] = r
            elif "call" in r:
                calls.append(r)
    stem = path[:-len(".jsonl")] if path.endswith(".jsonl") else path
    masks = meta.get("masks") or (stem + ".masks")
    return {"path": path, "meta": meta, "constructs": constructs, "calls": calls,
            "masks": masks if os.path.isdir(masks) else None}


def items(rec, key, multi):
    v = rec.get(key)
    if v is None:
        return []
    return [np.asarray(x, dtype=np.float64) for x in v] if multi else [np.asarray(v, dtype=np.float64)]


def match(a, b, multi):
    if not multi:
        return [(0, 0)] if a and b else []
    pairs = sorted((float(np.mean(np.hypot(*(x[:, :2] - y[:, :2]).T))), i, j)
                   for i, x in enumerate(a) for j, y in enumerate(b))
    used_a, used_b, out = set(), set(), []
    for d, i, j in pairs:
        if d > MATCH_LIMIT or i in used_a or j in used_b:
            continue
        used_a.add(i)
        used_b.add(j)
        out.append((i, j))
    return out


def mask_diff(ref, test, ra, rb):
    ma, mb = ra.get("segmentation_mask"), rb.get("segmentation_mask")
    if not ma or not mb:
        return None
    if ref["masks"] and test["masks"]:
        fa = os.path.join(ref["masks"], f"{ra['instance']}_{ra['frame']:05d}.npz")
        fb = os.path.join(test["masks"], f"{rb['instance']}_{rb['frame']:05d}.npz")
        if os.path.exists(fa) and os.path.exists(fb):
            a = np.load(fa)["m"].astype(np.float64) / 65535.0
            b = np.load(fb)["m"].astype(np.float64) / 65535.0
            if a.shape != b.shape:
                return ("shape", 1.0)
            return ("pixels", float(np.mean(np.abs(a - b))))
    return ("means", abs(ma["mean"] - mb["mean"]))


def compare(ref, test):
    rows = []
    n = min(len(ref["calls"]), len(test["calls"]))
    solution = (ref["calls"] or test["calls"] or [{"solution": "?"}])[0]["solution"]
    static = any(c["args"].get("static_image_mode") for c in ref["constructs"].values())
    unit = "photos" if static else "frames"
    inputs_same = sum(ref["calls"][i].get("crc32") == test["calls"][i].get("crc32") for i in range(n))
    errors = (sum("error" in c for c in ref["calls"]), sum("error" in c for c in test["calls"]))
    for part, key, wkey, hkey, multi in PARTS.get(solution, []):
        same = both = within_frames = counts_differ = 0
        coords = within_coords = 0
        dsum, dmax, wsum, wcount = 0.0, 0.0, 0.0, 0
        labels_same = labels_n = 0
        mask_vals, mask_kind = [], None
        for i in range(n):
            ra, rb = ref["calls"][i], test["calls"][i]
            a, b = items(ra, key, multi), items(rb, key, multi)
            pairs = match(a, b, multi)
            mismatched = [(ia, ib) for ia, ib in pairs if a[ia].shape != b[ib].shape]
            same += len(a) == len(b) and not mismatched
            counts_differ += bool(mismatched)
            pairs = [pair for pair in pairs if pair not in mismatched]
            if part == "pose":
                md = mask_diff(ref, test, ra, rb)
                if md is not None:
                    mask_kind = md[0] if mask_kind in (None, md[0]) else "mixed"
                    mask_vals.append(md[1])
            if not pairs:
                continue
            both += 1
            fmax = 0.0
            wa = items(ra, wkey, multi) if wkey else []
            wb = items(rb, wkey, multi) if wkey else []
            for ia, ib in pairs:
                d = np.abs(a[ia][:, :2] - b[ib][:, :2])
                dsum += float(d.sum())
                coords += d.size
                within_coords += int((d <= BAR).sum())
                fmax = max(fmax, float(d.max()))
                if wa and wb and ia < len(wa) and ib < len(wb):
                    w = np.abs(wa[ia][:, :3] - wb[ib][:, :3])
                    wsum += float(w.sum())
                    wcount += w.size
                if hkey:
                    ha, hb = ra.get(hkey) or [], rb.get(hkey) or []
                    if ia < len(ha) and ib < len(hb):
                        labels_n += 1
                        labels_same += ha[ia][0]["label"] == hb[ib][0]["label"]
            dmax = max(dmax, fmax)
            within_frames += fmax <= BAR
        rows.append({
            "run": os.path.basename(ref["path"]), "part": part, "unit": unit, "n": n,
            "counts": (len(ref["calls"]), len(test["calls"])), "inputs_same": inputs_same, "errors": errors,
            "same": same, "both": both, "counts_differ": counts_differ,
            "mean": dsum / coords if coords else None, "max": dmax if coords else None,
            "within_frames": within_frames, "within_coords": within_coords, "coords": coords,
            "world": wsum / wcount if wcount else None,
            "labels": (labels_same, labels_n) if hkey else None,
            "mask": (float(np.mean(mask_vals)), mask_kind, len(mask_vals)) if mask_vals else None,
            "ref_found": sum(bool(items(c, key, multi)) for c in ref["calls"][:n]),
            "test_found": sum(bool(items(c, key, multi)) for c in test["calls"][:n]),
        })
    masks = [(ref["calls"][i].get("segmentation_mask"), test["calls"][i].get("segmentation_mask")) for i in range(n)]
    if rows and any(ma or mb for ma, mb in masks):
        pose = rows[0]
        rows.append({**pose, "part": "mask", "same": sum((ma is None) == (mb is None) for ma, mb in masks),
                     "both": sum(bool(ma and mb) for ma, mb in masks), "counts_differ": 0, "mean": None, "max": None,
                     "within_frames": 0, "within_coords": 0, "coords": 0, "world": None, "labels": None,
                     "ref_found": sum(bool(ma) for ma, _ in masks), "test_found": sum(bool(mb) for _, mb in masks)})
        pose["mask"] = None
    if not rows:
        rows.append({"run": os.path.basename(ref["path"]), "part": "?", "unit": unit, "n": n,
                     "counts": (len(ref["calls"]), len(test["calls"])), "inputs_same": inputs_same,
                     "errors": errors, "empty": True})
    return rows


def fmt(v, digits=5):
    return "—" if v is None else f"{v:.{digits}f}"


def table(rows):
    head = ("| run | part | calls ref/test | inputs same | errors ref/test | found ref/test | same presence | both "
            "| mean \\|Δ\\| | max \\|Δ\\| | ≤ 0.002 (items / coords) | world mean \\|Δ\\| m | labels | mask \\|Δ\\| |")
    out = [head, "|" + "|".join(["---"] * (head.replace("\\|", "").count("|") - 1)) + "|"]
    for r in rows:
        if r.get("empty"):
            out.append(f"| {r['run']} | — | {r['counts'][0]}/{r['counts'][1]} | {r['inputs_same']}/{r['n']} "
                       f"| {r['errors'][0]}/{r['errors'][1]} | — | — | — | — | — | — | — | — | — |")
            continue
        pct = 100.0 * r["same"] / r["n"] if r["n"] else 0.0
        within = (f"{r['within_frames']}/{r['both']} {r['unit']}; "
                  f"{100.0 * r['within_coords'] / r['coords']:.2f} %" if r["coords"] else "—")
        labels = f"{r['labels'][0]}/{r['labels'][1]}" if r["labels"] else "—"
        both = f"{r['both']}" + (f" (counts differ in {r['counts_differ']})" if r["counts_differ"] else "")
        mask = f"{r['mask'][0]:.5f} ({r['mask'][2]}{', ' + r['mask'][1] if r['mask'][1] != 'pixels' else ''})" \
            if r["mask"] else "—"
        out.append(f"| {r['run']} | {r['part']} | {r['counts'][0]}/{r['counts'][1]} | {r['inputs_same']}/{r['n']} "
                   f"| {r['errors'][0]}/{r['errors'][1]} | {r['ref_found']}/{r['test_found']} "
                   f"| {r['same']}/{r['n']} {r['unit']} ({pct:.1f} %) | {both} | {fmt(r['mean'])} "
                   f"| {fmt(r['max'])} | {within} | {fmt(r['world'])} | {labels} | {mask} |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ref", help="reference JSON Lines file or folder (mediapipe)")
    ap.add_argument("test", help="tested JSON Lines file or folder (blazekit)")
    a = ap.parse_args()
    if os.path.isdir(a.ref) != os.path.isdir(a.test):
        raise SystemExit("give two files or two folders")
    if os.path.isdir(a.ref):
        names = sorted(set(f for f in os.listdir(a.ref) if f.endswith(".jsonl"))
                       & set(f for f in os.listdir(a.test) if f.endswith(".jsonl")))
        if not names:
            raise SystemExit("no JSON Lines file in both folders")
        pairs = [(os.path.join(a.ref, f), os.path.join(a.test, f)) for f in names]
    else:
        pairs = [(a.ref, a.test)]
    rows = []
    for p, q in pairs:
        rows += compare(load(p), load(q))
    print(f"reference: {os.path.abspath(a.ref)}  \ntested: {os.path.abspath(a.test)}\n")
    print(table(rows))


if __name__ == "__main__":
    main()
