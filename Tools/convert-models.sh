#!/usr/bin/env bash
# Re-creates Models/bkm/*.bkm from Google's published MediaPipe models.
#
# Usage: Tools/convert-models.sh [SRC_DIR]
#
# Six models come from the PyPI wheel mediapipe==0.10.14 (fetched with `pip download`).
# pose_landmark_lite.tflite is in no wheel: it is taken from SRC_DIR (argument), or
# $BLAZE_MODELS_SRC, or ../shared/models next to the repository if that exists.
# If pip cannot reach PyPI, all seven are taken from that directory instead.
# Every file is checked against its pinned SHA-256 before conversion.
#
# Environment: PIP (default "python3 -m pip"), SCRATCH (SwiftPM scratch path, default .build-conv).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SRC_DIR="${1:-${BLAZE_MODELS_SRC:-}}"
if [[ -z "$SRC_DIR" && -d "$ROOT/../shared/models" ]]; then
    SRC_DIR="$(cd "$ROOT/../shared/models" && pwd)"
fi
PIP="${PIP:-python3 -m pip}"
SCRATCH="${SCRATCH:-$ROOT/.build-conv}"
OUT="$ROOT/Models/bkm"

# model name → expected sha256 of the .tflite (see Models/README.md)
declare -A SHA256=(
    [pose_detection]=9ba9dd3d42efaaba86b4ff0122b06f29c4122e756b329d89dca1e297fd8f866c
    [pose_landmark_full]=e9a5c5cb17f736fafd4c2ec1da3b3d331d6edbe8a0d32395855aeb2cdfd64b9f
    [pose_landmark_lite]=f17bfbecadb61c3be1baa8b8d851cc6619c870a87167b32848ad20db306b9d61
    [palm_detection_full]=1b14e9422c6ad006cde6581a46c8b90dd573c07ab7f3934b5589e7cea3f89a54
    [palm_detection_lite]=e9a4aaddf90dda56a87235303cf00e4c2d3fb28725f68fd88772997dac905c18
    [hand_landmark_full]=11c272b891e1a99ab034208e23937a8008388cf11ed2a9d776ed3d01d0ba00e3
    [hand_landmark_lite]=048edd3645c9bf7397d19a9f6e3a42957d6e414c9bea6598030a2e9b624156e6
)
# model name → path inside the mediapipe 0.10.14 wheel
declare -A WHEEL_PATH=(
    [pose_detection]=mediapipe/modules/pose_detection/pose_detection.tflite
    [pose_landmark_full]=mediapipe/modules/pose_landmark/pose_landmark_full.tflite
    [palm_detection_full]=mediapipe/modules/palm_detection/palm_detection_full.tflite
    [palm_detection_lite]=mediapipe/modules/palm_detection/palm_detection_lite.tflite
    [hand_landmark_full]=mediapipe/modules/hand_landmark/hand_landmark_full.tflite
    [hand_landmark_lite]=mediapipe/modules/hand_landmark/hand_landmark_lite.tflite
)
MODELS=(pose_detection pose_landmark_full pose_landmark_lite palm_detection_full palm_detection_lite
        hand_landmark_full hand_landmark_lite)
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
