# Google's legacy MediaPipe Holistic sample, "For static images:" part, as published in MediaPipe's docs.
# Source: https://github.com/google-ai-edge/mediapipe, docs/solutions/holistic.md (blob f192b4811e02a43405b8907155d8229612025254),
#   at commit 85c0cdc7d70653888903c88df45962b764296342 (file last changed in 3eb8983cde1517fdff4abbfb33586316af6d45be 2024-11-15).
#   The file's ```python block (from its line 263): its preamble (imports, mp_* aliases),
#   then the "For static images:" program. Made by _make_samples.py; `_make_samples.py --check` re-derives it.
# Changed lines (+ added, - removed, ~ replaced); every other line below this header is Google's:
#   +  import numpy as np  # missing in Google's text
#   +  import sys
#   +  import _record  # BlazeKit harness, not Google's: LEGACY_MP=blazekit runs this on blazekit; see _record.py
#   ~  IMAGE_FILES = []  ->  IMAGE_FILES = sys.argv[1:]
# Run: python holistic_static.py PHOTO...    (LEGACY_MP=blazekit: the same text on blazekit; see _record.py,
#   which also records every process() result as JSON Lines to $LEGACY_RECORD)

import cv2
import sys
import _record  # BlazeKit harness, not Google's: LEGACY_MP=blazekit runs this on blazekit; see _record.py
import numpy as np  # missing in Google's text
import mediapipe as mp
mp_drawing = mp.solutions.drawing_utils
mp_drawing_styles = mp.solutions.drawing_styles
mp_holistic = mp.solutions.holistic

# For static images:
IMAGE_FILES = sys.argv[1:]
BG_COLOR = (192, 192, 192) # gray
with mp_holistic.Holistic(
    static_image_mode=True,
    model_complexity=2,
    enable_segmentation=True,
    refine_face_landmarks=True) as holistic:
  for idx, file in enumerate(IMAGE_FILES):
    image = cv2.imread(file)
    image_height, image_width, _ = image.shape
    # Convert the BGR image to RGB before processing.
    results = holistic.process(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))

    if results.pose_landmarks:
      print(
          f'Nose coordinates: ('
          f'{results.pose_landmarks.landmark[mp_holistic.PoseLandmark.NOSE].x * image_width}, '
          f'{results.pose_landmarks.landmark[mp_holistic.PoseLandmark.NOSE].y * image_height})'
      )

    annotated_image = image.copy()
    # Draw segmentation on the image.
    # To improve segmentation around boundaries, consider applying a joint
    # bilateral filter to "results.segmentation_mask" with "image".
    condition = np.stack((results.segmentation_mask,) * 3, axis=-1) > 0.1
    bg_image = np.zeros(image.shape, dtype=np.uint8)
    bg_image[:] = BG_COLOR
    annotated_image = np.where(condition, annotated_image, bg_image)
    # Draw pose, left and right hands, and face landmarks on the image.
    mp_drawing.draw_landmarks(
        annotated_image,
        results.face_landmarks,
        mp_holistic.FACEMESH_TESSELATION,
        landmark_drawing_spec=None,
        connection_drawing_spec=mp_drawing_styles
        .get_default_face_mesh_tesselation_style())
    mp_drawing.draw_landmarks(
        annotated_image,
        results.pose_landmarks,
        mp_holistic.POSE_CONNECTIONS,
        landmark_drawing_spec=mp_drawing_styles.
        get_default_pose_landmarks_style())
    cv2.imwrite('/tmp/annotated_image' + str(idx) + '.png', annotated_image)
    # Plot pose world landmarks.
    mp_drawing.plot_landmarks(
        results.pose_world_landmarks, mp_holistic.POSE_CONNECTIONS)
