#!/usr/bin/env bash
# Tools/checks/sanitize.sh address|thread [FILTER]
# Runs the test suite (or the suites matching FILTER) under AddressSanitizer (with LeakSanitizer) or
# ThreadSanitizer, in its own build folder (.build-asan / .build-tsan). Leaks inside the toolchain's
# libraries are suppressed by Tools/checks/sanitizers/lsan.supp; everything else fails the run.
set -euo pipefail
cd "$(dirname "$0")/../.."
kind=${1:-}
case $kind in
  address) scratch=.build-asan ;;
  thread) scratch=.build-tsan ;;
  *) echo "usage: Tools/checks/sanitize.sh address|thread [FILTER]" >&2; exit 2 ;;
esac
filter=()
[[ -n "${2:-}" ]] && filter=(--filter "$2")
export LSAN_OPTIONS="suppressions=$PWD/Tools/checks/sanitizers/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export TSAN_OPTIONS="halt_on_error=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
swift test --scratch-path "$scratch" --sanitize="$kind" "${filter[@]}"
