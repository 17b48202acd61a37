"""Runs Google's legacy MediaPipe samples (Tools/reference/legacy_samples/) under mediapipe or blazekit and keeps
what every `process()` call returned, as JSON Lines, for compare_legacy.py.

The samples are Google's text with `import mediapipe as mp`; `--impl blazekit` sets LEGACY_MP=blazekit, which
makes the samples' hook (`legacy_samples/_record.py`) alias `blazekit` as `mediapipe` in `sys.modules` before
that line runs. Each implementation runs in its own interpreter (`--python`): the peer venv for mediapipe,
any Python with blazekit importable for blazekit (`--pythonpath DIR` prepends DIR to PYTHONPATH, e.g. a
source tree's `Python/` with the library built). Only the standard library is needed to run this script.

One sample:
    run_legacy_samples.py run SAMPLE --impl mediapipe|blazekit [--python PY] --out OUT.jsonl
        [--masks] [--pose-model-complexity N] [--hands-model-complexity N] [--refine-face-landmarks 0|1] INPUT...
  SAMPLE: pose_static, pose_video, hands_static, hands_video, holistic_static, holistic_video.
  --per-photo (static samples): one run per photo, joined into OUT (see run_per_photo: Google's holistic_static
  stops at the first photo where no one is found, under mediapipe as under blazekit).
  INPUT: photos for *_static (a directory means its .png/.jpg files, sorted), one clip for *_video.

The set the legacy-API issue measures (photos through the static samples, each clip through both video
samples):
    run_legacy_samples.py suite --impl ... [--python PY] --out-dir DIR --images PHOTO_DIR --clips CLIP...
        [--pose-model-complexity 1] [--masks] [--holistic] [--per-photo] [--refine-face-landmarks 0|1]
  writes DIR/pose_static.jsonl, DIR/hands_static.jsonl, DIR/pose_video.<clip>.jsonl,
  DIR/hands_video.<clip>.jsonl (and holistic_*), each with its .log (the sample's stdout and stderr) and,
  with --masks, a .masks/ folder of the segmentation masks.

`--pose-model-complexity 1` is needed for pose_static (and holistic_static): Google's static samples ask for
`model_complexity=2`, the heavy model, which MediaPipe downloads at run time and which cannot be obtained
here. The override replaces the argument inside the hook (the sample text keeps its 2); the JSON Lines'
"construct" record shows the arguments actually used. `--refine-face-landmarks 0|1` does the same for
Holistic's `refine_face_landmarks` (holistic_static asks for True, holistic_video leaves the default False).

The samples also call `mp_drawing.plot_landmarks` (matplotlib) and write /tmp/annotated_image<N>.png, as
Google's text does; MPLBACKEND=Agg keeps matplotlib windowless. Nothing is timed.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "legacy_samples")
NAMES = ("pose_static", "pose_video", "hands_static", "hands_video", "holistic_static", "holistic_video")
PHOTO_EXT = (".png", ".jpg", ".jpeg", ".bmp")


def photos(inputs):
    out = []
    for p in inputs:
        if os.path.isdir(p):
            out += sorted(os.path.join(p, f) for f in os.listdir(p) if f.lower().endswith(PHOTO_EXT))
        else:
            out.append(p)
    return out


def summary(path):
    """One line: calls, errors, and how many calls found each part."""
    calls = errors = 0
    found = {}
    construct = []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if "construct" in r:
                construct.append(r["args"])
                continue
            if "call" not in r:
                continue
            calls += 1
            errors += "error" in r
            for key in ("pose_landmarks", "multi_hand_landmarks", "face_landmarks", "left_hand_landmarks",
                        "right_hand_landmarks"):
                if key in r:
                    found.setdefault(key, 0)
                    found[key] += r[key] is not None
    parts = ", ".join(f"{k} in {v}" for k, v in found.items())
    mc = ", ".join(str(a.get("model_complexity")) + (f" (refine_face_landmarks {a['refine_face_landmarks']})"
                                                      if "refine_face_landmarks" in a else "") for a in construct)
    return f"{calls} calls, {errors} errors; {parts}; model_complexity {mc}"


def run_one(sample, impl, python, out, inputs, masks=False, pose_mc=None, hands_mc=None, pythonpath=None,
            cwd=None, refine=None, quiet=False):
    if sample not in NAMES:
        raise SystemExit(f"unknown sample {sample!r}; one of {', '.join(NAMES)}")
    script = os.path.join(SAMPLES, sample + ".py")
    args = photos(inputs) if sample.endswith("_static") else list(inputs)
    if sample.endswith("_video") and len(args) != 1:
        raise SystemExit(f"{sample} takes one clip, got {len(args)}")
    out = os.path.abspath(out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    stem = out[:-len(".jsonl")] if out.endswith(".jsonl") else out
    env = dict(os.environ)
    env.update({"LEGACY_MP": impl, "LEGACY_RECORD": out, "MPLBACKEND": "Agg"})
    for var in ("LEGACY_MASKS", "LEGACY_POSE_MODEL_COMPLEXITY", "LEGACY_HANDS_MODEL_COMPLEXITY", "LEGACY_REFINE_FACE_LANDMARKS"):
        env.pop(var, None)
    if masks:
        env["LEGACY_MASKS"] = stem + ".masks"
    if pose_mc is not None:
        env["LEGACY_POSE_MODEL_COMPLEXITY"] = str(pose_mc)
    if hands_mc is not None:
        env["LEGACY_HANDS_MODEL_COMPLEXITY"] = str(hands_mc)
    if refine is not None:
        env["LEGACY_REFINE_FACE_LANDMARKS"] = str(refine)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join([os.path.abspath(pythonpath)] + (
            [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    log = stem + ".log"
    with open(log, "w") as lf:
        rc = subprocess.call([python, script] + args, env=env, stdout=lf, stderr=subprocess.STDOUT,
                             cwd=cwd or os.path.dirname(out))
    info = summary(out) if os.path.exists(out) else "no output"
    if quiet and rc == 0:
        return rc
    print(f"{sample} [{impl}] {' '.join(os.path.basename(a) for a in args) if len(args) < 4 else f'{len(args)} photos'}"
          f" -> {out}: exit {rc}; {info}")
    if rc != 0:
        with open(log) as lf:
            tail = lf.read().strip().splitlines()[-1:]
        print("   last log line: " + (tail[0] if tail else ""))
    return rc


def run_per_photo(sample, impl, python, out, inputs, masks=False, **common):
    """A static sample run once per photo, the runs' records joined into OUT as one run's (instance and call k =
    photo k; masks renamed to match). Google's holistic_static stops at the first photo where no one is found
    (`np.stack((results.segmentation_mask,) * 3, axis=-1) > 0.1` raises TypeError on None, under mediapipe too),
    so one run cannot cover a set with such photos; each of those runs still records its process() result.
    Returns how many runs exited non-zero."""
    out = os.path.abspath(out)
    stem = out[:-len(".jsonl")] if out.endswith(".jsonl") else out
    shutil.rmtree(stem + ".photos", ignore_errors=True)
    shutil.rmtree(stem + ".masks", ignore_errors=True)
    failed, lines, files = 0, [], photos(inputs)
    for k, photo in enumerate(files):
        part = os.path.join(stem + ".photos", f"{k:03d}.jsonl")
        failed += run_one(sample, impl, python, part, [photo], masks=masks, quiet=True, **common) != 0
        with open(part) as f:
            for line in f:
                r = json.loads(line)
                if "meta" in r:
                    if k:
                        continue
                    r["meta"].update(argv=files, per_photo=True, masks=stem + ".masks" if masks else None)
                if "instance" in r:
                    r["instance"] = k
                if "call" in r:
                    r["call"] = k
                lines.append(json.dumps(r) + "\n")
        mask = os.path.join(part[:-len(".jsonl")] + ".masks", "0_00000.npz")
        if os.path.exists(mask):
            os.makedirs(stem + ".masks", exist_ok=True)
            os.replace(mask, os.path.join(stem + ".masks", f"{k}_00000.npz"))
    with open(out, "w") as f:
        f.writelines(lines)
    print(f"{sample} [{impl}] {len(files)} photos, one run each -> {out}: {failed} runs exited non-zero; {summary(out)}")
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("run", "suite"):
        p = sub.add_parser(name)
        p.add_argument("--impl", choices=("mediapipe", "blazekit"), required=True)
        p.add_argument("--python", default=sys.executable,
                       help="interpreter with the implementation installed (default: this one)")
        p.add_argument("--pythonpath", help="prepended to PYTHONPATH for the sample")
        p.add_argument("--masks", action="store_true", help="also save every segmentation mask (for the mask metric)")
        p.add_argument("--pose-model-complexity", type=int, help="override Pose/Holistic model_complexity")
        p.add_argument("--hands-model-complexity", type=int, help="override Hands model_complexity")
        p.add_argument("--refine-face-landmarks", type=int, choices=(0, 1), help="override Holistic refine_face_landmarks")
        if name == "run":
            p.add_argument("sample", choices=NAMES)
            p.add_argument("--out", required=True)
            p.add_argument("inputs", nargs="+")
        else:
            p.add_argument("--out-dir", required=True)
            p.add_argument("--images", required=True, help="folder of photos for the static samples")
            p.add_argument("--clips", nargs="+", required=True)
            p.add_argument("--holistic", action="store_true", help="also run the two Holistic samples")
        p.add_argument("--per-photo", action="store_true",
                       help="static samples: one run per photo, joined (holistic_static stops at a photo without a person)")
    a = ap.parse_args()
    common = dict(masks=a.masks, pose_mc=a.pose_model_complexity, hands_mc=a.hands_model_complexity,
                  pythonpath=a.pythonpath, refine=a.refine_face_landmarks)
    static = run_per_photo if a.per_photo else run_one
    if a.cmd == "run":
        run = static if a.sample.endswith("_static") else run_one
        sys.exit(1 if run(a.sample, a.impl, a.python, a.out, a.inputs, **common) else 0)
    kinds = ("pose", "hands") + (("holistic",) if a.holistic else ())
    failed = 0
    for kind in kinds:
        failed += static(f"{kind}_static", a.impl, a.python, os.path.join(a.out_dir, f"{kind}_static.jsonl"),
                         [a.images], **common) != 0
        for clip in a.clips:
            stem = os.path.splitext(os.path.basename(clip))[0]
            failed += run_one(f"{kind}_video", a.impl, a.python,
                              os.path.join(a.out_dir, f"{kind}_video.{stem}.jsonl"), [clip], **common) != 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
