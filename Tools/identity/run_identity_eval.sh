#!/usr/bin/env bash
# Makes the synthetic identity clips, runs `blaze pose` over each (VIDEO mode, --num-poses = the clip's most
# people on screen), and scores them (IDF1, ID switches, recall; list-order baseline beside).
#   Tools/identity/run_identity_eval.sh TESTDATA OUT_DIR BLAZE [BLAZE_WITHOUT_IDS] [-- EXTRA blaze pose FLAGS]
# TESTDATA is ../shared/testdata; BLAZE a release `blaze`; BLAZE_WITHOUT_IDS (optional) a build without
# identities, for the recall without them (e.g. main's before the identities landed). Frames go to OUT_DIR
# (several MB a clip; do not commit them).
set -euo pipefail
testdata=$1 out=$2 blaze=$3
plain=${4:-}
shift 3; [ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
here=$(cd "$(dirname "$0")" && pwd)
python3 "$here/make_identity_clips.py" --shared "$testdata" --out "$out/clips" >/dev/null
mkdir -p "$out/ids" "$out/plain"
for clip in "$out"/clips/*/; do
  name=$(basename "$clip")
  n=$(python3 -c "import json,sys; t=json.load(open(sys.argv[1])); print(max(len(f['people']) for f in t['frames']))" "$clip/truth.json")
  "$blaze" pose --video --fps 30 --num-poses "$n" "$@" "$clip" > "$out/ids/$name.jsonl" 2>/dev/null
  [ -n "$plain" ] && "$plain" pose --video --fps 30 --num-poses "$n" "$@" "$clip" > "$out/plain/$name.jsonl" 2>/dev/null
done
python3 "$here/score_identities.py" "$out/clips" "$out/ids" ${plain:+--without-ids "$out/plain"}
