#!/usr/bin/env bash
# Builds the Python wheel (libblazekit.so with the Swift runtime and Foundation linked statically, plus the
# built-in models), installs it into a fresh venv, checks with ldd that the library needs nothing from the Swift
# toolchain's folder, and runs the Python tests with the toolchain removed from PATH.
#   Tools/checks/pywheel.sh [OUT_DIR]      (default .build/wheel; the first run builds a release configuration, minutes)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.build/wheel}
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
rm -rf "$out" && mkdir -p "$out"
python3 -m pip wheel -q ./Python -w "$out" --no-deps
wheel=$(ls "$out"/blazekit-*.whl)
echo "wheel: $wheel ($(du -h "$wheel" | cut -f1))"
python3 -m venv "$out/venv"
"$out/venv/bin/python" -m pip install -q "$wheel" pytest opencv-python-headless
lib=$("$out/venv/bin/python" -c 'import blazekit, os; print(os.path.join(os.path.dirname(blazekit.__file__), "_lib", "libblazekit.so"))')
echo "ldd $lib:"
ldd "$lib" | sed 's/^/  /'
if ldd "$lib" | grep -q "$toolchain"; then
  echo "FAIL: the library needs files under $toolchain"
  exit 1
fi
env -i PATH=/usr/bin:/bin HOME="${HOME:-/tmp}" "$out/venv/bin/python" -m pytest -q Python/tests
