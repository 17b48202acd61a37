# Google's legacy MediaPipe Hands sample, "For static images:" part, as published in MediaPipe's docs.
# Source: https://github.com/google-ai-edge/mediapipe, docs/solutions/hands.md (blob 45ab776aa531ec78e134cb0afde8b52cddd80f36),
#   at commit 85c0cdc7d70653888903c88df45962b764296342 (file last changed in 3eb8983cde1517fdff4abbfb33586316af6d45be 2024-11-15).
#   The file's ```python block (from its line 243): its preamble (imports, mp_* aliases),
#   then the "For static images:" program. Made by _make_samples.py; `_make_samples.py --check` re-derives it.
# Changed lines (+ added, - removed, ~ replaced); every other line below this header is Google's:
#   +  import sys
#   +  import _record  # BlazeKit harness, not Google's: LEGACY_MP=blazekit runs this on blazekit; see _record.py
#   ~  IMAGE_FILES = []  ->  IMAGE_FILES = sys.argv[1:]
# Run: python hands_static.py PHOTO...    (LEGACY_MP=blazekit: the same text on blazekit; see _record.py,
#   which also records every process() result as JSON Lines to $LEGACY_RECORD)

import cv2
import sys
import _record  # BlazeKit harness, not Google's: LEGACY_MP=blazekit runs this on blazekit; see _record.py
import mediapipe as mp
mp_drawing = mp.solutions.drawing_utils
mp_drawing_styles = mp.solutions.drawing_styles
mp_hands = mp.solutions.hands

# For static images:
IMAGE_FILES = sys.argv[1:]
with mp_hands.Hands(
    static_image_mode=True,
    max_num_hands=2,
    min_detection_confidence=0.5) as hands:
  for idx, file in enumerate(IMAGE_FILES):
    # Read an image, flip it around y-axis for correct handedness output (see
    # above).
    image = cv2.flip(cv2.imread(file), 1)
    # Convert the BGR image to RGB before processing.
    results = hands.process(cv2.cvtColor(image, cv2.COLOR_BGR2RGB))

    # Print handedness and draw hand landmarks on the image.
    print('Handedness:', results.multi_handedness)
    if not results.multi_hand_landmarks:
      continue
    image_height, image_width, _ = image.shape
    annotated_image = image.copy()
    for hand_landmarks in results.multi_hand_landmarks:
      print('hand_landmarks:', hand_landmarks)
      print(
          f'Index finger tip coordinates: (',
          f'{hand_landmarks.landmark[mp_hands.HandLandmark.INDEX_FINGER_TIP].x * image_width}, '
          f'{hand_landmarks.landmark[mp_hands.HandLandmark.INDEX_FINGER_TIP].y * image_height})'
      )
      mp_drawing.draw_landmarks(
          annotated_image,
          hand_landmarks,
          mp_hands.HAND_CONNECTIONS,
          mp_drawing_styles.get_default_hand_landmarks_style(),
          mp_drawing_styles.get_default_hand_connections_style())
    cv2.imwrite(
        '/tmp/annotated_image' + str(idx) + '.png', cv2.flip(annotated_image, 1))
    # Draw hand world landmarks.
    if not results.multi_hand_world_landmarks:
      continue
    for hand_world_landmarks in results.multi_hand_world_landmarks:
      mp_drawing.plot_landmarks(
        hand_world_landmarks, mp_hands.HAND_CONNECTIONS, azimuth=5)
