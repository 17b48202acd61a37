from . import landmark_pb2
from . import classification_pb2
