#!/usr/bin/env python3
"""Writes the BlazeVision test fixtures into Tests/BlazeVisionTests/Fixtures.

Run by developers (not CI), from the repo root, with the peer venv (mediapipe==0.10.14, numpy, Pillow):
    /tmp/peer-venv/bin/python Tools/make_vision_fixtures.py [--testdata DIR] [--models DIR]
(defaults: ../shared/testdata and ../shared/models next to the repo).

What it writes:
* mpii_004645041_person.jpg: a 450x550 crop (x 560..1010, y 150..700) of MPII photo 004645041, a man facing
  the camera with his right hand raised to the truck and his left hand down at his side. JPEG, to keep it small.
* onehand10k_1402_cut.png: the left 150 columns of OneHand10K photo 1402, which cut the thumb and the index
  fingertip off at the image's right edge (MediaPipe still finds the hand and puts those joints outside).
* vision_fixtures.json: for those two photos (target BlazeVisionTests) and for
  Tests/BlazeKitTests/Fixtures/hand/panoptic_ex2_2.flv_000040_l.png (target BlazeKitTests; the tests read it
  by path): the person's wrists as people labelled them in the source data set (MPII's "l wrist"/"r wrist",
  Panoptic's _l/_r hand annotations), normalized with the origin at the top-left and moved into the crop; and what MediaPipe Tasks' HandLandmarker (full model, IMAGE mode, 2 hands) and
  PoseLandmarker (full, 1 pose) report on the photo and on its horizontally flipped copy: each hand's
  handedness label and wrist, the pose's LEFT_WRIST (15) and RIGHT_WRIST (16), and which hand landmarks lie
  outside the image.

The labels are the evidence for BlazeVision's chirality: on these unmirrored photos MediaPipe's "Left" hand
is the one at the person's labelled left wrist, and the flipped copy swaps every label.
"""
import argparse, io, json, os, tempfile, zipfile
import numpy as np
from PIL import Image
import mediapipe as mp
from mediapipe.tasks.python import vision, BaseOptions
from peer_bundles import tflite_with_normalization

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, 'Tests', 'BlazeVisionTests', 'Fixtures')


def bundle(models, directory, name, parts):
    path = os.path.join(directory, name)
    with zipfile.ZipFile(path, 'w') as z:
        for member, (tflite, mean, std, outputs) in parts.items():
            z.writestr(member, tflite_with_normalization(os.path.join(models, tflite), mean, std, outputs))
    return path


def rounded(v):
    return round(float(v), 4)


