# Google's legacy MediaPipe Pose sample, "For static images:" part, as published in MediaPipe's docs.
# Source: https://github.com/google-ai-edge/mediapipe, docs/solutions/pose.md (blob d7390981f4b2ca2a26004d9bcb7a2f059666ae23),
#   at commit 85c0cdc7d70653888903c88df45962b764296342 (file last changed in 3eb8983cde1517fdff4abbfb33586316af6d45be 2024-11-15).
#   The file's ```python block (from its line 269): its preamble (imports, mp_* aliases),
#   then the "For static images:" program. Made by _make_samples.py; `_make_samples.py --check` re-derives it.
# Changed lines (+ added, - removed, ~ replaced); every other line below this header is Google's:
#   +  import sys
#   +  import _record  # BlazeKit harness, not Google's: LEGACY_MP=blazekit runs this on blazekit; see _record.py
#   ~  IMAGE_FILES = []  ->  IMAGE_FILES = sys.argv[1:]
# Run: python pose_static.py PHOTO...    (LEGACY_MP=blazekit: the same text on blazekit; see _record.py,
#   which also records every process() result as JSON Lines to $LEGACY_RECORD)

import cv2
import sys
import _record  # BlazeKit harness, not Google's: LEGACY_MP=blazekit runs this on blazekit; see _record.py
import mediapipe as mp
import numpy as np
mp_drawing = mp.solutions.drawing_utils
mp_drawing_styles = mp.solutions.drawing_styles
mp_pose = mp.solutions.pose

# For static images:
IMAGE_FILES = sys.argv[1:]
BG_COLOR = (192, 192, 192) # gray
with mp_pose.Pose(
    static_image_mode=True,
    model_complexity=2,
    enable_segmentation=True,
    min_detection_confidence=0.5) as pose:
  for idx, file in enumerate(IMAGE_FILES):
    image = cv2.imread(file)
    image_height, image_width, _ = image.shape
    # Convert the BGR image to RGB before processing.
    results = pose.process(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))

    if not results.pose_landmarks:
      continue
    print(
        f'Nose coordinates: ('
        f'{results.pose_landmarks.landmark[mp_pose.PoseLandmark.NOSE].x * image_width}, '
        f'{results.pose_landmarks.landmark[mp_pose.PoseLandmark.NOSE].y * image_height})'
    )

    annotated_image = image.copy()
    # Draw segmentation on the image.
    # To improve segmentation around boundaries, consider applying a joint
    # bilateral filter to "results.segmentation_mask" with "image".
    condition = np.stack((results.segmentation_mask,) * 3, axis=-1) > 0.1
    bg_image = np.zeros(image.shape, dtype=np.uint8)
    bg_image[:] = BG_COLOR
    annotated_image = np.where(condition, annotated_image, bg_image)
    # Draw pose landmarks on the image.
    mp_drawing.draw_landmarks(
        annotated_image,
        results.pose_landmarks,
        mp_pose.POSE_CONNECTIONS,
        landmark_drawing_spec=mp_drawing_styles.get_default_pose_landmarks_style())
    cv2.imwrite('/tmp/annotated_image' + str(idx) + '.png', annotated_image)
    # Plot pose world landmarks.
    mp_drawing.plot_landmarks(
        results.pose_world_landmarks, mp_pose.POSE_CONNECTIONS)
