#!/usr/bin/env bash
# Tools/checks/soak.sh CLIP [blaze-soak options…]
# The long-run memory check (issue #14): builds `blaze-soak` (release) and runs it on CLIP, a video with
# one person in it (the project's run used the test set's pose_dance_fullbody.mp4; see MAINTENANCE.md), for 22 minutes: one PoseLandmarker in VIDEO mode
# decoding the clip again and again with ever-increasing timestamps, and one in LIVE_STREAM mode fed by
# detectAsync at 30 fps from a second thread, at the same time. One JSON line every 30 s (resident set
# from /proc/self/statm, frame counts), then a summary line. Exits 1 if the resident set at the end
# exceeds the one after the 2-minute warm-up by more than 16 MiB (--tolerance-mb), if any frame failed,
# or if a live-stream callback came out of order. Options after CLIP go to blaze-soak (see
# `blaze-soak --help`: --minutes, --warmup-seconds, --sample-seconds, --tolerance-mb, --threads, …).
#
# It takes a while: run it in the background, e.g.
#   nohup Tools/checks/soak.sh clip.mp4 > /tmp/soak.log 2>&1 &
set -euo pipefail
clip=${1:-}
[[ -f $clip ]] || { echo "usage: Tools/checks/soak.sh CLIP [blaze-soak options…] (no video at '$clip')" >&2; exit 2; }
shift
clip=$(realpath "$clip")
cd "$(dirname "$0")/../.."
swift build -c release --product blaze-soak >&2
exec "$(swift build -c release --show-bin-path)/blaze-soak" "$clip" "$@"
