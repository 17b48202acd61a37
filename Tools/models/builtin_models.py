#!/usr/bin/env python3
"""The facts of BlazeKit's seven built-in models for the scripts under Tools/ and Benchmarks/.

They are read from Tools/models/builtin_models.json, which `swift run blaze-convert models --json` writes
from KnownModel.all (Sources/BlazeModelFormat/KnownModel.swift), the one table of them; a test fails
when the file and the table disagree. Scripts take model names, SHA-256s, input ranges and .task entry
names from here instead of restating them.

Run as a program it prints one line per model, `NAME SHA256`, for Tools/models/convert-models.sh.
"""
import json
import os

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'builtin_models.json')

with open(PATH, encoding='utf-8') as _f:
    MODELS = json.load(_f)['models']
NAMES = [m['name'] for m in MODELS]
BY_NAME = {m['name']: m for m in MODELS}


def value_range(name):
    """(lo, hi): the floats that pixel values 0 and 255 map to."""
    lo, hi = BY_NAME[name]['inputRange']
    return float(lo), float(hi)


def normalization(name):
    """(mean, std) of the model's NormalizationOptions: (pixel - mean) / std spans value_range(name)."""
    lo, hi = value_range(name)
    std = 255.0 / (hi - lo)
    return 0.0 - lo * std, std   # 0.0 - …: a mean of +0.0, not -0.0, for lo = 0


def task_entry(name):
    """The model's entry in MediaPipe's .task bundles, e.g. 'pose_detector.tflite'."""
    return BY_NAME[name]['taskBundleEntry']


def sha256(name):
    """Lowercase hex SHA-256 of the original .tflite."""
    return BY_NAME[name]['sourceSHA256']


if __name__ == '__main__':
    for m in MODELS:
        print(m['name'], m['sourceSHA256'])
