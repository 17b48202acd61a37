#!/usr/bin/env bash
# Tools/checks/leakcheck.sh [--frames N] VIDEO PHOTO_DIR
# Leak check of the `blaze` CLI (issue #14): builds `blaze` with AddressSanitizer, whose LeakSanitizer
# runs at exit, into its own build folder (.build-lsan), then runs `blaze pose` over VIDEO (every frame
# tracked as VIDEO mode does) and over the PNG and JPEG photos in PHOTO_DIR. Exits non-zero if either run
# reports a leak, fails, or prints fewer lines than it had inputs.
#
# --frames N first re-encodes the first N frames of VIDEO (ffmpeg, libx264) into a temporary clip and
# checks that one instead.
#
# Why not Valgrind: valgrind 3.19 cannot execute AVX-512 instructions, and BlazeKernels picks its AVX-512
# GEMM tile and depthwise blocks from /proc/cpuinfo (CPUFeatures.hasAVX512), which Valgrind does not
# virtualize, with no switch to turn them off. LeakSanitizer runs the real instructions.
#
# LSan's report separates "Direct leak" (Valgrind's "definitely lost") from "Indirect leak" (reachable
# only from leaked blocks); this script prints the byte totals of both. The suppressions in
# Tools/checks/sanitizers/lsan.supp (toolchain libraries only) apply, as in Tools/checks/sanitize.sh.
set -euo pipefail
frames=
if [[ ${1:-} == --frames ]]; then frames=${2:?--frames expects a count}; shift 2; fi
if [[ $# -ne 2 || ! -f $1 || ! -d $2 ]]; then
  echo "usage: Tools/checks/leakcheck.sh [--frames N] VIDEO PHOTO_DIR (got: $*)" >&2; exit 2
fi
video=$(realpath "$1") photo_dir=$(realpath "$2")
cd "$(dirname "$0")/../.."
work=$(mktemp -d "${TMPDIR:-/tmp}/leakcheck.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [[ -n $frames ]]; then
  ffmpeg -v error -i "$video" -map 0:v:0 -frames:v "$frames" -c:v libx264 -crf 18 -pix_fmt yuv420p "$work/clip.mp4"
  video=$work/clip.mp4
fi
expected_frames=$(ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=nb_read_frames -of csv=p=0 "$video")
mapfile -t photos < <(find "$photo_dir" -maxdepth 1 -type f \( -iname '*.png' -o -iname '*.jpg' -o -iname '*.jpeg' \) | sort)
[[ ${#photos[@]} -gt 0 ]] || { echo "leakcheck: no PNG or JPEG photos in $photo_dir" >&2; exit 2; }

scratch=.build-lsan
swift build -c release --sanitize=address --scratch-path "$scratch" --product blaze
blaze=$(swift build -c release --sanitize=address --scratch-path "$scratch" --show-bin-path)/blaze

export ASAN_OPTIONS="detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# verbosity=1 makes LSan log "LeakSanitizer: checking for leaks" at exit: proof that the check ran.
export LSAN_OPTIONS="suppressions=$PWD/Tools/checks/sanitizers/lsan.supp:print_suppressions=1:verbosity=1${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

status=0
# run NAME EXPECTED_LINES ARGS...: runs `blaze pose ARGS`, keeps its JSON Lines and its sanitizer report.
run() {
  local name=$1 expected=$2; shift 2
  local rc=0
  "$blaze" pose --quiet "$@" > "$work/$name.jsonl" 2> "$work/$name.log" || rc=$?
  local lines errors direct indirect checked
  lines=$(wc -l < "$work/$name.jsonl")
  errors=$(grep -c '"error"' "$work/$name.jsonl" || true)
  direct=$(awk '/^Direct leak of/ {s += $4} END {print s + 0}' "$work/$name.log")
  indirect=$(awk '/^Indirect leak of/ {s += $4} END {print s + 0}' "$work/$name.log")
  checked=$(grep -c 'LeakSanitizer: checking for leaks' "$work/$name.log" || true)
  echo "leakcheck $name: exit $rc, $lines lines (expected $expected, $errors errors), leak check ran: $checked, direct leaks $direct bytes, indirect leaks $indirect bytes"
  if [[ $rc -ne 0 || $checked -ne 1 || $lines -ne $expected || $errors -ne 0 || $direct -ne 0 || $indirect -ne 0 ]] || grep -q 'ERROR: \(Address\|Leak\)Sanitizer' "$work/$name.log"; then
    status=1
    cat "$work/$name.log" >&2
  fi
}
run video "$expected_frames" "$video"
run photos "${#photos[@]}" "${photos[@]}"
if [[ $status -eq 0 ]]; then echo "leakcheck: no leaks"; else echo "leakcheck: FAILED" >&2; fi
exit $status
