#!/usr/bin/env python3
"""End-to-end video throughput of the peer as a user would write it: OpenCV decodes a clip
(cv2.VideoCapture, BGR→RGB with cv2.cvtColor) and MediaPipe Tasks 0.10.14 PoseLandmarker (full model,
num_poses=1, default thresholds) runs in VIDEO mode on every frame. Prints frames, wall seconds and
frames per second per round, then the best round.

Usage (from the repo root, with a venv holding mediapipe==0.10.14 and opencv-python, e.g.
the one of Tools/reference/setup-peer-venv.sh --with-mediapipe, plus opencv-python):
  PY Benchmarks/mediapipe_video_fps.py --models DIR_OF_TFLITE [--rounds K] [--timestamps index|msec]
      [--num-poses 1] [--variant full|lite] [--max-frames N] CLIP.mp4
  PY Benchmarks/mediapipe_video_fps.py --decode-only [--rounds K] CLIP.mp4
e.g.
  .venv-peer/bin/python Benchmarks/mediapipe_video_fps.py --models .originals --rounds 3 clip1080.mp4

What is timed (wall clock, time.perf_counter): per round, opening the clip with cv2.VideoCapture and,
for every frame, cap.read() + cv2.cvtColor(BGR2RGB) + mp.Image(SRGB) + detect_for_video. Each round
uses a fresh PoseLandmarker (created before the clock starts, so each round does the same work from
an empty tracking state); the .task bundle is made by Tools/fixtures/make_pose_reference.py's pose_bundle
(NormalizationOptions metadata added to the original .tflite files). Timestamps: `index` (default)
uses round(i * 1000 / CAP_PROP_FPS) ms for frame i; `msec` uses CAP_PROP_POS_MSEC after each read.
Threads are the libraries' defaults (MediaPipe's XNNPACK and OpenCV's FFmpeg backend); the script
prints cv2.getNumThreads() and os.cpu_count() so runs on different machines can be compared.
--decode-only times the same loop without MediaPipe, twice per round: cap.read() alone, and
cap.read() + cvtColor.
Output lines: `round R: frames F, wall S s, fps X (frames with a pose: P)`, then `best: fps X`.
"""
import argparse, os, sys, tempfile, time
import cv2

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def open_clip(path):
    cap = cv2.VideoCapture(path)
    if not cap.isOpened():
        sys.exit(f'cannot open {path}')
    return cap


def decode_round(path, convert, max_frames):
    t = time.perf_counter()
    cap = open_clip(path)
    n = 0
    while n < max_frames:
        ok, frame = cap.read()
        if not ok:
            break
        if convert:
            frame = cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)
        n += 1
    cap.release()
    return n, time.perf_counter() - t


def landmark_round(path, landmarker, timestamps, max_frames):
    import mediapipe as mp
    t = time.perf_counter()
    cap = open_clip(path)
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    n = with_pose = 0
    last_ts = -1
    while n < max_frames:
        ok, frame = cap.read()
        if not ok:
            break
        rgb = cv2.cvtColor(frame, cv2.COLOR_BGR2RGB)
        if timestamps == 'msec':
            ts = int(round(cap.get(cv2.CAP_PROP_POS_MSEC)))
            ts = max(ts, last_ts + 1)        # VIDEO mode needs strictly increasing timestamps
        else:
            ts = int(round(n * 1000 / fps))
        last_ts = ts
        result = landmarker.detect_for_video(mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb), ts)
        with_pose += len(result.pose_landmarks) > 0
        n += 1
    cap.release()
    return n, time.perf_counter() - t, with_pose


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('clip')
    ap.add_argument('--models', help='folder with the original .tflite files (not needed with --decode-only)')
    ap.add_argument('--rounds', type=int, default=1)
    ap.add_argument('--timestamps', choices=('index', 'msec'), default='index')
    ap.add_argument('--num-poses', type=int, default=1)
    ap.add_argument('--variant', choices=('full', 'lite'), default='full')
    ap.add_argument('--max-frames', type=int, default=10**9)
    ap.add_argument('--decode-only', action='store_true')
    a = ap.parse_args()

    cap = open_clip(a.clip)
    print(f'clip {a.clip}: {int(cap.get(cv2.CAP_PROP_FRAME_WIDTH))}x{int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))} '
          f'@ {cap.get(cv2.CAP_PROP_FPS):g} fps, {int(cap.get(cv2.CAP_PROP_FRAME_COUNT))} frames, '
          f'backend {cap.getBackendName()}; cv2 {cv2.__version__}, cv2.getNumThreads() {cv2.getNumThreads()}, '
          f'os.cpu_count() {os.cpu_count()}')
    cap.release()

    if a.decode_only:
        best = {False: 0.0, True: 0.0}
        for r in range(1, a.rounds + 1):
            for convert in (False, True):
                n, s = decode_round(a.clip, convert, a.max_frames)
                best[convert] = max(best[convert], n / s)
                label = 'read+cvtColor' if convert else 'read'
                print(f'round {r} decode-only ({label}): frames {n}, wall {s:.3f} s, fps {n / s:.2f}')
        print(f'best: decode-only read fps {best[False]:.2f}; read+cvtColor fps {best[True]:.2f}')
        return

    if not a.models:
        ap.error('--models is needed unless --decode-only')
    import mediapipe as mp
    from mediapipe.tasks.python import vision, BaseOptions
    sys.path.insert(0, os.path.join(ROOT, 'Tools', 'fixtures'))
    from make_pose_reference import pose_bundle
    print(f'mediapipe {mp.__version__}: PoseLandmarker {a.variant}, VIDEO mode, num_poses={a.num_poses}, '
          f'timestamps {a.timestamps}')
    best = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        task = pose_bundle(a.models, a.variant, tmp)
        for r in range(1, a.rounds + 1):
            landmarker = vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
                base_options=BaseOptions(model_asset_path=task), running_mode=vision.RunningMode.VIDEO,
                num_poses=a.num_poses))
            n, s, with_pose = landmark_round(a.clip, landmarker, a.timestamps, a.max_frames)
            landmarker.close()
            best = max(best, n / s)
            print(f'round {r}: frames {n}, wall {s:.3f} s, fps {n / s:.2f} (frames with a pose: {with_pose})')
    print(f'best: fps {best:.2f}')


if __name__ == '__main__':
    main()
