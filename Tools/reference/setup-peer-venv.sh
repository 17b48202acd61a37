#!/usr/bin/env bash
# Creates (or updates) the Python venv used by Tools/fixtures/make_litert_fixtures.py and
# Benchmarks/compare_litert.py: ai-edge-litert (the LiteRT interpreter), numpy, pillow;
# with --with-mediapipe also mediapipe==0.10.14 (the wheel that ships the same .tflite files).
#
# Usage: Tools/reference/setup-peer-venv.sh [--with-mediapipe] [DIR]     (default DIR: .venv-peer in the repo root)
# Idempotent: an existing venv is reused and packages already installed are left alone.
set -euo pipefail

with_mediapipe=0
dir=""
for arg in "$@"; do
  case "$arg" in
    --with-mediapipe) with_mediapipe=1 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    -*) echo "unknown option: $arg" >&2; exit 2 ;;
    *) [ -z "$dir" ] || { echo "only one DIR allowed" >&2; exit 2; }; dir=$arg ;;
  esac
done
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir=${dir:-$repo/.venv-peer}
python=${PYTHON:-python3}

if [ ! -x "$dir/bin/python" ]; then
  echo "creating venv $dir"
  "$python" -m venv "$dir"
else
  echo "reusing venv $dir"
fi

pkgs=(ai-edge-litert numpy pillow)
[ "$with_mediapipe" = 1 ] && pkgs+=("mediapipe==0.10.14")

# Only touch pip when something is missing (keeps reruns fast and offline-friendly).
if ! "$dir/bin/python" - "${pkgs[@]}" <<'PY'
import sys, importlib.metadata as md
for spec in sys.argv[1:]:
    name, _, want = spec.partition("==")
    try:
        have = md.version(name)
    except md.PackageNotFoundError:
        sys.exit(1)
    if want and have != want:
        sys.exit(1)
PY
then
  "$dir/bin/python" -m pip install -q --upgrade pip
  "$dir/bin/python" -m pip install -q "${pkgs[@]}"
fi

"$dir/bin/python" - "$with_mediapipe" <<'PY'
import sys, importlib.metadata as md
import numpy, PIL
from ai_edge_litert.interpreter import Interpreter  # noqa: F401
line = f"peer venv ready: ai-edge-litert {md.version('ai-edge-litert')}, numpy {numpy.__version__}, pillow {PIL.__version__}"
if sys.argv[1] == "1":
    import mediapipe
    line += f", mediapipe {mediapipe.__version__}"
print(line)
PY
echo "use: $dir/bin/python Tools/fixtures/make_litert_fixtures.py"
