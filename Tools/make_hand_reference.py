#!/usr/bin/env python3
"""Runs MediaPipe Tasks 0.10.14 (the peer) HandLandmarker in IMAGE mode on PNG photos and writes
BlazeKit test fixtures: the photos and one JSON Lines file in `blaze hand`'s output format per model
variant.

Usage (from the repo root, with the venv of Tools/setup-peer-venv.sh --with-mediapipe):
  .venv-peer/bin/python Tools/make_hand_reference.py --models DIR_OF_TFLITE --out Tests/BlazeKitTests/Fixtures/hand PHOTO.png...

MediaPipe Tasks needs NormalizationOptions metadata in its .tflite files, so the script writes
temporary .task bundles with it added (mean and std from each model's input range in
Tools/builtin_models.json: [0, 1] for palm_detection and hand_landmark, i.e. mean 0, std 255).
"""
import argparse, json, os, shutil, tempfile
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions
from peer_bundles import write_task_bundle



def hand_bundle(models, variant, directory):
    """hand_landmarker_<variant>.task in `directory`: the palm detector (2 outputs) and the landmark model (4)."""
    return write_task_bundle(os.path.join(directory, f'hand_landmarker_{variant}.task'), models,
                             [(f'palm_detection_{variant}', 2), (f'hand_landmark_{variant}', 4)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--models', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--num-hands', type=int, default=4)
    ap.add_argument('photos', nargs='+')
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for variant in ('full', 'lite'):
            landmarker = vision.HandLandmarker.create_from_options(vision.HandLandmarkerOptions(
                base_options=BaseOptions(model_asset_path=hand_bundle(a.models, variant, tmp)), num_hands=a.num_hands))
            with open(os.path.join(a.out, f'reference_{variant}.jsonl'), 'w') as jsonl:
                for photo in a.photos:
                    name = os.path.basename(photo)
                    if variant == 'full':
                        shutil.copyfile(photo, os.path.join(a.out, name))
                    image = mp.Image.create_from_file(photo)
                    r = landmarker.detect(image)
                    hands = [{'handedness': {'index': c[0].index, 'categoryName': c[0].category_name, 'score': float(c[0].score)},
                              'landmarks': [[float(l.x), float(l.y), float(l.z)] for l in lms],
                              'worldLandmarks': [[float(l.x), float(l.y), float(l.z)] for l in world]}
                             for lms, world, c in zip(r.hand_landmarks, r.hand_world_landmarks, r.handedness)]
                    jsonl.write(json.dumps({'image': name, 'width': image.width, 'height': image.height,
                                            'numHands': a.num_hands, 'hands': hands}) + '\n')
                    print(variant, name, len(hands), 'hands')


if __name__ == '__main__':
    main()
