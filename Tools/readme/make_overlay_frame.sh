#!/usr/bin/env bash
# Makes Tools/readme/overlay-frame.jpg, the README's picture of `blaze pose clip.mp4 --overlay-video`:
# a 3-second pan over the committed photo Benchmarks/photos/mpii_052475643.png (ffmpeg's zoompan),
# run through blaze with two poses, and frame 40 of the overlay video. Needs the ffmpeg command.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ffmpeg -v error -y -loop 1 -i Benchmarks/photos/mpii_052475643.png \
  -vf "scale=1708:960,zoompan=z='1+0.002*on':x='iw/2-(iw/zoom/2)+on*2':y='ih/2-(ih/zoom/2)':d=75:s=854x480:fps=25,format=yuv420p" \
  -frames:v 75 -c:v libx264 -crf 20 "$tmp/pan.mp4"
swift build -c release --product blaze
.build/release/blaze pose --quiet --num-poses 2 "$tmp/pan.mp4" --overlay-video "$tmp/pan.overlay.mp4" > "$tmp/pan.jsonl"
ffmpeg -v error -y -i "$tmp/pan.overlay.mp4" -vf "select=eq(n\,40)" -frames:v 1 -q:v 4 Tools/readme/overlay-frame.jpg
echo "wrote Tools/readme/overlay-frame.jpg"
