#!/usr/bin/env python3
"""Runs MediaPipe Tasks 0.10.14 (the peer) PoseLandmarker in IMAGE mode on PNG photos and writes
BlazeKit test fixtures: the photos, one JSON Lines file in `blaze pose`'s output format per model
variant, and the segmentation masks as 8-bit PNGs.

Usage (from the repo root, with the venv of Tools/setup-peer-venv.sh --with-mediapipe):
  .venv-peer/bin/python Tools/make_pose_reference.py --models DIR_OF_TFLITE --out Tests/BlazeKitTests/Fixtures/pose PHOTO.png...

MediaPipe Tasks needs NormalizationOptions metadata in its .tflite files, which the original
pose_landmark files lack, so the script writes temporary .task bundles with that metadata added
(mean and std from each model's input range in Tools/builtin_models.json: [-1, 1] for pose_detection,
mean = std = 127.5; [0, 1] for pose_landmark, mean 0, std 255).
"""
import argparse, json, os, shutil, tempfile
import numpy as np
from PIL import Image
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions
from peer_bundles import write_task_bundle



def pose_bundle(models, variant, directory):
    """pose_landmarker_<variant>.task in `directory`: the pose detector (2 outputs) and the landmark model (5)."""
    return write_task_bundle(os.path.join(directory, f'pose_landmarker_{variant}.task'), models,
                             [('pose_detection', 2), (f'pose_landmark_{variant}', 5)])


def landmark(l):
    return [float(l.x), float(l.y), float(l.z), float(l.visibility or 0.0), float(l.presence or 0.0)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--models', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--num-poses', type=int, default=5)
    ap.add_argument('photos', nargs='+')
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for variant in ('full', 'lite'):
            landmarker = vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
                base_options=BaseOptions(model_asset_path=pose_bundle(a.models, variant, tmp)),
                num_poses=a.num_poses, output_segmentation_masks=True))
            with open(os.path.join(a.out, f'reference_{variant}.jsonl'), 'w') as jsonl:
                for photo in a.photos:
                    name = os.path.basename(photo)
                    if variant == 'full':
                        shutil.copyfile(photo, os.path.join(a.out, name))
                    image = mp.Image.create_from_file(photo)
                    result = landmarker.detect(image)
                    poses = []
                    for i, (lms, world) in enumerate(zip(result.pose_landmarks, result.pose_world_landmarks)):
                        poses.append({'landmarks': [landmark(l) for l in lms],
                                      'worldLandmarks': [landmark(l) for l in world]})
                        mask = result.segmentation_masks[i].numpy_view().squeeze()
                        Image.fromarray((np.clip(mask, 0, 1) * 255 + 0.5).astype(np.uint8)).save(
                            os.path.join(a.out, f'{os.path.splitext(name)[0]}.{variant}.mask{i}.png'))
                    jsonl.write(json.dumps({'image': name, 'width': image.width, 'height': image.height,
                                            'numPoses': a.num_poses, 'poses': poses}) + '\n')
                    print(variant, name, len(poses), 'poses')


if __name__ == '__main__':
    main()
