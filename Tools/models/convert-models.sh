#!/usr/bin/env bash
# Re-creates Models/bkm/*.bkm from Google's published MediaPipe models.
#
# Usage: Tools/models/convert-models.sh [SRC_DIR]
#
# Ten models come from the PyPI wheel mediapipe==0.10.14 (fetched with `pip download`).
# pose_landmark_lite.tflite is in no wheel: it is taken from SRC_DIR (argument), or
# $BLAZE_MODELS_SRC, or ../shared/models next to the repository if that exists.
# If pip cannot reach PyPI, all eleven are taken from that directory instead.
# Every file is checked against its pinned SHA-256 before conversion.
#
# Environment: PIP (default "python3 -m pip"), SCRATCH (SwiftPM scratch path, default .build-conv).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SRC_DIR="${1:-${BLAZE_MODELS_SRC:-}}"
if [[ -z "$SRC_DIR" && -d "$ROOT/../shared/models" ]]; then
    SRC_DIR="$(cd "$ROOT/../shared/models" && pwd)"
fi
PIP="${PIP:-python3 -m pip}"
SCRATCH="${SCRATCH:-$ROOT/.build-conv}"
OUT="$ROOT/Models/bkm"

# The models, in order, and the expected sha256 of each .tflite: Tools/models/builtin_models.json (written from
# KnownModel.all in Sources/BlazeModelFormat/KnownModel.swift), read through Tools/models/builtin_models.py.
declare -A SHA256=()
MODELS=()
while read -r name sha; do
    SHA256[$name]=$sha
    MODELS+=("$name")
done < <(python3 "$ROOT/Tools/models/builtin_models.py")
if [[ ${#MODELS[@]} -eq 0 ]]; then
    echo "error: no models read from $ROOT/Tools/models/builtin_models.json (python3 Tools/models/builtin_models.py failed)" >&2
    exit 1
fi
# model name → path inside the mediapipe 0.10.14 wheel
declare -A WHEEL_PATH=(
    [pose_detection]=mediapipe/modules/pose_detection/pose_detection.tflite
    [pose_landmark_full]=mediapipe/modules/pose_landmark/pose_landmark_full.tflite
    [palm_detection_full]=mediapipe/modules/palm_detection/palm_detection_full.tflite
    [palm_detection_lite]=mediapipe/modules/palm_detection/palm_detection_lite.tflite
    [hand_landmark_full]=mediapipe/modules/hand_landmark/hand_landmark_full.tflite
    [hand_landmark_lite]=mediapipe/modules/hand_landmark/hand_landmark_lite.tflite
    [face_detection_short_range]=mediapipe/modules/face_detection/face_detection_short_range.tflite
    [face_landmark]=mediapipe/modules/face_landmark/face_landmark.tflite
    [face_landmark_with_attention]=mediapipe/modules/face_landmark/face_landmark_with_attention.tflite
    [hand_recrop]=mediapipe/modules/holistic_landmark/hand_recrop.tflite
)
LITE_URL="https://storage.googleapis.com/mediapipe-assets/pose_landmark_lite.tflite?generation=1661875901231143"

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/models"

from_source_dir() {  # copy model $1 from SRC_DIR, or explain where to get it
    local name="$1"
    if [[ -n "$SRC_DIR" && -f "$SRC_DIR/$name.tflite" ]]; then
        cp "$SRC_DIR/$name.tflite" "$TMP/models/"
        echo "  $name.tflite: from $SRC_DIR"
    else
        echo "error: $name.tflite not found${SRC_DIR:+ in $SRC_DIR}." >&2
        if [[ "$name" == pose_landmark_lite ]]; then
            echo "  It is not in any PyPI wheel. It is published at $LITE_URL" >&2
            echo "  (sha256 pinned in google-ai-edge/mediapipe third_party/external_files.bzl);" >&2
            echo "  download it into a directory and pass that directory as SRC_DIR." >&2
        fi
        exit 1
    fi
}

echo "Fetching mediapipe==0.10.14 from PyPI…"
if $PIP download --quiet --no-deps -d "$TMP/wheel" mediapipe==0.10.14 2>"$TMP/pip.log"; then
    WHEEL="$(ls "$TMP"/wheel/mediapipe-0.10.14-*.whl | head -n 1)"
    echo "  $(basename "$WHEEL")"
    for name in "${!WHEEL_PATH[@]}"; do
        unzip -q -j -o "$WHEEL" "${WHEEL_PATH[$name]}" -d "$TMP/models"
    done
    from_source_dir pose_landmark_lite
else
    echo "warning: pip download failed ($(tail -n 1 "$TMP/pip.log")); using ${SRC_DIR:-<no SRC_DIR>} for all models" >&2
    for name in "${MODELS[@]}"; do from_source_dir "$name"; done
fi

echo "Checking SHA-256…"
for name in "${MODELS[@]}"; do
    actual="$(sha256sum "$TMP/models/$name.tflite" | cut -d ' ' -f 1)"
    if [[ "$actual" != "${SHA256[$name]}" ]]; then
        echo "error: $name.tflite has sha256 $actual, expected ${SHA256[$name]}" >&2
        exit 1
    fi
    echo "  $name.tflite ok"
done

echo "Building blaze-convert (release)…"
(cd "$ROOT" && swift build -c release --scratch-path "$SCRATCH" --product blaze-convert >/dev/null)
CONVERT="$SCRATCH/release/blaze-convert"

mkdir -p "$OUT"
for name in "${MODELS[@]}"; do
    "$CONVERT" convert "$TMP/models/$name.tflite" -o "$OUT/$name.bkm"
    mkdir -p "$ROOT/.originals" && cp "$TMP/models/$name.tflite" "$ROOT/.originals/"   # for Benchmarks/compare_litert.py
done
echo "Done: ${#MODELS[@]} models in $OUT"
