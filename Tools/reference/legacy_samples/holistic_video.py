# Google's legacy MediaPipe Holistic sample, "For webcam input:" part, as published in MediaPipe's docs.
# Source: https://github.com/google-ai-edge/mediapipe, docs/solutions/holistic.md (blob f192b4811e02a43405b8907155d8229612025254),
#   at commit 85c0cdc7d70653888903c88df45962b764296342 (file last changed in 3eb8983cde1517fdff4abbfb33586316af6d45be 2024-11-15).
#   The file's ```python block (from its line 263): its preamble (imports, mp_* aliases),
#   then the "For webcam input:" program. Made by _make_samples.py; `_make_samples.py --check` re-derives it.
# Changed lines (+ added, - removed, ~ replaced); every other line below this header is Google's:
#   +  import sys
#   +  import _record  # BlazeKit harness, not Google's: LEGACY_MP=blazekit runs this on blazekit; see _record.py
#   ~  cap = cv2.VideoCapture(0)  ->  cap = cv2.VideoCapture(sys.argv[1])
#   ~  continue  ->  break
#   -  cv2.imshow('MediaPipe Holistic', cv2.flip(image, 1))
#   -  if cv2.waitKey(5) & 0xFF == 27:
#   -  break
# Run: python holistic_video.py VIDEO_FILE    (LEGACY_MP=blazekit: the same text on blazekit; see _record.py,
#   which also records every process() result as JSON Lines to $LEGACY_RECORD)

import cv2
import sys
import _record  # BlazeKit harness, not Google's: LEGACY_MP=blazekit runs this on blazekit; see _record.py
import mediapipe as mp
mp_drawing = mp.solutions.drawing_utils
mp_drawing_styles = mp.solutions.drawing_styles
mp_holistic = mp.solutions.holistic

# For webcam input:
cap = cv2.VideoCapture(sys.argv[1])
with mp_holistic.Holistic(
    min_detection_confidence=0.5,
    min_tracking_confidence=0.5) as holistic:
  while cap.isOpened():
    success, image = cap.read()
    if not success:
      print("Ignoring empty camera frame.")
      # If loading a video, use 'break' instead of 'continue'.
      break

    # To improve performance, optionally mark the image as not writeable to
    # pass by reference.
    image.flags.writeable = False
    image = cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
    results = holistic.process(image)

    # Draw landmark annotation on the image.
    image.flags.writeable = True
    image = cv2.cvtColor(image, cv2.COLOR_RGB2BGR)
    mp_drawing.draw_landmarks(
        image,
        results.face_landmarks,
        mp_holistic.FACEMESH_CONTOURS,
        landmark_drawing_spec=None,
        connection_drawing_spec=mp_drawing_styles
        .get_default_face_mesh_contours_style())
    mp_drawing.draw_landmarks(
        image,
        results.pose_landmarks,
        mp_holistic.POSE_CONNECTIONS,
        landmark_drawing_spec=mp_drawing_styles
        .get_default_pose_landmarks_style())
    # Flip the image horizontally for a selfie-view display.
cap.release()
