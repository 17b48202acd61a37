"""Writes (or, with --check, verifies) the six legacy sample files in this folder from MediaPipe's docs.

Each `docs/solutions/{pose,hands,holistic}.md` of google-ai-edge/mediapipe has one ```python block holding
two programs, "For static images:" and "For webcam input:". This script cuts each block into those two
programs (each keeps the block's preamble: the imports and the `mp_*` aliases), applies the listed line edits
(each must match exactly once) and writes `<solution>_static.py` and `<solution>_video.py` with a header that
names the source and every changed line. Everything not listed is Google's text, byte for byte.

    python3 Tools/reference/legacy_samples/_make_samples.py [--git-dir DIR] [--commit REV] [--check]

DIR defaults to the local mirror /work/.mirror/google-ai-edge+mediapipe/repo (a bare clone of
https://github.com/google-ai-edge/mediapipe); REV defaults to the commit the committed files were made from.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = "https://github.com/google-ai-edge/mediapipe"
COMMIT = "85c0cdc7d70653888903c88df45962b764296342"   # the mirror's HEAD when the files were made
HOOK = "import _record  # BlazeKit harness, not Google's: LEGACY_MP=blazekit runs this on blazekit; see _record.py"

# (old line, new line or None to delete). Lines are matched whole, indentation included.
COMMON = [
    ("import cv2", "import cv2\nimport sys\n" + HOOK),
]
STATIC = [
    ("IMAGE_FILES = []", "IMAGE_FILES = sys.argv[1:]"),
]
VIDEO = [
    ("cap = cv2.VideoCapture(0)", "cap = cv2.VideoCapture(sys.argv[1])"),
    # The sample's own comment says so; with `continue` a file never ends (isOpened() stays true).
    ("      continue", "      break"),
    ("    cv2.imshow('MediaPipe {title}', cv2.flip(image, 1))", None),
    ("    if cv2.waitKey(5) & 0xFF == 27:", None),
    ("      break", None),   # the waitKey branch's break (the first `break` after imshow)
]
EXTRA = {
    # Google's Holistic block uses `np` without importing numpy (NameError on the first photo).
    ("holistic", "static"): [("import cv2", "import cv2\nimport numpy as np  # missing in Google's text")],
}
TITLES = {"pose": "Pose", "hands": "Hands", "holistic": "Holistic"}


def block(git_dir, commit, name):
    path = f"docs/solutions/{name}.md"
    text = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout
    blob = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout.strip()
    last = subprocess.run(["git", "--git-dir", git_dir, "log", "-1", "--format=%H %cs", commit, "--", path],
                          check=True, capture_output=True, text=True).stdout.strip()
    lines = text.split("\n")
    start = lines.index("```python")                    # the first (and only) Python block
    end = lines.index("```", start + 1)
    body = lines[start + 1:end]
    s = body.index("# For static images:")
    w = body.index("# For webcam input:")
    return path, blob, last, start + 2, body[:s], body[s:w], body[w:]   # start+2: 1-based line of body[0]


def apply(lines, edits, title):
    out = list(lines)
    changes = []
    for old, new in edits:
        old = old.format(title=title)
        if old == "      break":
            # the break after `if cv2.waitKey(...)`: the line that follows the (already deleted) waitKey line
            idx = [i for i, ln in enumerate(out) if ln == old]
            target = [i for i in idx if i > 0 and out[i - 1].lstrip().startswith("# Flip the image")]
            assert len(target) == 1, (old, idx)
            i = target[0]
        else:
            idx = [i for i, ln in enumerate(out) if ln == old]
            assert len(idx) == 1, f"{old!r} matches {len(idx)} lines"
            i = idx[0]
        if new is None:
            del out[i]
            changes.append(f"-  {old.strip()}")
        else:
            out[i:i + 1] = new.split("\n")
            added = new.split("\n")
            if added[0] == old:
                changes.extend(f"+  {a.strip()}" for a in added[1:])
            else:
                changes.append(f"~  {old.strip()}  ->  {new.strip()}")
    return out, changes


def render(name, part, git_dir, commit):
    path, blob, last, first_line, pre, static, video = block(git_dir, commit, name)
    title = TITLES[name]
    body = pre + (static if part == "static" else video)
    # Drop the trailing blank line between the two programs.
    while body and body[-1] == "":
        body.pop()
    edits = EXTRA.get((name, part), []) + COMMON + (STATIC if part == "static" else VIDEO)
    out, changes = apply(body, edits, title)
    which = '"For static images:"' if part == "static" else '"For webcam input:"'
    usage = "PHOTO..." if part == "static" else "VIDEO_FILE"
    header = [
        f"# Google's legacy MediaPipe {title} sample, {which} part, as published in MediaPipe's docs.",
        f"# Source: {REPO}, {path} (blob {blob}),",
        f"#   at commit {commit} (file last changed in {last}).",
        f"#   The file's ```python block (from its line {first_line}): its preamble (imports, mp_* aliases),",
        f"#   then the {which} program. Made by _make_samples.py; `_make_samples.py --check` re-derives it.",
        "# Changed lines (+ added, - removed, ~ replaced); every other line below this header is Google's:",
    ] + [f"#   {c}" for c in changes] + [
        f"# Run: python {name}_{part}.py {usage}    (LEGACY_MP=blazekit: the same text on blazekit; see _record.py,",
        "#   which also records every process() result as JSON Lines to $LEGACY_RECORD)",
        "",
    ]
    return "\n".join(header + out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--git-dir", default="/work/.mirror/google-ai-edge+mediapipe/repo")
    ap.add_argument("--commit", default=COMMIT)
    ap.add_argument("--check", action="store_true", help="verify the files instead of writing them")
    args = ap.parse_args()
    bad = 0
    for name in ("pose", "hands", "holistic"):
        for part in ("static", "video"):
            text = render(name, part, args.git_dir, args.commit)
            dest = os.path.join(HERE, f"{name}_{part}.py")
            if args.check:
                with open(dest) as f:
                    same = f.read() == text
                print(("same     " if same else "DIFFERS  ") + dest)
                bad += not same
            else:
                with open(dest, "w") as f:
                    f.write(text)
                print("wrote", dest)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
