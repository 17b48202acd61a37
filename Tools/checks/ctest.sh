#!/usr/bin/env bash
# Builds libblazekit.so (the `blazekit` product), then compiles the C ABI's tests and examples with the
# system C/C++ compiler against it and runs them: once plainly and once under AddressSanitizer.
#   Tools/checks/ctest.sh            release library, tests + examples, plain + ASan
#   Tools/checks/ctest.sh --no-asan  skip the ASan pass
#   BLAZEKIT_CONFIG=debug Tools/checks/ctest.sh   test the debug library (what `swift test` already built; CI uses it)
# ASan: the C callers are instrumented (-fsanitize=address); the library and the Swift runtime are not, but
# ASan's allocator replaces malloc/free for the whole process, so a result freed twice, a result array read
# past its end by a caller, or a pixel buffer shorter than promised is caught. LeakSanitizer stays on
# (detect_leaks=1): every result, pixel buffer and landmarker the tests make is freed, and the Swift
# runtime's own process-lifetime allocations are reachable at exit, so nothing is reported. Nothing else is
# needed in ASAN_OPTIONS; the Swift runtime's crash handler coexists with ASan's.
set -euo pipefail
cd "$(dirname "$0")/../.."
asan=1
[ "${1:-}" = "--no-asan" ] && asan=0
CC=${CC:-cc}
CXX=${CXX:-c++}
config=${BLAZEKIT_CONFIG:-release}
swift build -c "$config" --product blazekit >/dev/null
lib=$(swift build -c "$config" --show-bin-path)
out=.build/ctest
mkdir -p "$out"
inc=Sources/CBlazeKit/include
common=(-std=c11 -Wall -Wextra -Werror -Wno-format-zero-length -O1 -g -I"$inc" -L"$lib" -Wl,-rpath,"$lib")
status=0
total_passed=0
total_failed=0
log="$out/last.log"
run() {  # name, command...: a test program's own "N passed, M failed" line is added up; an example counts as one
  local name=$1; shift
  echo "== $name"
  local rc=0
  "$@" >"$log" 2>&1 || rc=$?
  cat "$log"
  local line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1 || true)
  if [ -n "$line" ]; then
    total_passed=$((total_passed + ${line%% passed*}))
    local f=${line#*, }
    total_failed=$((total_failed + ${f%% failed}))
  elif [ $rc = 0 ]; then
    total_passed=$((total_passed + 1))
  fi
  if [ $rc != 0 ]; then
    echo "== $name FAILED (exit $rc)"
    status=1
    [ -z "$line" ] && total_failed=$((total_failed + 1))
  fi
  return 0
}
build_all() {  # suffix, extra flags...
  local suffix=$1; shift
  $CC "${common[@]}" "$@" Tests/C/test_blazekit.c -o "$out/test_blazekit$suffix" -lblazekit -lopenblas -lpthread -lm
  $CC "${common[@]}" "$@" Tests/C/test_holistic.c -o "$out/test_holistic$suffix" -lblazekit -lpthread -lm
  $CXX -std=c++17 -Wall -Wextra -Werror -O1 -g -I"$inc" -L"$lib" -Wl,-rpath,"$lib" "$@" Tests/C/test_cpp.cpp \
    -o "$out/test_cpp$suffix" -lblazekit
  mkdir -p "$out/isolated"
  cp "$lib/libblazekit.so" "$out/isolated/"
  $CC -std=c11 -Wall -Wextra -Werror -O1 -g -I"$inc" "$@" Tests/C/test_isolated.c -o "$out/test_isolated$suffix" \
    -L"$out/isolated" -Wl,-rpath,"$PWD/$out/isolated" -lblazekit
  for ex in Examples/C/*.c; do
    $CC "${common[@]}" "$@" "$ex" -o "$out/$(basename "$ex" .c)$suffix" -lblazekit -lpthread
  done
}
examples() {  # suffix
  local s=$1
  run "example pose_image$s" "$out/pose_image$s" Tests/BlazeKitTests/Fixtures/pose/mpii_052475643.png
  run "example pose_video$s" "$out/pose_video$s" Tests/BlazeKitTests/Fixtures/pose/mpii_052475643.png Tests/BlazeKitTests/Fixtures/pose/coco_000000040083.png
  run "example pose_live_stream$s" "$out/pose_live_stream$s" Tests/BlazeKitTests/Fixtures/pose/mpii_052475643.png
  run "example hand_image$s" "$out/hand_image$s" Tests/BlazeKitTests/Fixtures/hand/panoptic_ex2_2.flv_000040_l.png
  run "example hand_video$s" "$out/hand_video$s" Tests/BlazeKitTests/Fixtures/hand/panoptic_ex2_2.flv_000040_l.png Tests/BlazeKitTests/Fixtures/hand/onehand10k_33.png
  run "example hand_live_stream$s" "$out/hand_live_stream$s" Tests/BlazeKitTests/Fixtures/hand/panoptic_ex2_2.flv_000040_l.png
  run "example holistic_image$s" "$out/holistic_image$s" Tests/BlazeKitTests/Fixtures/pose/panoptic_ex2_2.flv_000040_l.png refine
}
# A private TMPDIR: model buffers and single-model links are written there, and must be gone afterwards.
export TMPDIR="$PWD/$out/tmp"
rm -rf "$TMPDIR"
mkdir -p "$TMPDIR"
build_all ""
run "C tests" "$out/test_blazekit"
run "C holistic tests" "$out/test_holistic"
run "library without its built-in models" "$out/test_isolated"
run "C++ header test" "$out/test_cpp"
examples ""
if [ $asan = 1 ]; then
  build_all "-asan" -fsanitize=address -fno-omit-frame-pointer
  export ASAN_OPTIONS=detect_leaks=1
  run "C tests (ASan)" "$out/test_blazekit-asan"
  run "C holistic tests (ASan)" "$out/test_holistic-asan"
  run "C++ header test (ASan)" "$out/test_cpp-asan"
  run "library without its built-in models (ASan)" "$out/test_isolated-asan"
  examples "-asan"
fi
if [ -n "$(ls -A "$TMPDIR")" ]; then
  echo "FAIL temporary files left in TMPDIR: $(ls "$TMPDIR")"
  total_failed=$((total_failed + 1))
else
  total_passed=$((total_passed + 1))
fi
echo "C ABI: $total_passed passed, $total_failed failed"
[ $status = 0 ] && [ $total_failed = 0 ]
