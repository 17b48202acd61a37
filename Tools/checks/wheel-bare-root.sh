#!/usr/bin/env bash
# Proves that pip alone installs the wheels: a minimal Debian 12 root (mmdebstrap --variant=minbase) holding only
# python3, python3-venv and python3-pip — no OpenBLAS, libpng, libjpeg-turbo, libgfortran, Swift or compiler —
# gets a venv, `pip install` of pyblazekit's wheel with the two model wheels it depends on
# (pyblazekit-models-pose, pyblazekit-models-hands-face; numpy and pytest from PyPI, no OpenCV), and runs the Python tests of the
# IMAGE and VIDEO running modes (pytest -k "image or video" over Python/tests: the parity tests against the Swift
# API's results bit for bit, the legacy Solutions in static and video mode, ...); the tests that need OpenCV skip.
#   Tools/checks/wheel-bare-root.sh [WHEEL_DIR] [PYTEST_ARGS...]
# WHEEL_DIR (default .build-wheel/wheel) holds the manylinux wheel and the model wheels Tools/checks/pywheel.sh
# left there. Needs root, mmdebstrap
# (apt-get install mmdebstrap) and the network to Debian's mirror and PyPI; takes a few minutes. PYTEST_ARGS
# replace the default selection (`-k "image or video"`), e.g. `-q` alone for the whole suite.
# The root is made in a temporary folder and removed at the end (BLAZEKIT_KEEP_ROOT=1 keeps it).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
wheel_dir=${1:-$repo/.build-wheel/wheel}
shift || true
wheel=$(ls "$wheel_dir"/pyblazekit-*manylinux*.whl 2>/dev/null | head -1)
models=$(ls "$wheel_dir"/pyblazekit_models_*.whl 2>/dev/null || true)
if [[ -z "$wheel" || $(wc -w <<< "$models") -ne 2 ]]; then
  echo "no wheels in $wheel_dir (pyblazekit-*manylinux*.whl and two pyblazekit_models_*.whl): run Tools/checks/pywheel.sh first" >&2
  exit 2
fi
if [[ $# -eq 0 ]]; then set -- -k "image or video"; fi
command -v mmdebstrap >/dev/null || { echo "mmdebstrap is needed: apt-get install mmdebstrap" >&2; exit 2; }
work=$(mktemp -d /tmp/blazekit-bare-root.XXXXXX)
cleanup() { if [[ "${BLAZEKIT_KEEP_ROOT:-}" != 1 ]]; then rm -rf "$work"; else echo "root kept: $work/root"; fi; }
trap cleanup EXIT
# What goes into the root: the wheel, the tests and the repository files they read by path (the fixture photos,
# Benchmarks/photos and Models/bkm); not Python/blazekit, so `import blazekit` can only find the installed wheel.
stage=$work/stage
mkdir -p "$stage/src/Python" "$stage/src/Tests/BlazeKitTests" "$stage/src/Benchmarks" "$stage/src/Models" "$stage/wheel"
cp "$wheel" $models "$stage/wheel/"
cp -r Python/tests "$stage/src/Python/tests"
cp -r Tests/BlazeKitTests/Fixtures "$stage/src/Tests/BlazeKitTests/Fixtures"
cp -r Benchmarks/photos "$stage/src/Benchmarks/photos"
cp -r Models/bkm "$stage/src/Models/bkm"
find "$stage" -name __pycache__ -prune -exec rm -rf {} +
printf '%q ' "$@" > "$stage/pytest-args"
# pip in the root trusts what pip here trusts (the host's CA bundle: a TLS-inspecting proxy's CA, where there is
# one), and sees no other setting of the host's (its find-links, its config): the hook runs under env -i.
cp "${PIP_CERT:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}" "$stage/host-ca.crt"
cat > "$stage/run.sh" <<'IN'
set -eu
echo "== the root: $(. /etc/os-release; echo "$PRETTY_NAME"), $(dpkg-query -W -f '.\n' | wc -l) packages, python $(python3 -c 'import platform; print(platform.python_version())')"
for lib in libopenblas.so.0 libgfortran.so.5 libpng16.so.16 libturbojpeg.so.0 libswiftCore.so; do
  if ldconfig -p | grep -q "$lib"; then echo "unexpected: the root has $lib"; exit 1; fi
done
echo "   none of libopenblas, libgfortran, libpng16, libturbojpeg, libswiftCore in the root"
python3 -m venv /opt/venv
/opt/venv/bin/pip install -q --disable-pip-version-check /wheel/*.whl pytest
/opt/venv/bin/pip list --disable-pip-version-check 2>/dev/null | grep -i -E "^(pyblazekit|pyblazekit-models-pose|pyblazekit-models-hands-face|numpy|pytest) "
cd /src
lib=$(/opt/venv/bin/python -c 'import blazekit, os; print(os.path.join(os.path.dirname(blazekit.__file__), "_lib", "libblazekit.so"))')
echo "== ldd $lib"
ldd "$lib" | sed 's/^/   /'
if ldd "$lib" | grep -q "not found"; then echo "FAIL: unresolved libraries"; exit 1; fi
echo "== pytest $(cat /pytest-args)"
eval "set -- $(cat /pytest-args)"
/opt/venv/bin/python -m pytest -p no:cacheprovider -o addopts= -rs "$@" Python/tests
IN
echo "== mmdebstrap bookworm (minbase + python3 python3-venv python3-pip) into $work/root"
mmdebstrap --quiet --variant=minbase --include=python3,python3-venv,python3-pip \
  --customize-hook="sync-in $stage /" \
  --customize-hook='chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
      PIP_CERT=/host-ca.crt SSL_CERT_FILE=/host-ca.crt PIP_DEFAULT_TIMEOUT=180 PIP_DISABLE_PIP_VERSION_CHECK=1 \
      ${http_proxy:+http_proxy=$http_proxy} ${https_proxy:+https_proxy=$https_proxy} /bin/sh /run.sh' \
  bookworm "$work/root"
echo "PASS: the wheels install and the selected tests (pytest $*) pass in a bare Debian root"
