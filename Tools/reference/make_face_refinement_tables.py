"""Writes Sources/BlazeStages/FaceMeshRefinementTables.swift from mediapipe 0.10.14's
mediapipe/modules/face_landmark/tensors_to_face_landmarks_with_attention.pbtxt (LandmarksRefinementCalculator's
index tables). Standard library only.

    git --git-dir=MIRROR show v0.10.14:mediapipe/modules/face_landmark/tensors_to_face_landmarks_with_attention.pbtxt \
        | make_face_refinement_tables.py > Sources/BlazeStages/FaceMeshRefinementTables.swift
"""
import re
import sys


def ints(text):
    return [int(x) for x in text.replace("\n", " ").split(",") if x.strip()]


def array(values):
    rows = ["        " + ", ".join(map(str, values[i:i + 16])) + "," for i in range(0, len(values), 16)]
    return "[\n" + "\n".join(rows) + "\n    ]"


def main():
    text = re.sub(r"#[^\n]*", "", sys.stdin.read())
    maps = [ints(m) for m in re.findall(r"indexes_mapping:\s*\[([^\]]*)\]", text)]
    averages = [ints(m) for m in re.findall(r"indexes_for_average:\s*\[([^\]]*)\]", text)]
    if [len(m) for m in maps] != [468, 80, 71, 71, 5, 5] or [len(a) for a in averages] != [16, 16]:
        raise SystemExit("unexpected refinement layout")
    if maps[0] != list(range(468)) or maps[4] != list(range(468, 473)) or maps[5] != list(range(473, 478)):
        raise SystemExit("the mesh and iris mappings are no longer the identity ranges this file assumes")
    sys.stdout.write(f'''/// The index tables of `LandmarksRefinementCalculator` in `tensors_to_face_landmarks_with_attention.pbtxt`
/// (mediapipe 0.10.14), generated from that file by Tools/reference/make_face_refinement_tables.py: where the attention mesh's lips, eyes and irises go in the
/// 478-point face mesh. The mesh itself maps 0…467 to itself (z copied), the left iris to 468…472 and the
/// right iris to 473…477.
enum FaceMeshRefinementTables {{
    /// The 80 lip points (x and y only; z stays the mesh's).
    static let lips: [Int] = {array(maps[1])}
    /// The 71 left-eye points (x and y only).
    static let leftEye: [Int] = {array(maps[2])}
    /// The 71 right-eye points (x and y only).
    static let rightEye: [Int] = {array(maps[3])}
    /// The 16 points whose mean z is the left iris's z.
    static let leftIrisDepth: [Int] = {array(averages[0])}
    /// The 16 points whose mean z is the right iris's z.
    static let rightIrisDepth: [Int] = {array(averages[1])}
}}
''')


if __name__ == "__main__":
    main()
