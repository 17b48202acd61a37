from . import landmark_pb2
