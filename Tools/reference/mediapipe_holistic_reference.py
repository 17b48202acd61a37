"""What mediapipe 0.10.14's legacy Holistic (`mp.solutions.holistic.Holistic`) returns, as JSON Lines, for
BlazeKit's HolisticLandmarker comparisons (compare_holistic.py) and the Swift test fixtures
(Tools/fixtures/make_holistic_reference.py). Runs in the peer venv (mediapipe, OpenCV).

    mediapipe_holistic_reference.py images --out OUT.jsonl [--refine] [--shared] [--complexity 1] PHOTO...
        static_image_mode=True; one Holistic per photo, or with --shared one for all (as Google's sample).
    mediapipe_holistic_reference.py video --out OUT.jsonl [--refine] [--complexity 1] [--max-frames N] CLIP
        static_image_mode=False over the clip's frames (OpenCV decoding).

Each line: {"file" or "frame", "width", "height", "pose", "pose_world", "left_hand", "right_hand", "face"},
each part a list of [x, y, z, visibility] or null when absent.
"""
import argparse
import json
import sys

import cv2
import mediapipe as mp


def part(landmarks):
    if landmarks is None:
        return None
    return [[l.x, l.y, l.z, l.visibility] for l in landmarks.landmark]


def record(results, **extra):
    out = dict(extra)
    out.update(pose=part(results.pose_landmarks), pose_world=part(results.pose_world_landmarks),
               left_hand=part(results.left_hand_landmarks), right_hand=part(results.right_hand_landmarks),
               face=part(results.face_landmarks))
    return out


def make(args, static):
    return mp.solutions.holistic.Holistic(static_image_mode=static, model_complexity=args.complexity,
                                          refine_face_landmarks=args.refine)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["images", "video"])
    p.add_argument("--out", required=True)
    p.add_argument("--refine", action="store_true")
    p.add_argument("--shared", action="store_true")
    p.add_argument("--complexity", type=int, default=1)
    p.add_argument("--max-frames", type=int, default=0)
    p.add_argument("inputs", nargs="+")
    args = p.parse_args()
    with open(args.out, "w") as f:
        if args.mode == "images":
            shared = make(args, True) if args.shared else None
            for path in args.inputs:
                image = cv2.cvtColor(cv2.imread(path), cv2.COLOR_BGR2RGB)
                holistic = shared or make(args, True)
                r = holistic.process(image)
                f.write(json.dumps(record(r, file=path, width=image.shape[1], height=image.shape[0])) + "\n")
                if shared is None:
                    holistic.close()
        else:
            holistic = make(args, False)
            cap = cv2.VideoCapture(args.inputs[0])
            n = 0
            while cap.isOpened():
                ok, frame = cap.read()
                if not ok or (args.max_frames and n >= args.max_frames):
                    break
                image = cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)
                r = holistic.process(image)
                f.write(json.dumps(record(r, frame=n, width=image.shape[1], height=image.shape[0])) + "\n")
                n += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
