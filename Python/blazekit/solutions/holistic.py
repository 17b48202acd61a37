"""MediaPipe's legacy `mp.solutions.holistic`: `Holistic`, which runs the legacy Holistic graph (one person's pose,
tracked and smoothed as `pose.Pose` does, the two hands found from the pose's wrists and the face mesh found from
its head), and what the module exposes: the face mesh, hand and pose indices and connections."""
import types

import numpy as np

from ._legacy import SolutionBase, _check_complexity, _check_unit
# What mediapipe 0.10.14's holistic module exposes, and FACEMESH_IRISES (its face_mesh module's) for the refined face.
from .face_mesh_connections import FACEMESH_CONTOURS, FACEMESH_IRISES, FACEMESH_TESSELATION  # noqa: F401
from .hands import HAND_CONNECTIONS, HandLandmark  # noqa: F401
from .pose import POSE_CONNECTIONS, PoseLandmark  # noqa: F401


class Holistic(SolutionBase):
    """MediaPipe Holistic (legacy Solutions API): the pose, hand and face landmarks of the most prominent person in
    an RGB image.

    Arguments as MediaPipe 0.10.14's: static_image_mode (each image on its own; else a video, tracked),
    model_complexity (the pose landmark network: 0 lite, 1 full, 2 heavy, which BlazeKit does not ship: set
    $BLAZEKIT_POSE_LANDMARK_HEAVY to a pose_landmark_heavy.tflite, see process()), smooth_landmarks,
    enable_segmentation, smooth_segmentation, refine_face_landmarks (the attention face mesh: 478 points, refined
    lips and eyes, the irises last), min_detection_confidence (the pose detector's threshold) and
    min_tracking_confidence (the pose landmark network's presence threshold). BlazeKit's additions, keyword only:
    thread_count (threads per inference; default $BLAZEKIT_NUM_THREADS, else the processors this process may
    use, at most 4), model_path (a pose landmark model to use instead of the built-in one) and
    plan_cache_dir (a directory, made if missing, that keeps the networks' timed kernel choices:
    later solutions made with it skip the timing; the same results)."""
    _outputs = ("pose_landmarks", "pose_world_landmarks", "left_hand_landmarks", "right_hand_landmarks", "face_landmarks",
                "segmentation_mask")

    def __init__(self, static_image_mode=False, model_complexity=1, smooth_landmarks=True, enable_segmentation=False,
                 smooth_segmentation=True, refine_face_landmarks=False, min_detection_confidence=0.5,
                 min_tracking_confidence=0.5, *, thread_count=None, model_path=None, plan_cache_dir=None):
        _check_complexity(model_complexity, (0, 1, 2))
        _check_unit("min_detection_confidence", min_detection_confidence)
        _check_unit("min_tracking_confidence", min_tracking_confidence)
        super().__init__(static_image_mode, plan_cache_dir)
        self._complexity = model_complexity
        self._switches = {"smooth_landmarks": bool(smooth_landmarks), "output_segmentation_mask": bool(enable_segmentation),
                          "smooth_segmentation": bool(smooth_segmentation), "refine_face_landmarks": bool(refine_face_landmarks)}
        self._confidences = (float(min_detection_confidence), float(min_tracking_confidence))
        self._thread_count = thread_count
        self._model_path = model_path
        self._start()

    def _make_task(self):
        from ._holistic_task import HolisticLandmarker

        def fill(c):
            c.model = 1 if self._complexity == 0 else 0     # blazekit_model: FULL 0, LITE 1
            c.min_pose_detection_confidence, c.min_pose_landmarks_confidence = self._confidences
            for name, on in self._switches.items():
                setattr(c, name, int(on))
            c.solution_clock = 1
        options = types.SimpleNamespace(base_options=self._pose_base_options(), running_mode=self._running_mode,
                                        result_callback=None)
        return HolisticLandmarker._create(options, fill)

    def _outputs_of(self, result):
        return result

    def process(self, image: np.ndarray):
        """The pose, hands and face of the most prominent person in `image` (RGB, uint8, height x width x 3): a
        named tuple of pose_landmarks (a NormalizedLandmarkList of 33 with visibility), pose_world_landmarks (a
        LandmarkList of 33, metres, origin between the hips), left_hand_landmarks and right_hand_landmarks (21
        each: the person's left and right hand), face_landmarks (468, or 478 with refine_face_landmarks) and
        segmentation_mask (float32, the image's size, with enable_segmentation), each None when not found (all of
        them when no one is). Raises ValueError for an image that is not three-channel RGB and after close();
        RuntimeError when model_complexity=2 has no heavy model to run."""
        return super().process(image)
