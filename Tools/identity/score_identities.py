#!/usr/bin/env python3
"""Scores pose identities against a synthetic clip's truth (make_identity_clips.py): IDF1, ID switches, recall.

Per frame, people whose mask is at least --min-visible (0.5) visible count; the others (hidden behind someone
or mostly out of the frame) are "don't care": a pose matched to them is neither right nor wrong. A pose matches
a person when the mean distance of its 33 landmarks to the person's is under --max-distance (0.2) of the
person's height, one to one per frame, least total distance first (Hungarian).

- recall: matched people / people that count (whatever the IDs);
- IDF1 (Ristani et al. 2016): the one-to-one pairing of true identities and predicted IDs that maximises the
  frames where they match (IDTP), then 2·IDTP / (2·IDTP + IDFP + IDFN), IDFP counting predicted poses and IDFN
  counted people outside that pairing;
- ID switches (CLEAR MOT): a person matched to another predicted ID than the last one it was matched to.

The predicted ID is the pose's "id" key (BlazeKit's identities), or its index in the frame's list ("list
order", what MediaPipe's results give), or ("ideal") the true identity of the person it matches (a pose
matching no one gets an ID of its own): the best IDF1 the detections allow, so that what detection misses and
what identity assignment loses are told apart.

    python3 Tools/identity/score_identities.py CLIPS_DIR PRED_DIR [--without-ids MAIN_PRED_DIR]

PRED_DIR holds <clip>.jsonl (`blaze pose --video --fps 30 --num-poses N CLIPS_DIR/<clip>`); with
--without-ids, MAIN_PRED_DIR holds the same run by a build without identities, for its recall. Prints a
markdown table. Needs numpy only.
"""
import argparse
import json
import os

import numpy as np


