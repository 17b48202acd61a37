"""Shared by Tools/fixtures/make_pose_reference.py and Tools/fixtures/make_hand_reference.py: MediaPipe Tasks rejects
float models without NormalizationOptions metadata, which the original .tflite files lack, so the
reference scripts add it before bundling the models into temporary .task files."""
import os
import sys
import zipfile
from mediapipe.tasks.python.metadata.metadata_writers import metadata_writer
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'models'))
import builtin_models  # noqa: E402  (Tools/models/builtin_models.py)


def tflite_with_normalization(path, mean, std, outputs):
    """The bytes of `path` with image-input NormalizationOptions (mean, std) and `outputs` feature outputs."""
    writer = metadata_writer.MetadataWriter.create(open(path, 'rb').read())
    writer.add_general_info(os.path.basename(path), 'BlazeKit reference fixture')
    writer.add_image_input(norm_mean=[mean], norm_std=[std])
    for i in range(outputs):
        writer.add_feature_output(name=f'output{i}')
    return writer.populate()[0]


def write_task_bundle(path, models, members):
    """Writes a .task bundle at `path` holding, for each (model name, output count) of `members`, the
    original `models/<name>.tflite` under its .task entry name with the normalization of its input range
    (both from Tools/models/builtin_models.json). Returns `path`."""
    with zipfile.ZipFile(path, 'w') as z:
        for name, outputs in members:
            mean, std = builtin_models.normalization(name)
            z.writestr(builtin_models.task_entry(name),
                       tflite_with_normalization(os.path.join(models, name + '.tflite'), mean, std, outputs))
    return path
