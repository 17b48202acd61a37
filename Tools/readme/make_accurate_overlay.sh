#!/usr/bin/env bash
# Makes Tools/readme/accurate-before-after.jpg, the README's picture of the accurate mode: the committed
# photo Benchmarks/photos/mpii_052475643.png (two men, 480 px tall) at 40 % of its size pasted into a grey
# 1920×1080 frame, run through `blaze pose --num-poses 3` without and with `--accurate`; the two overlays
# side by side at half size (default left, accurate right), each with a 3× inset of the people. Needs ffmpeg.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ffmpeg -v error -y -f lavfi -i "color=c=0x808080:s=1920x1080" -i Benchmarks/photos/mpii_052475643.png \
  -filter_complex "[1]scale=342:192:flags=area[p];[0][p]overlay=1300:640" -frames:v 1 "$tmp/wide.png"
swift build -c release --product blaze
mkdir -p "$tmp/default" "$tmp/accurate"
.build/release/blaze pose --quiet --num-poses 3 --overlay-dir "$tmp/default" "$tmp/wide.png" > "$tmp/default.jsonl"
.build/release/blaze pose --quiet --num-poses 3 --accurate --overlay-dir "$tmp/accurate" "$tmp/wide.png" > "$tmp/accurate.jsonl"
inset="crop=400:260:1270:610,scale=1200:780:flags=neighbor"
ffmpeg -v error -y -i "$tmp/default/wide.overlay.png" -i "$tmp/accurate/wide.overlay.png" -filter_complex \
  "[0]split[a][ai];[ai]$inset[az];[a][az]overlay=60:60,scale=960:540,pad=970:540:0:0:white[l];\
   [1]split[b][bi];[bi]$inset[bz];[b][bz]overlay=60:60,scale=960:540[r];[l][r]hstack" \
  -frames:v 1 -q:v 3 Tools/readme/accurate-before-after.jpg
echo "default: $(grep -o '"landmarks"' "$tmp/default.jsonl" | wc -l) poses, accurate: $(grep -o '"landmarks"' "$tmp/accurate.jsonl" | wc -l) poses"
echo "wrote Tools/readme/accurate-before-after.jpg"