def report(hand, pose, rgb):
    """MediaPipe's answer for one RGB array."""
    image = mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(rgb))
    hands, poses = hand.detect(image), pose.detect(image)
    out = {'hands': [], 'poseWrists': None}
    for landmarks, categories in zip(hands.hand_landmarks, hands.handedness):
        out['hands'].append({
            'categoryName': categories[0].category_name, 'score': rounded(categories[0].score),
            'wrist': [rounded(landmarks[0].x), rounded(landmarks[0].y)],
            'outsideImage': [i for i, l in enumerate(landmarks) if not (0 <= l.x <= 1 and 0 <= l.y <= 1)]})
    if poses.pose_landmarks:
        p = poses.pose_landmarks[0]
        out['poseWrists'] = {'left': [rounded(p[15].x), rounded(p[15].y)], 'right': [rounded(p[16].x), rounded(p[16].y)]}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--testdata', default=os.path.join(os.path.dirname(REPO), 'shared', 'testdata'))
    ap.add_argument('--models', default=os.path.join(os.path.dirname(REPO), 'shared', 'models'))
    a = ap.parse_args()
    os.makedirs(OUT, exist_ok=True)
    truth = json.load(open(os.path.join(a.testdata, 'groundtruth.json')))

    def photo(stem):
        return Image.open(os.path.join(a.testdata, 'images', stem + '.png')).convert('RGB')

    entries = []
    # 1. MPII 004645041, cropped around the person. MPII16 joint 10 = r wrist, 15 = l wrist (the person's sides).
    left, top, right, bottom = 560, 150, 1010, 700
    crop = photo('mpii_004645041').crop((left, top, right, bottom))
    buffer = io.BytesIO()
    crop.save(buffer, 'JPEG', quality=90)
    open(os.path.join(OUT, 'mpii_004645041_person.jpg'), 'wb').write(buffer.getvalue())
    k = truth['mpii_004645041'][0]['keypoints']
    w, h = right - left, bottom - top
    wrists = {'left': [rounded((k[15][0] - left) / w), rounded((k[15][1] - top) / h)],
              'right': [rounded((k[10][0] - left) / w), rounded((k[10][1] - top) / h)]}
    entries.append({'target': 'BlazeVisionTests', 'file': 'mpii_004645041_person.jpg', 'source': 'MPII 004645041, crop x 560..1010 y 150..700',
                    'width': w, 'height': h, 'labelledWrists': wrists,
                    'rgb': np.asarray(Image.open(io.BytesIO(buffer.getvalue())).convert('RGB'))})

    # 2. Panoptic ex2_2 frame 40 (already a BlazeKit fixture); its _l and _r annotations are the left and right hand.
    pan = photo('panoptic_ex2_2.flv_000040_l')
    pw, ph = pan.size
    wrists = {side: [rounded(truth[f'panoptic_ex2_2.flv_000040_{s}'][0]['keypoints'][0][0] / pw),
                     rounded(truth[f'panoptic_ex2_2.flv_000040_{s}'][0]['keypoints'][0][1] / ph)]
              for side, s in (('left', 'l'), ('right', 'r'))}
    entries.append({'target': 'BlazeKitTests', 'file': 'hand/panoptic_ex2_2.flv_000040_l.png',
                    'source': 'CMU Panoptic hand set, ex2_2.flv frame 40', 'width': pw, 'height': ph,
                    'labelledWrists': wrists, 'rgb': np.asarray(pan)})

    # 3. OneHand10K 1402 cut at x = 150: thumb and index tip leave the image (no human label needed for this one).
    cut = photo('onehand10k_1402').crop((0, 0, 150, 339))
    cut.save(os.path.join(OUT, 'onehand10k_1402_cut.png'), optimize=True)
    entries.append({'target': 'BlazeVisionTests', 'file': 'onehand10k_1402_cut.png', 'source': 'OneHand10K 1402, columns 0..150',
                    'width': 150, 'height': 339, 'labelledWrists': None, 'rgb': np.asarray(cut)})

    with tempfile.TemporaryDirectory() as tmp:
        hand = vision.HandLandmarker.create_from_options(vision.HandLandmarkerOptions(
            base_options=BaseOptions(model_asset_path=bundle(a.models, tmp, 'hand.task', {
                'hand_detector.tflite': ('palm_detection_full.tflite', 0.0, 255.0, 2),
                'hand_landmarks_detector.tflite': ('hand_landmark_full.tflite', 0.0, 255.0, 4)})), num_hands=2))
        pose = vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
            base_options=BaseOptions(model_asset_path=bundle(a.models, tmp, 'pose.task', {
                'pose_detector.tflite': ('pose_detection.tflite', 127.5, 127.5, 2),
                'pose_landmarks_detector.tflite': ('pose_landmark_full.tflite', 0.0, 255.0, 5)})), num_poses=1))
        for e in entries:
            rgb = e.pop('rgb')
            e['mediapipe'] = {'upright': report(hand, pose, rgb), 'flipped': report(hand, pose, rgb[:, ::-1])}
            print(e['file'], json.dumps(e['labelledWrists']), json.dumps(e['mediapipe']))

    with open(os.path.join(OUT, 'vision_fixtures.json'), 'w') as f:
        json.dump({'generator': 'Tools/make_vision_fixtures.py (MediaPipe Tasks 0.10.14, full models)',
                   'photos': entries}, f, indent=1)
        f.write('\n')


if __name__ == '__main__':
    main()
