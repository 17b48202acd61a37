#!/usr/bin/env python3
"""Frames per second of Google's legacy Pose or Holistic "webcam input" sample (docs/solutions/pose.md, holistic.md)
on a video file, with mediapipe and with blazekit, in alternating rounds: each round runs each side in a fresh
process. The loop is the sample's (read a frame with OpenCV, BGR -> RGB, process, RGB -> BGR, draw_landmarks: the
pose; for Holistic also the face contours), without the window.
Frames/s counts the loop from the first read to the last frame; the whole process (imports, graph creation) is
reported beside it.

  legacy_video_fps.py CLIP --mediapipe-python /tmp/peer-venv/bin/python --blazekit-python PY [--rounds 4]
                      [--solution pose|holistic]

blazekit's Python needs blazekit importable (installed, or PYTHONPATH=Python with BLAZEKIT_LIBRARY set) and OpenCV.
"""
import argparse
import json
import subprocess
import sys
import time

# The body of Google's "webcam input" loops, per solution: the process() call and the drawing after it.
SOLUTIONS = {
    "pose": dict(make="mp_pose.Pose(min_detection_confidence=0.5, min_tracking_confidence=0.5)", found="pose_landmarks",
                 draw="""
        mp_drawing.draw_landmarks(image, results.pose_landmarks, mp_pose.POSE_CONNECTIONS,
                                  landmark_drawing_spec=mp_drawing_styles.get_default_pose_landmarks_style())"""),
    "holistic": dict(make="mp_holistic.Holistic(min_detection_confidence=0.5, min_tracking_confidence=0.5)",
                     found="face_landmarks", draw="""
        mp_drawing.draw_landmarks(image, results.face_landmarks, mp_holistic.FACEMESH_CONTOURS, landmark_drawing_spec=None,
                                  connection_drawing_spec=mp_drawing_styles.get_default_face_mesh_contours_style())
        mp_drawing.draw_landmarks(image, results.pose_landmarks, mp_holistic.POSE_CONNECTIONS,
                                  landmark_drawing_spec=mp_drawing_styles.get_default_pose_landmarks_style())"""),
}

LOOP = r"""
import json, sys, time
t0 = time.perf_counter()
import cv2
import importlib
mp = importlib.import_module(sys.argv[1])
mp_drawing, mp_drawing_styles = mp.solutions.drawing_utils, mp.solutions.drawing_styles
mp_pose, mp_holistic = mp.solutions.pose, mp.solutions.holistic
cap = cv2.VideoCapture(sys.argv[2])
frames = found = 0
with MAKE as solution:
    start = time.perf_counter()
    while cap.isOpened():
        success, image = cap.read()
        if not success:
            break
        image.flags.writeable = False
        image = cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
        results = solution.process(image)
        image.flags.writeable = True
        image = cv2.cvtColor(image, cv2.COLOR_RGB2BGR)DRAW
        frames += 1
        found += results.FOUND is not None
    loop = time.perf_counter() - start
cap.release()
print(json.dumps({"frames": frames, "found": found, "loop_s": loop, "process_s": time.perf_counter() - t0}))
"""


def loop_for(solution):
    s = SOLUTIONS[solution]
    return LOOP.replace("MAKE", s["make"]).replace("DRAW", s["draw"]).replace("FOUND", s["found"])


def run(python, module, clip, solution):
    out = subprocess.run([python, "-c", loop_for(solution), module, clip], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("clip")
    ap.add_argument("--mediapipe-python", required=True)
    ap.add_argument("--blazekit-python", default=sys.executable)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--solution", choices=sorted(SOLUTIONS), default="pose")
    args = ap.parse_args()
    rows = []
    for r in range(args.rounds):
        for name, python in (("mediapipe", args.mediapipe_python), ("blazekit", args.blazekit_python)):
            res = run(python, name, args.clip, args.solution)
            res.update(side=name, round=r + 1, fps=res["frames"] / res["loop_s"], whole_fps=res["frames"] / res["process_s"])
            rows.append(res)
            print(f"round {r + 1} {name:9s} {res['fps']:7.1f} frames/s ({res['whole_fps']:.1f} whole process), "
                  f"{res['found']}/{res['frames']} frames with a {SOLUTIONS[args.solution]['found'].replace('_landmarks', '')}",
                  flush=True)
    best = {s: max(x["fps"] for x in rows if x["side"] == s) for s in ("mediapipe", "blazekit")}
    worst = {s: min(x["fps"] for x in rows if x["side"] == s) for s in ("mediapipe", "blazekit")}
    ratios = [b["fps"] / m["fps"] for m, b in zip(rows[0::2], rows[1::2])]
    print(f"best round: mediapipe {best['mediapipe']:.1f}, blazekit {best['blazekit']:.1f} frames/s "
          f"({best['blazekit'] / best['mediapipe']:.2f}x); per-round ratio {min(ratios):.2f}-{max(ratios):.2f}x; "
          f"worst rounds {worst['mediapipe']:.1f} / {worst['blazekit']:.1f}")


if __name__ == "__main__":
    main()
