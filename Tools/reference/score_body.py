#!/usr/bin/env python3
"""score_body.py BODY.jsonl REFERENCE_DIR_OR_JSONL

Compares `blaze body` output (Vision's 19 joints, y from the bottom) with MediaPipe Tasks pose references
(`{"image", "poses": [{"landmarks": [[x, y, ...], ...33]}]}` per photo, as ../shared/testdata/reference has them)
mapped to Vision's joints: neck and root are the shoulders' and hips' midpoints, y is flipped (1 − y).
People are matched greedily by mean joint distance. Prints the same-count tally and the mean/max |Δx|,|Δy|.
"""
import glob, json, os, sys

JOINTS = {'nose': [0], 'leftEye': [2], 'rightEye': [5], 'leftEar': [7], 'rightEar': [8],
          'leftShoulder': [11], 'rightShoulder': [12], 'neck': [11, 12], 'leftElbow': [13], 'rightElbow': [14],
          'leftWrist': [15], 'rightWrist': [16], 'leftHip': [23], 'rightHip': [24], 'root': [23, 24],
          'leftKnee': [25], 'rightKnee': [26], 'leftAnkle': [27], 'rightAnkle': [28]}

def stem(name):
    return os.path.splitext(os.path.basename(name))[0]

def load_refs(path):
    recs = [json.load(open(f)) for f in sorted(glob.glob(f'{path}/*.json'))] if os.path.isdir(path) \
        else [json.loads(l) for l in open(path) if l.strip()]
    out = {}
    for r in recs:
        people = []
        for p in r.get('poses') or []:
            lm = p['landmarks']
            people.append({j: (sum(lm[i][0] for i in ix) / len(ix), 1 - sum(lm[i][1] for i in ix) / len(ix))
                           for j, ix in JOINTS.items()})
        out[stem(r.get('image') or r.get('frame'))] = people
    return out

def main():
    body = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
    refs = load_refs(sys.argv[2])
    same = n = 0
    errs = []
    for rec in body:
        s = stem(rec['image'])
        if s not in refs or 'observations' not in rec:
            continue
        n += 1
        mine = [{j: tuple(v[:2]) for j, v in o['joints'].items()} for o in rec['observations']]
        theirs = refs[s]
        same += len(mine) == len(theirs)
        cands = sorted((sum(abs(a[j][0] - b[j][0]) + abs(a[j][1] - b[j][1]) for j in JOINTS) / 38, i, k)
                       for i, a in enumerate(mine) for k, b in enumerate(theirs))
        used_i, used_k = set(), set()
        for d, i, k in cands:
            if i in used_i or k in used_k or d > 0.1:
                continue
            used_i.add(i); used_k.add(k)
            for j in JOINTS:
                errs += [abs(mine[i][j][0] - theirs[k][j][0]), abs(mine[i][j][1] - theirs[k][j][1])]
    missing = len(set(refs) - {stem(r['image']) for r in body})
    mean = sum(errs) / len(errs) if errs else float('nan')
    print(f'photos compared: {n} (missing: {missing}); same number of people: {same}/{n}')
    print(f'joint error (normalized, Vision coordinates): mean {mean:.5f} max {max(errs) if errs else float("nan"):.5f}')
    ok = n > 0 and same == n and missing == 0 and mean <= 0.002
    print(f'{"PASS" if ok else "FAIL"} body parity: same count {same}/{n}, mean err {mean:.5f} (goal <= 0.002)')

if __name__ == '__main__':
    main()
