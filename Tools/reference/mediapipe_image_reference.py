#!/usr/bin/env python3
"""Runs MediaPipe Tasks 0.10.14 (the peer) PoseLandmarker (full model, num_poses=5) and HandLandmarker
(full model, num_hands=4) in IMAGE mode, default thresholds, on a folder of JPEG/PNG files, with a chosen
image decoder, and writes one JSON Lines file per kind in the format of `blaze pose` / `blaze hand`,
which the project's scorer (score.py, not in this repository; see MAINTENANCE.md) reads. For measuring
how much the decoder alone moves the peer's landmarks (e.g. Pillow/libjpeg-turbo vs MediaPipe's stb_image
on the same JPEG), outside the test suite.

Usage (from the repo root, with a venv holding mediapipe==0.10.14, Pillow and numpy, e.g. the one of
Tools/reference/setup-peer-venv.sh --with-mediapipe):
  PY Tools/reference/mediapipe_image_reference.py --models DIR_OF_TFLITE --decoder pil|mediapipe [--exif-transpose] \\
      [--pose-out POSE.jsonl] [--hand-out HAND.jsonl] [--num-poses 5] [--num-hands 4] FOLDER_OR_FILE...
e.g.
  .venv-peer/bin/python Tools/reference/mediapipe_image_reference.py --models .originals --decoder pil \\
      --pose-out /tmp/media/ref/pose_pil.jsonl --hand-out /tmp/media/ref/hand_pil.jsonl /tmp/media/set/jpeg
  python3 $SCORE parity pose /tmp/media/ref/pose_stb.jsonl /tmp/media/ref/pose_pil.jsonl

Decoders:
  pil        Image.open (Pillow; JPEG through libjpeg-turbo with its defaults: islow IDCT, fancy
             upsampling), then, with --exif-transpose, PIL.ImageOps.exif_transpose; converted to RGB and
             fed as mp.Image(image_format=mp.ImageFormat.SRGB, data=np.asarray(...)).
  mediapipe  mp.Image.create_from_file (MediaPipe's stb_image; ignores EXIF orientation, so
             --exif-transpose is refused).
Folders are scanned for *.jpg, *.jpeg, *.png (sorted). At least one of --pose-out / --hand-out.

Output lines (landmarks normalized to [0, 1] of the decoded, possibly transposed, image):
  pose: {"image": NAME, "width": W, "height": H, "numPoses": 5,
         "poses": [{"landmarks": [[x, y, z, visibility, presence], …33], "worldLandmarks": [[…], …33]}]}
  hand: {"image": NAME, "width": W, "height": H, "numHands": 4,
         "hands": [{"handedness": {"index", "categoryName", "score"}, "landmarks": [[x, y, z], …21],
                    "worldLandmarks": [[x, y, z], …21]}]}
MediaPipe needs NormalizationOptions metadata in the original .tflite files; the .task bundles are made
by pose_bundle / hand_bundle of Tools/fixtures/make_pose_reference.py / make_hand_reference.py (peer_bundles.py)
in a temporary folder.
"""
import argparse, glob, json, os, sys, tempfile
import numpy as np
from PIL import Image, ImageOps
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures'))
from make_pose_reference import pose_bundle, landmark as pose_landmark
from make_hand_reference import hand_bundle

EXTENSIONS = ('.jpg', '.jpeg', '.png')


def image_files(inputs):
    files = []
    for p in inputs:
        if os.path.isdir(p):
            files += sorted(f for f in glob.glob(os.path.join(p, '*')) if f.lower().endswith(EXTENSIONS))
        else:
            files.append(p)
    return files


def decode(path, decoder, exif_transpose):
    if decoder == 'mediapipe':
        return mp.Image.create_from_file(path)
    with Image.open(path) as im:
        if exif_transpose:
            im = ImageOps.exif_transpose(im)
        rgb = np.ascontiguousarray(np.asarray(im.convert('RGB')))
    return mp.Image(image_format=mp.ImageFormat.SRGB, data=rgb)


def pose_record(name, image, result, num_poses):
    poses = [{'landmarks': [pose_landmark(l) for l in lms], 'worldLandmarks': [pose_landmark(l) for l in world]}
             for lms, world in zip(result.pose_landmarks, result.pose_world_landmarks)]
    return {'image': name, 'width': image.width, 'height': image.height, 'numPoses': num_poses, 'poses': poses}


def hand_record(name, image, r, num_hands):
    hands = [{'handedness': {'index': c[0].index, 'categoryName': c[0].category_name, 'score': float(c[0].score)},
              'landmarks': [[float(l.x), float(l.y), float(l.z)] for l in lms],
              'worldLandmarks': [[float(l.x), float(l.y), float(l.z)] for l in world]}
             for lms, world, c in zip(r.hand_landmarks, r.hand_world_landmarks, r.handedness)]
    return {'image': name, 'width': image.width, 'height': image.height, 'numHands': num_hands, 'hands': hands}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--models', required=True, help='folder with the original .tflite files')
    ap.add_argument('--decoder', choices=('pil', 'mediapipe'), required=True)
    ap.add_argument('--exif-transpose', action='store_true', help='pil only: apply the EXIF orientation')
    ap.add_argument('--pose-out')
    ap.add_argument('--hand-out')
    ap.add_argument('--num-poses', type=int, default=5)
    ap.add_argument('--num-hands', type=int, default=4)
    ap.add_argument('inputs', nargs='+', help='image files or folders')
    a = ap.parse_args()
    if not (a.pose_out or a.hand_out):
        ap.error('give --pose-out and/or --hand-out')
    if a.exif_transpose and a.decoder != 'pil':
        ap.error('--exif-transpose needs --decoder pil (create_from_file ignores EXIF orientation)')
    files = image_files(a.inputs)
    if not files:
        ap.error('no .jpg/.jpeg/.png files found')
    for out in (a.pose_out, a.hand_out):
        if out:
            os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)

    with tempfile.TemporaryDirectory() as tmp:
        pose = hand = None
        if a.pose_out:
            pose = vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
                base_options=BaseOptions(model_asset_path=pose_bundle(a.models, 'full', tmp)), num_poses=a.num_poses))
        if a.hand_out:
            hand = vision.HandLandmarker.create_from_options(vision.HandLandmarkerOptions(
                base_options=BaseOptions(model_asset_path=hand_bundle(a.models, 'full', tmp)), num_hands=a.num_hands))
        pose_file = open(a.pose_out, 'w') if pose else None
        hand_file = open(a.hand_out, 'w') if hand else None
        try:
            for path in files:
                name = os.path.basename(path)
                image = decode(path, a.decoder, a.exif_transpose)
                counts = []
                if pose:
                    rec = pose_record(name, image, pose.detect(image), a.num_poses)
                    pose_file.write(json.dumps(rec) + '\n'); counts.append(f'{len(rec["poses"])} poses')
                if hand:
                    rec = hand_record(name, image, hand.detect(image), a.num_hands)
                    hand_file.write(json.dumps(rec) + '\n'); counts.append(f'{len(rec["hands"])} hands')
                print(f'{a.decoder}{"+exif" if a.exif_transpose else ""} {name} {image.width}x{image.height}: '
                      + ', '.join(counts), file=sys.stderr)
        finally:
            for f in (pose_file, hand_file):
                if f:
                    f.close()
        for lm in (pose, hand):
            if lm:
                lm.close()


if __name__ == '__main__':
    main()
