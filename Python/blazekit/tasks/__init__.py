"""BlazeKit tasks (MediaPipe's mediapipe.tasks): `from blazekit.tasks import python`."""
