"""Shared by Tools/make_pose_reference.py and Tools/make_hand_reference.py: MediaPipe Tasks rejects
float models without NormalizationOptions metadata, which the original .tflite files lack, so the
reference scripts add it before bundling the models into temporary .task files."""
import os
from mediapipe.tasks.python.metadata.metadata_writers import metadata_writer


def tflite_with_normalization(path, mean, std, outputs):
    """The bytes of `path` with image-input NormalizationOptions (mean, std) and `outputs` feature outputs."""
    writer = metadata_writer.MetadataWriter.create(open(path, 'rb').read())
    writer.add_general_info(os.path.basename(path), 'BlazeKit reference fixture')
    writer.add_image_input(norm_mean=[mean], norm_std=[std])
    for i in range(outputs):
        writer.add_feature_output(name=f'output{i}')
    return writer.populate()[0]
