#!/usr/bin/env bash
# Tools/fuzzing/fuzz.sh TARGET SECONDS [-- LIBFUZZER_ARGS…]
#
# Builds one libFuzzer target with Swift's -sanitize=fuzzer,address and runs it for SECONDS on a copy of
# its committed seed corpus (Tools/fuzzing/corpus/TARGET). Exits non-zero on a crash, a leak, a timeout or an
# out-of-memory; the input that caused it is left in .build-fuzz/artifacts/TARGET/ (crash-…, leak-…,
# timeout-…). Targets: png, jpeg (BlazeImage: decoders and EXIF), video (BlazeVideo reading from memory
# through a custom AVIOContext), bkm (BlazeModelFormat's reader and BlazeRuntime's planner), tflite and
# task (BlazeConverter: the FlatBuffer reader, the zip reader of .task bundles and the importer).
#
# The modules a target needs are compiled from the package's sources with swiftc (SwiftPM cannot build a
# library-only fuzzing binary), instrumented for coverage and AddressSanitizer, into .build-fuzz/.
# Run two targets at once on two cores by starting two fuzz.sh processes.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
target=${1:-}; seconds=${2:-}
shift 2 2>/dev/null || true
[[ "${1:-}" == "--" ]] && shift
extra=("$@")
targets="png jpeg video bkm tflite task"
if [[ -z "$target" || -z "$seconds" || ! " $targets " =~ " $target " || ! "$seconds" =~ ^[0-9]+$ ]]; then
  echo "usage: Tools/fuzzing/fuzz.sh TARGET SECONDS [-- LIBFUZZER_ARGS…]   (TARGET: ${targets// /, })" >&2
  exit 2
fi

OUT=$ROOT/.build-fuzz
mkdir -p "$OUT/modules" "$OUT/artifacts/$target" "$OUT/work"
# -package-name: the modules share `package` declarations, as SwiftPM builds them.
SAN=(-sanitize=fuzzer,address -parse-as-library -O -g -package-name blazekit)
INC=(-I "$OUT/modules" -I Sources/CPNG -I Sources/CJPEG -I Sources/CPrefetch/include -I Sources/CFFmpeg -I Sources/CBLAS -I Sources/CZlib
     $(pkg-config --cflags-only-I libavformat | sed 's/-I/-Xcc -I/g'))
HASWELL=(-target-cpu haswell -D BLAZEKIT_FMA)

# module NAME "SOURCES…" EXTRA_FLAGS…: compiles a static library and its .swiftmodule, when a source changed.
module() {
  local name=$1 sources=$2; shift 2
  local lib="$OUT/modules/lib$name.a" newest
  newest=$(ls -t $sources "$0" | head -1)
  if [[ -f "$lib" && "$lib" -nt "$newest" ]]; then return; fi
  echo "fuzz.sh: compiling $name" >&2
  swiftc "${SAN[@]}" "${INC[@]}" "$@" -module-name "$name" -emit-module -emit-module-path "$OUT/modules/$name.swiftmodule" \
    -emit-library -static -o "$lib" $sources 2> >(grep -v "Cannot export local symbol" >&2)
}

# Two fuzz.sh processes (two targets on two cores) may need the same module: build under a lock.
exec 9>"$OUT/build.lock"
flock 9

case $target in
  png|jpeg)
    module BlazeImage "Sources/BlazeImage/*.swift" "${HASWELL[@]}"
    libs=(-lBlazeImage -lpng16 -lturbojpeg) ;;
  video)
    module BlazeImage "Sources/BlazeImage/*.swift" "${HASWELL[@]}"
    module BlazeVideo "Sources/BlazeVideo/*.swift" "${HASWELL[@]}"
    libs=(-lBlazeVideo -lBlazeImage -lpng16 -lturbojpeg -lavformat -lavcodec -lswscale -lavutil) ;;
  bkm)
    module BlazeModelFormat "Sources/BlazeModelFormat/*.swift"
    module BlazeKernelsAVX512 "Sources/BlazeKernelsAVX512/*.swift" -target-cpu skylake-avx512
    module BlazeKernels "Sources/BlazeKernels/*.swift" "${HASWELL[@]}"
    module BlazeRuntime "Sources/BlazeRuntime/*.swift Sources/BlazeRuntime/Ops/*.swift"
    libs=(-lBlazeRuntime -lBlazeKernels -lBlazeKernelsAVX512 -lBlazeModelFormat -lopenblas) ;;
  tflite|task)
    module BlazeModelFormat "Sources/BlazeModelFormat/*.swift"
    module BlazeConverter "Sources/BlazeConverter/*.swift"
    libs=(-lBlazeConverter -lBlazeModelFormat -lz) ;;
esac

binary="$OUT/fuzz-$target"
if [[ ! -f "$binary" || "$binary" -ot "Tools/fuzzing/$target.swift" || -n "$(find "$OUT/modules" -newer "$binary" -name '*.a' | head -1)" ]]; then
  echo "fuzz.sh: linking fuzz-$target" >&2
  swiftc "${SAN[@]}" "${INC[@]}" -L "$OUT/modules" "Tools/fuzzing/$target.swift" "${libs[@]}" -o "$binary" \
    2> >(grep -v "Cannot export local symbol" >&2)
fi

flock -u 9

# Work on a copy of the seeds: new inputs libFuzzer finds stay out of the repository.
corpus="$OUT/work/$target"
mkdir -p "$corpus"
cp -n Tools/fuzzing/corpus/"$target"/* "$corpus"/ 2>/dev/null || true
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
log="$OUT/artifacts/$target/last-run.log"
set +e
"$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=3072 -print_final_stats=1 \
  -artifact_prefix="$OUT/artifacts/$target/" "${extra[@]}" "$corpus" Tools/fuzzing/corpus/"$target" \
  2>&1 | tee "$log" | grep -vE '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|^"|Uses: ' >&2
status=${PIPESTATUS[0]}
set -e
# libFuzzer's last status line (edges covered, features, corpus) and its execution rate.
final=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[^ ]+' || true)
rate=$(grep -oE 'average_exec_per_sec: +[0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || true)
if [[ $status -ne 0 ]]; then
  echo "fuzz.sh: $target FAILED (libFuzzer exit $status) after ${final:-no progress}; inputs in $OUT/artifacts/$target/, log $log" >&2
  exit 1
fi
echo "fuzz.sh: $target ran ${seconds}s without a crash, leak or timeout: ${rate:-?} execs/s, $final" >&2
