"""Shared helpers. The tests read the repository's own fixture photos (Tests/BlazeKitTests/Fixtures) and
models (Models/bkm) by path, and the Swift API's results from tests/fixtures/swift_results.json."""
import json
import os

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(REPO, "Tests", "BlazeKitTests", "Fixtures")
MODELS = os.path.join(REPO, "Models", "bkm")
SWIFT_RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "swift_results.json")


def photo_path(task, name):
    return os.path.join(FIXTURES, task, name)


@pytest.fixture(scope="session")
def swift_results():
    with open(SWIFT_RESULTS) as f:
        return json.load(f)


def fnv1a(mask: np.ndarray) -> str:
    """FNV-1a 64 of the mask's little-endian float32 bytes (as the Swift fixture test computes it)."""
    h = 0xcbf29ce484222325
    for b in np.ascontiguousarray(mask, dtype="<f4").tobytes():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return format(h, "x")


def same_float(a, b) -> bool:
    """Bit-for-bit equality of two float32 values (b from JSON, shortest round-trip decimal)."""
    return np.float32(a).tobytes() == np.float32(b).tobytes()


def assert_landmarks(actual, expected, what):
    assert len(actual) == len(expected), f"{what}: {len(actual)} vs {len(expected)} groups"
    for g, (group, want) in enumerate(zip(actual, expected)):
        assert len(group) == len(want), f"{what}[{g}]: {len(group)} vs {len(want)} landmarks"
        for i, (lm, w) in enumerate(zip(group, want)):
            x, y, z, vis, pres = w
            for name, a, b in (("x", lm.x, x), ("y", lm.y, y), ("z", lm.z, z)):
                assert same_float(a, b), f"{what}[{g}][{i}].{name}: {a!r} != {b!r}"
            assert same_float(lm.visibility, 0.0 if vis is None else vis), f"{what}[{g}][{i}].visibility"
            assert same_float(lm.presence, 0.0 if pres is None else pres), f"{what}[{g}][{i}].presence"


def assert_pose(result, expected, what):
    assert_landmarks(result.pose_landmarks, expected["landmarks"], what + ".pose_landmarks")
    assert_landmarks(result.pose_world_landmarks, expected["world"], what + ".pose_world_landmarks")
    masks = result.segmentation_masks or []
    got = [f"{m.width}x{m.height}:{fnv1a(m.numpy_view())}" for m in masks]
    assert got == expected["masks"], f"{what}.segmentation_masks"


def assert_hand(result, expected, what):
    assert len(result.handedness) == len(expected["handedness"])
    for cats, want in zip(result.handedness, expected["handedness"]):
        assert len(cats) == len(want) == 1
        index, score, name, display = want[0].split(" ")
        c = cats[0]
        assert c.index == int(index) and same_float(c.score, float(score)), f"{what}.handedness"
        assert c.category_name == name and c.display_name == display
    assert_landmarks(result.hand_landmarks, expected["landmarks"], what + ".hand_landmarks")
    assert_landmarks(result.hand_world_landmarks, expected["world"], what + ".hand_world_landmarks")
