"""MediaPipe's legacy `mp.solutions.pose`: `Pose`, which runs the legacy pose graph (one person, tracked from
frame to frame, its landmarks and mask smoothed), and the landmark indices and connections."""
import enum

import numpy as np

from ..framework.formats import landmark_pb2
from ._legacy import SolutionBase, _check_complexity, _check_unit


class PoseLandmark(enum.IntEnum):
    NOSE = 0
    LEFT_EYE_INNER = 1
    LEFT_EYE = 2
    LEFT_EYE_OUTER = 3
    RIGHT_EYE_INNER = 4
    RIGHT_EYE = 5
    RIGHT_EYE_OUTER = 6
    LEFT_EAR = 7
    RIGHT_EAR = 8
    MOUTH_LEFT = 9
    MOUTH_RIGHT = 10
    LEFT_SHOULDER = 11
    RIGHT_SHOULDER = 12
    LEFT_ELBOW = 13
    RIGHT_ELBOW = 14
    LEFT_WRIST = 15
    RIGHT_WRIST = 16
    LEFT_PINKY = 17
    RIGHT_PINKY = 18
    LEFT_INDEX = 19
    RIGHT_INDEX = 20
    LEFT_THUMB = 21
    RIGHT_THUMB = 22
    LEFT_HIP = 23
    RIGHT_HIP = 24
    LEFT_KNEE = 25
    RIGHT_KNEE = 26
    LEFT_ANKLE = 27
    RIGHT_ANKLE = 28
    LEFT_HEEL = 29
    RIGHT_HEEL = 30
    LEFT_FOOT_INDEX = 31
    RIGHT_FOOT_INDEX = 32


POSE_CONNECTIONS = frozenset([
    (0, 1), (1, 2), (2, 3), (3, 7), (0, 4), (4, 5), (5, 6), (6, 8), (9, 10), (11, 12), (11, 13), (13, 15),
    (15, 17), (15, 19), (15, 21), (17, 19), (12, 14), (14, 16), (16, 18), (16, 20), (16, 22), (18, 20),
    (11, 23), (12, 24), (23, 24), (23, 25), (24, 26), (25, 27), (26, 28), (27, 29), (28, 30), (29, 31),
    (30, 32), (27, 31), (28, 32)])


class Pose(SolutionBase):
    """MediaPipe Pose (legacy Solutions API): the landmarks of the most prominent person in an RGB image.

    Arguments as MediaPipe 0.10.14's: static_image_mode (each image on its own; else a video, tracked),
    model_complexity (0 lite, 1 full, 2 heavy: BlazeKit ships no heavy model; set
    $BLAZEKIT_POSE_LANDMARK_HEAVY to a pose_landmark_heavy.tflite, see process()), smooth_landmarks,
    enable_segmentation, smooth_segmentation, min_detection_confidence (the detector's threshold) and
    min_tracking_confidence (the landmark network's presence threshold). BlazeKit's additions, keyword only:
    thread_count (threads per inference; default $BLAZEKIT_NUM_THREADS, else the processors this process may
    use, at most 4), model_path (a pose landmark model to use instead of the built-in one) and
    plan_cache_dir (a directory, made if missing, that keeps the networks' timed kernel choices:
    later solutions made with it skip the timing; the same results)."""
    _outputs = ("pose_landmarks", "pose_world_landmarks", "segmentation_mask")

    def __init__(self, static_image_mode=False, model_complexity=1, smooth_landmarks=True, enable_segmentation=False,
                 smooth_segmentation=True, min_detection_confidence=0.5, min_tracking_confidence=0.5, *,
                 thread_count=None, model_path=None, plan_cache_dir=None):
        _check_complexity(model_complexity, (0, 1, 2))
        _check_unit("min_detection_confidence", min_detection_confidence)
        _check_unit("min_tracking_confidence", min_tracking_confidence)
        super().__init__(static_image_mode, plan_cache_dir)
        self._complexity = model_complexity
        self._smooth_landmarks = bool(smooth_landmarks)
        self._segmentation = bool(enable_segmentation)
        self._smooth_segmentation = bool(smooth_segmentation)
        self._confidences = (float(min_detection_confidence), float(min_tracking_confidence))
        self._thread_count = thread_count
        self._model_path = model_path
        self._start()

    def _make_task(self):
        from ..tasks.python import vision
        options = vision.PoseLandmarkerOptions(
            base_options=self._pose_base_options(), running_mode=self._running_mode, num_poses=1,
            min_pose_detection_confidence=self._confidences[0], min_pose_presence_confidence=self._confidences[1],
            output_segmentation_masks=self._segmentation)

        def legacy(c):
            c.model = 1 if self._complexity == 0 else 0     # blazekit_model: FULL 0, LITE 1
            c.legacy_solution = 1
            c.smooth_landmarks = int(self._smooth_landmarks)
            c.smooth_segmentation = int(self._smooth_segmentation)
            c.solution_clock = 1
        return vision.PoseLandmarker._create_with(options, legacy)

    def _outputs_of(self, result):
        if not result.pose_landmarks:
            return {"pose_landmarks": None, "pose_world_landmarks": None, "segmentation_mask": None}
        # As mediapipe 0.10.14's legacy graph gives them: visibility set, presence unset.
        landmarks = landmark_pb2.NormalizedLandmarkList(
            [landmark_pb2.NormalizedLandmark(x=l.x, y=l.y, z=l.z, visibility=l.visibility) for l in result.pose_landmarks[0]])
        world = landmark_pb2.LandmarkList(
            [landmark_pb2.Landmark(x=l.x, y=l.y, z=l.z, visibility=l.visibility) for l in result.pose_world_landmarks[0]])
        mask = None
        if result.segmentation_masks:
            mask = np.array(result.segmentation_masks[0].numpy_view(), dtype=np.float32)
        return {"pose_landmarks": landmarks, "pose_world_landmarks": world, "segmentation_mask": mask}

    def process(self, image: np.ndarray):
        """The pose of the most prominent person in `image` (RGB, uint8, height x width x 3): a named tuple of
        pose_landmarks (a NormalizedLandmarkList of 33), pose_world_landmarks (a LandmarkList of 33, metres,
        origin between the hips) and segmentation_mask (float32, the image's size, with enable_segmentation),
        each None when no one is found. Raises ValueError for an image that is not three-channel RGB and after
        close(); RuntimeError when model_complexity=2 has no heavy model to run."""
        return super().process(image)