def hungarian(cost):
    """Minimum-cost one-to-one assignment of a rectangular cost matrix: list of (row, column)."""
    cost = np.asarray(cost, dtype=np.float64)
    rows, cols = cost.shape
    n = max(rows, cols)
    big = cost.max() + 1 if cost.size else 1
    a = np.full((n, n), big)
    a[:rows, :cols] = cost
    u, v, p, way = np.zeros(n + 1), np.zeros(n + 1), np.zeros(n + 1, int), np.zeros(n + 1, int)
    for i in range(1, n + 1):
        p[0], j0 = i, 0
        minv, used = np.full(n + 1, np.inf), np.zeros(n + 1, bool)
        while True:
            used[j0] = True
            i0, delta, j1 = p[j0], np.inf, 0
            for j in range(1, n + 1):
                if not used[j]:
                    cur = a[i0 - 1, j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(n + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    return [(p[j] - 1, j - 1) for j in range(1, n + 1) if p[j] and p[j] - 1 < rows and j - 1 < cols]


def frame_matches(people, poses, width, height, max_distance):
    """(person index, pose index) pairs matched in one frame."""
    if not people or not poses:
        return []
    cost = np.zeros((len(people), len(poses)))
    for i, person in enumerate(people):
        truth = np.array(person["landmarks"])
        for j, pose in enumerate(poses):
            xy = np.array([[l[0] * width, l[1] * height] for l in pose["landmarks"]])
            cost[i, j] = np.linalg.norm(xy - truth, axis=1).mean() / person["height"]
    return [(i, j) for i, j in hungarian(cost) if cost[i, j] < max_distance]


def ideal_ids(truth, lines, max_distance):
    """The lines with each pose's "id" set to the true identity it matches, else a fresh one."""
    out = []
    for n, (frame, line) in enumerate(zip(truth["frames"], lines)):
        poses = [dict(pose, id=f"unmatched-{n}-{j}") for j, pose in enumerate(line["poses"])]
        for i, j in frame_matches(frame["people"], line["poses"], truth["width"], truth["height"], max_distance):
            poses[j]["id"] = frame["people"][i]["id"]
        out.append(dict(line, poses=poses))
    return out


def score(truth, lines, id_of, min_visible=0.5, max_distance=0.2):
    """Metrics of one clip: `lines` the blaze JSON lines in frame order; `id_of(pose, index)` the predicted ID."""
    frames = truth["frames"]
    assert len(lines) == len(frames), f"{truth['clip']}: {len(lines)} result lines for {len(frames)} frames"
    gt_count = pred_count = matched = switches = 0
    pair_frames = {}          # (true identity, predicted ID) -> frames matched
    gt_total, pred_total = {}, {}
    last = {}
    for frame, line in zip(frames, lines):
        poses = line["poses"]
        matches = frame_matches(frame["people"], poses, truth["width"], truth["height"], max_distance)
        counted = {i for i, person in enumerate(frame["people"]) if person["visible"] >= min_visible}
        dont_care = {j for i, j in matches if i not in counted}
        for i in counted:
            gt_total[frame["people"][i]["id"]] = gt_total.get(frame["people"][i]["id"], 0) + 1
        for j, pose in enumerate(poses):
            if j not in dont_care:
                pred_total[id_of(pose, j)] = pred_total.get(id_of(pose, j), 0) + 1
        gt_count += len(counted)
        pred_count += len(poses) - len(dont_care)
        for i, j in matches:
            if i not in counted:
                continue
            who, pid = frame["people"][i]["id"], id_of(poses[j], j)
            matched += 1
            pair_frames[(who, pid)] = pair_frames.get((who, pid), 0) + 1
            if who in last and last[who] != pid:
                switches += 1
            last[who] = pid
    truths, preds = sorted(gt_total), sorted(pred_total, key=str)
    idtp = 0
    if truths and preds:
        gain = np.array([[pair_frames.get((t, p), 0) for p in preds] for t in truths], dtype=np.float64)
        idtp = int(sum(gain[i, j] for i, j in hungarian(-gain)))
    idfn, idfp = gt_count - idtp, pred_count - idtp
    idf1 = 2 * idtp / (2 * idtp + idfp + idfn) if gt_count else 1.0
    return {"people": gt_count, "poses": pred_count, "recall": matched / gt_count if gt_count else 1.0, "idf1": idf1,
            "switches": switches, "ids": len(preds)}


def read_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("clips")
    ap.add_argument("pred")
    ap.add_argument("--without-ids", help="the same runs by a build without identities (recall only)")
    ap.add_argument("--min-visible", type=float, default=0.5)
    ap.add_argument("--max-distance", type=float, default=0.2)
    args = ap.parse_args()
    names = sorted(n for n in os.listdir(args.clips) if os.path.exists(os.path.join(args.clips, n, "truth.json")))
    rows, by_id, by_order, by_ideal = [], [], [], []
    for name in names:
        truth = json.load(open(os.path.join(args.clips, name, "truth.json")))
        lines = read_lines(os.path.join(args.pred, name + ".jsonl"))
        ids = score(truth, lines, lambda pose, j: pose["id"], args.min_visible, args.max_distance)
        order = score(truth, lines, lambda pose, j: j, args.min_visible, args.max_distance)
        ideal = score(truth, ideal_ids(truth, lines, args.max_distance), lambda pose, j: pose["id"], args.min_visible,
                      args.max_distance)
        without = "-"
        if args.without_ids:
            plain = read_lines(os.path.join(args.without_ids, name + ".jsonl"))
            without = f"{score(truth, plain, lambda pose, j: j, args.min_visible, args.max_distance)['recall']:.3f}"
        by_id.append(ids)
        by_order.append(order)
        by_ideal.append(ideal)
        rows.append(f"| {name} | {ids['people']} | {ids['recall']:.3f} | {without} | {ids['idf1']:.3f} | {ids['switches']} "
                    f"| {ids['ids']} | {order['idf1']:.3f} | {order['switches']} | {ideal['idf1']:.3f} |")
    mean = lambda runs, key: sum(r[key] for r in runs) / len(runs)
    print("| clip | people (frames×persons counted) | recall with IDs | recall without IDs | IDF1 | ID switches | IDs given "
          "| IDF1 list order | ID switches list order | IDF1 ideal IDs |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"| mean | | {mean(by_id, 'recall'):.3f} | | {mean(by_id, 'idf1'):.3f} | {mean(by_id, 'switches'):.2f} | "
          f"| {mean(by_order, 'idf1'):.3f} | {mean(by_order, 'switches'):.2f} | {mean(by_ideal, 'idf1'):.3f} |")


if __name__ == "__main__":
    main()
