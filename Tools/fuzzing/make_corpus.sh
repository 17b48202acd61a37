#!/usr/bin/env bash
# Refills Tools/fuzzing/corpus/{png,jpeg,video}: the small PNG and JPEG test fixtures, and a few tiny clips made
# with the ffmpeg command (H.264 MP4 with and without a rotation, MPEG-4 AVI, VP9 WebM, 10-bit HEVC MKV, one tagged
# BT.2020 HLG (colour-mapped),
# a variable-frame-rate MP4). The model targets' seeds (bkm, tflite, task) are made by make_model_corpus.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
c=Tools/fuzzing/corpus
mkdir -p $c/png $c/jpeg $c/video
find Tests/BlazeImageTests/Fixtures/png -name '*.png' -size -6k -exec cp {} $c/png/ \;
find Tests/BlazeImageTests/Fixtures/jpeg -name '*.jpg' -size -6k -exec cp {} $c/jpeg/ \;
src="testsrc2=size=32x24:rate=10"
ff() { ffmpeg -v error -y -f lavfi -i "$src" -t 0.6 "$@"; }
ff -c:v libx264 -pix_fmt yuv420p -movflags +faststart $c/video/h264.mp4
ff -c:v libx264 -pix_fmt yuv420p -metadata:s:v:0 rotate=90 $c/video/h264_rot90.mp4
ff -c:v mpeg4 $c/video/mpeg4.avi
ff -c:v libvpx-vp9 $c/video/vp9.webm
ff -c:v libx265 -pix_fmt yuv420p10le -x265-params log-level=none $c/video/hevc10.mkv
ff -c:v libx265 -pix_fmt yuv420p10le -x265-params log-level=none -colorspace bt2020nc -color_primaries bt2020 -color_trc arib-std-b67 $c/video/hevc10_hlg.mkv
ffmpeg -v error -y -f lavfi -i "$src" -t 0.6 -vf "setpts='PTS+if(gt(N,2),0.05/TB,0)'" -fps_mode vfr -c:v libx264 $c/video/vfr.mp4
ls -la $c/png $c/jpeg $c/video | tail -n +1
