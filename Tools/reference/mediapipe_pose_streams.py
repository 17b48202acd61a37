#!/usr/bin/env python3
"""Runs MediaPipe Tasks 0.10.14's PoseLandmarker in VIDEO mode over frame_*.png and prints, per frame, the
internal tracking streams the Python API does not return: the auxiliary landmarks and the next-frame ROIs
(`AUXILIARY_LANDMARKS`, `POSE_RECTS_NEXT_FRAME` of PoseLandmarkerGraph), plus the (smoothed) landmarks.
For bisecting a video-mode difference: compare the ROIs first, then feed MediaPipe's ROIs to BlazeKit's
landmark stage to separate the network from the tracking and the smoothing.

Usage (from the repo root, with the venv of Tools/reference/setup-peer-venv.sh --with-mediapipe):
  .venv-peer/bin/python Tools/reference/mediapipe_pose_streams.py --models DIR_OF_TFLITE --fps 25 FRAMES_DIR > streams.jsonl
Each line: {"frame", "timestampMs", "aux": [[[x, y], [x, y]], …per pose], "rects": [[xc, yc, w, h, rotation], …],
"landmarks": [[[x, y], …33], …]}.
"""
import argparse, glob, json, os, sys, tempfile
import mediapipe as mp
from mediapipe.python import packet_creator, packet_getter
from mediapipe.tasks.python import vision, BaseOptions
from mediapipe.tasks.python.vision import pose_landmarker as task_module
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures'))
from make_pose_reference import pose_bundle


class TapTaskInfo(task_module._TaskInfo):
    """The task's graph description with two more graph outputs."""
    def __init__(self, **kw):
        kw['output_streams'] = kw['output_streams'] + ['AUXILIARY_LANDMARKS:aux', 'POSE_RECTS_NEXT_FRAME:rects']
        super().__init__(**kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--models', required=True)
    ap.add_argument('--fps', type=float, required=True)
    ap.add_argument('--variant', default='full')
    ap.add_argument('--num-poses', type=int, default=1)
    ap.add_argument('frames')
    a = ap.parse_args()
    task_module._TaskInfo = TapTaskInfo
    with tempfile.TemporaryDirectory() as tmp:
        landmarker = vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
            base_options=BaseOptions(model_asset_path=pose_bundle(a.models, a.variant, tmp)),
            running_mode=vision.RunningMode.VIDEO, num_poses=a.num_poses))
        for i, f in enumerate(sorted(glob.glob(f'{a.frames}/frame_*.png'))):
            image = mp.Image.create_from_file(f)
            ts = int(round(i * 1000 / a.fps))
            rect = landmarker.convert_to_normalized_rect(None, image, roi_allowed=False)
            out = landmarker._process_video_data({
                'image_in': packet_creator.create_image(image).at(ts * 1000),
                'norm_rect_in': packet_creator.create_proto(rect.to_pb2()).at(ts * 1000)})
            def protos(name):
                return [] if out[name].is_empty() else packet_getter.get_proto_list(out[name])
            print(json.dumps({
                'frame': os.path.basename(f), 'timestampMs': ts,
                'aux': [[[l.x, l.y] for l in lms.landmark] for lms in protos('aux')],
                'rects': [[r.x_center, r.y_center, r.width, r.height, r.rotation] for r in protos('rects')],
                'landmarks': [[[l.x, l.y] for l in lms.landmark] for lms in protos('norm_landmarks')]}))


if __name__ == '__main__':
    main()
