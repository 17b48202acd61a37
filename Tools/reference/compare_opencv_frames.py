#!/usr/bin/env python3
"""Compares every frame BlazeKit's VideoFileReader hands out with the frame OpenCV's cv2.VideoCapture gives.

    /tmp/peer-venv/bin/python Tools/reference/compare_opencv_frames.py [CLIP ...] [--bench .build/release/blaze-bench]

Without clips it compares the clips in Tests/BlazeVideoTests/Fixtures and, when present, the shared clips in
/work/shared/testdata/video (measuring only; nothing from there is written into the project). Each clip is read
twice by `blaze-bench frames`: as RGB (`--frames rgb`) and as YUV planes where the reader hands them out
(`--frames yuv`, converted by BlazeImage, with a check that a rotated crop of the planes equals the crop of
the converted frame). OpenCV's frames (FFmpeg backend, BGR swapped to RGB, auto-rotated as by default)
are the reference. Prints one line per clip and mode and a total; exits 1 if any byte differs.
"""
import argparse, glob, json, os, subprocess, sys, tempfile
import numpy as np
import cv2

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = "/work/shared/testdata/video"


def opencv_frames(path):
    cap = cv2.VideoCapture(path, cv2.CAP_FFMPEG)
    if not cap.isOpened():
        sys.exit(f"OpenCV cannot open {path}")
    while True:
        ok, frame = cap.read()
        if not ok:
            return
        yield np.ascontiguousarray(frame[:, :, ::-1])


def pixel_format(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                          "stream=codec_name,pix_fmt,color_space,color_range", "-of", "csv=p=0", path],
                         capture_output=True, text=True)
    return out.stdout.strip().replace(",", "/") if out.returncode == 0 else "?"


def compare(path, bench, mode):
    with tempfile.NamedTemporaryFile(suffix=".rgb") as dump:
        run = subprocess.run([bench, "frames", path, "--output", dump.name, "--frames", mode],
                             capture_output=True, text=True)
        if run.returncode != 0:
            return {"error": run.stderr.strip()}
        info = json.loads(run.stdout.strip().splitlines()[-1])
        ours = np.memmap(dump.name, dtype=np.uint8, mode="r") if os.path.getsize(dump.name) else np.zeros(0, np.uint8)
        size = info["width"] * info["height"] * 3
        result = {"mode": mode, "ours": info["frames"], "opencv": 0, "identical": 0, "bytes": 0, "differing": 0,
                  "max": 0, "planeFrames": info["planeFrames"], "cropMismatches": info["cropMismatches"]}
        for i, frame in enumerate(opencv_frames(path)):
            result["opencv"] += 1
            if i >= info["frames"] or frame.size != size:
                continue
            mine = ours[i * size:(i + 1) * size].reshape(frame.shape)
            diff = np.abs(mine.astype(np.int16) - frame.astype(np.int16))
            result["bytes"] += frame.size
            result["differing"] += int((diff > 0).sum())
            result["max"] = max(result["max"], int(diff.max()))
            result["identical"] += int(not diff.any())
        return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("clips", nargs="*")
    parser.add_argument("--bench", default=os.path.join(REPO, ".build", "release", "blaze-bench"))
    args = parser.parse_args()
    clips = args.clips or (sorted(glob.glob(os.path.join(SHARED, "*.mp4"))) +
                           sorted(p for p in glob.glob(os.path.join(REPO, "Tests", "BlazeVideoTests", "Fixtures", "*"))
                                  if not p.endswith((".png", ".json"))))
    failed = False
    totals = {"frames": 0, "bytes": 0, "differing": 0}
    print(f"OpenCV {cv2.__version__}")
    for clip in clips:
        fmt = pixel_format(clip)
        for mode in ("rgb", "yuv"):
            r = compare(clip, args.bench, mode)
            if "error" in r:
                print(f"{os.path.basename(clip)} [{mode}] ERROR {r['error']}")
                failed = True
                continue
            ok = r["ours"] == r["opencv"] and r["differing"] == 0 and r["cropMismatches"] == 0
            failed |= not ok
            totals["frames"] += r["identical"]
            totals["bytes"] += r["bytes"]
            totals["differing"] += r["differing"]
            print(f"{os.path.basename(clip)} ({fmt}) [{mode}] frames {r['ours']}/{r['opencv']} identical {r['identical']}, "
                  f"{r['bytes']} bytes, {r['differing']} differ (max {r['max']}), planes {r['planeFrames']}, "
                  f"crop mismatches {r['cropMismatches']} {'OK' if ok else 'DIFFERENT'}")
    print(f"total: {totals['frames']} identical frames, {totals['bytes']} bytes compared, {totals['differing']} differ")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
