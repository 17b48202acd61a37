"""Compares two holistic JSON Lines files (mediapipe_holistic_reference.py's layout) line by line: per part,
how often both find it, and the x/y differences (normalized to the image) where both do.

    compare_holistic.py REFERENCE.jsonl CANDIDATE.jsonl [--worst N]
"""
import argparse
import json
import math

PARTS = ("pose", "left_hand", "right_hand", "face")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("reference")
    p.add_argument("candidate")
    p.add_argument("--worst", type=int, default=5)
    a = p.parse_args()
    ref = [json.loads(l) for l in open(a.reference)]
    cand = [json.loads(l) for l in open(a.candidate)]
    if len(ref) != len(cand):
        raise SystemExit(f"{len(ref)} reference lines, {len(cand)} candidate lines")
    for part in PARTS:
        agree = both = 0
        maxima, sums, count, worst = [], 0.0, 0, []
        for i, (r, c) in enumerate(zip(ref, cand)):
            rp, cp = r.get(part), c.get(part)
            name = r.get("file", r.get("frame", i))
            if (rp is None) == (cp is None):
                agree += 1
            else:
                worst.append((math.inf, name, "ref" if rp is not None else "candidate only"))
            if rp is None or cp is None:
                continue
            if len(rp) != len(cp):
                worst.append((math.inf, name, f"{len(rp)} vs {len(cp)} points"))
                continue
            both += 1
            d = [max(abs(x[0] - y[0]), abs(x[1] - y[1])) for x, y in zip(rp, cp)]
            maxima.append(max(d))
            sums += sum(d)
            count += len(d)
            worst.append((max(d), name, f"mean {sum(d) / len(d):.2e}"))
        worst.sort(key=lambda t: -t[0])
        line = f"{part:10s} presence agrees {agree}/{len(ref)}, both {both}"
        if count:
            line += f", max {max(maxima):.2e}, mean {sums / count:.2e}, within 0.002: {sum(m <= 0.002 for m in maxima)}/{both}"
        print(line)
        for w in worst[:a.worst]:
            if w[0] > 0.002:
                print(f"    {w[0]:.3e}  {w[1]}  {w[2]}")


if __name__ == "__main__":
    main()
