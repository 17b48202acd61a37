import BlazeVideo
import Foundation
import Testing

/// `blaze holistic`: its JSON lines against mediapipe 0.10.14's Holistic (the fixture HolisticLandmarkerTests
/// reads), the CSV table's shape, video files, and refused options.
@Suite(.serialized) struct HolisticCLITests {
    /// Photos of `Fixtures/holistic/reference.json`: all four parts; no left hand; nobody.
    static let photos = ["pose/panoptic_ex2_2.flv_000040_l.png", "pose/mpii_052475643.png", "hand/freihand_00050180.png"]
    static var paths: [String] { photos.map { fixturePhotos.appendingPathComponent($0).path } }

    struct Reference: Decodable {
        struct Result: Decodable {
            var photo: String?
            var refine: Bool?
            var pose: [[Float]]?, face: [[Float]]?, left_hand: [[Float]]?, right_hand: [[Float]]?
        }
        var image: [Result]
    }

    static func reference(_ photo: String, refine: Bool) throws -> Reference.Result {
        let data = try Data(contentsOf: fixturePhotos.appendingPathComponent("holistic/reference.json"))
        return try #require(try JSONDecoder().decode(Reference.self, from: data).image.first {
            $0.photo!.hasSuffix(photo) && $0.refine == refine
        })
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test(arguments: [false, true]) func jsonLinesMatchMediaPipeHolistic(refine: Bool) throws {
        let run = try blaze(["holistic", "--quiet"] + (refine ? ["--refine-face"] : []) + Self.paths)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.lines.count == 3)
        for (photo, line) in zip(Self.photos, run.lines) {
            let object = try Self.object(line)
            let name = URL(fileURLWithPath: photo).lastPathComponent
            #expect(Set(object.keys) == ["image", "width", "height", "pose", "face", "leftHand", "rightHand"])
            #expect(object["image"] as? String == name)
            let expected = try Self.reference(name, refine: refine)
            for (key, points, width, hasWorld) in [("pose", expected.pose, 5, true), ("face", expected.face, 3, false),
                                                   ("leftHand", expected.left_hand, 3, true), ("rightHand", expected.right_hand, 3, true)] {
                guard let points else {
                    #expect(object[key] is NSNull, "\(name): \(key) should be null")
                    continue
                }
                let part = try #require(object[key] as? [String: [[Double]]], "\(name): \(key) missing")
                #expect(Set(part.keys) == (hasWorld ? ["landmarks", "worldLandmarks"] : ["landmarks"]))
                let landmarks = try #require(part["landmarks"])
                #expect(landmarks.count == points.count && landmarks.allSatisfy { $0.count == width }, "\(name): \(key)")
                #expect(part["worldLandmarks"].map { $0.count == points.count && $0.allSatisfy { $0.count == width } } ?? true)
                let difference = zip(points, landmarks).map { max(abs(Double($0[0]) - $1[0]), abs(Double($0[1]) - $1[1])) }.max() ?? 0
                #expect(difference <= 0.002, "\(name): \(key) off MediaPipe's by \(difference)")
            }
        }
    }

    /// Splits a table into its header and rows of fields.
    static func table(_ run: RunResult) -> (header: String, rows: [[String]]) {
        let lines = run.lines
        return (lines.first ?? "", lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) })
    }

    @Test(arguments: [false, true]) func csvHasEveryPartsRowsOnEveryFrameWithNaNForMissingParts(refine: Bool) throws {
        let facePoints = refine ? 478 : 468, perFrame = (refine ? 478 : 468) + 21 + 33 + 21
        let run = try blaze(["holistic", "--quiet", "--format", "csv"] + (refine ? ["--refine-face"] : []) + Self.paths)
        #expect(run.status == 0, "\(run.stderr)")
        let (header, rows) = Self.table(run)
        #expect(header == "source,frame,timestamp_ms,part,index,x,y,z")
        #expect(rows.count == 3 * perFrame && rows.allSatisfy { $0.count == 8 })
        let json = try blaze(["holistic", "--quiet"] + (refine ? ["--refine-face"] : []) + Self.paths)
        for (k, photo) in Self.photos.enumerated() {
            let name = URL(fileURLWithPath: photo).lastPathComponent
            let frame = rows[(k * perFrame)..<((k + 1) * perFrame)]
            #expect(frame.allSatisfy { $0[0] == name && $0[1] == "0" && $0[2] == "" })
            let parts = [("face", facePoints, "face"), ("left_hand", 21, "leftHand"), ("pose", 33, "pose"), ("right_hand", 21, "rightHand")]
            #expect(frame.map { "\($0[3]):\($0[4])" } == parts.flatMap { part in (0..<part.1).map { "\(part.0):\($0)" } })
            // Each part's numbers are the JSON line's, spelled the same; a part the line has as null is NaN.
            let object = try Self.object(json.lines[k])
            var offset = frame.startIndex
            for (_, count, key) in parts {
                let part = frame[offset..<(offset + count)]
                offset += count
                if object[key] is NSNull {
                    #expect(part.allSatisfy { $0[5...7] == ["NaN", "NaN", "NaN"] }, "\(name): \(key)")
                } else {
                    let line = json.lines[k]
                    #expect(part.allSatisfy { !$0[5...7].contains("NaN") && line.contains("[\($0[5]),\($0[6]),\($0[7])") }, "\(name): \(key)")
                }
            }
        }
        // mpii: no left hand; freihand: nobody, so every row NaN.
        #expect(rows[perFrame..<(2 * perFrame)].filter { $0[5] == "NaN" }.count == 21)
        #expect(rows[(2 * perFrame)...].allSatisfy { $0[5] == "NaN" })
    }

    @Test func videoFramesGiveLinesTableRowsAndAnOverlayVideo() throws {
        let directory = try makeTemporaryDirectory("holistic-video")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("pan.mp4").path, overlay = directory.appendingPathComponent("pan.overlay.mp4").path
        try writePanClip(to: clip, photo: Self.photos[0], frames: 6, width: 320, height: 240, stepMs: 40)
        let run = try blaze(["holistic", "--quiet", clip, "--overlay-video", overlay])
        #expect(run.status == 0, "\(run.stderr)")
        let objects = try run.lines.map(Self.object)
        #expect(objects.count == 6)
        #expect(objects.map { $0["frame"] as? String } == (0..<6).map { String(format: "frame_%05d", $0) })
        #expect(objects.map { $0["timestampMs"] as? Int } == (0..<6).map { $0 * 40 })
        #expect(objects.allSatisfy { $0["video"] as? String == "pan.mp4" && $0["image"] == nil && !($0["pose"] is NSNull) })
        #expect(objects.filter { !($0["face"] is NSNull) }.count >= 5)
        let drawn = try VideoFileReader(path: overlay)
        var frames = 0
        while try drawn.nextFrame() != nil { frames += 1 }
        #expect(frames == 6)

        // --output-dir with --format csv: <name>.csv, its header, 543 rows per frame with the frame's index and time.
        let out = directory.appendingPathComponent("out")
        let table = try blaze(["holistic", "--quiet", "--format", "csv", "--output-dir", out.path, clip])
        #expect(table.status == 0, "\(table.stderr)")
        let text = try String(contentsOf: out.appendingPathComponent("pan.mp4.csv"), encoding: .utf8)
        let rows = text.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(text.hasPrefix("source,frame,timestamp_ms,part,index,x,y,z\n") && rows.count == 6 * 543)
        #expect(rows.enumerated().allSatisfy { i, row in row[0] == "pan.mp4" && row[1] == "\(i / 543)" && row[2] == "\(i / 543 * 40)" })
    }

    /// `--segmentation-dir` on a clip: a mask per frame; `--no-segmentation-smoothing` (smooth_segmentation=False)
    /// leaves the first frame's mask as it is and changes later ones (smoothing blends in the previous mask).
    @Test func segmentationMasksOfAClipWithAndWithoutSmoothing() throws {
        let directory = try makeTemporaryDirectory("holistic-masks")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("pan.mp4").path
        try writePanClip(to: clip, photo: Self.photos[0], frames: 4, width: 320, height: 240, stepMs: 40)
        var masks: [[Data]] = []
        for (name, extra) in [("smooth", [String]()), ("plain", ["--no-segmentation-smoothing"])] {
            let out = directory.appendingPathComponent(name)
            let run = try blaze(["holistic", "--quiet", "--segmentation-dir", out.path, clip] + extra)
            #expect(run.status == 0 && run.lines.count == 4, "\(run.stderr)")
            masks.append(try (0..<4).map { try Data(contentsOf: out.appendingPathComponent(String(format: "pan.frame_%05d.mask0.png", $0))) })
        }
        #expect(masks[0][0] == masks[1][0])
        #expect((1..<4).contains { masks[0][$0] != masks[1][$0] })
    }

    @Test func badOptionsAreRefusedWithTheirName() throws {
        let photo = Self.paths[1]
        let confidence = try blaze(["holistic", "--min-detection-confidence", "1.5", photo])
        #expect(confidence.status == 2 && confidence.stderr.contains("minPoseDetectionConfidence") && confidence.stdout.isEmpty,
                "\(confidence.stderr)")
        let tracking = try blaze(["holistic", "--min-tracking-confidence=-0.5", photo])
        #expect(tracking.status == 2 && tracking.stderr.contains("minPoseLandmarksConfidence"), "\(tracking.stderr)")
        let model = try blaze(["holistic", "--model", "medium", photo])
        #expect(model.status == 2 && model.stderr.contains("medium"), "\(model.stderr)")
        let format = try blaze(["holistic", "--format", "xml", photo])
        #expect(format.status != 0 && format.stderr.contains("'xml'") && format.stderr.contains("csv"), "\(format.stderr)")
        let overlay = try blaze(["holistic", "--overlay-video", "/tmp/x.mp4", photo, photo])
        #expect(overlay.status != 0 && overlay.stderr.contains("exactly one video"), "\(overlay.stderr)")
        let smoothing = try blaze(["holistic", "--no-segmentation-smoothing", photo])
        #expect(smoothing.status != 0 && smoothing.stderr.contains("--segmentation-dir") && smoothing.stdout.isEmpty, "\(smoothing.stderr)")
    }

    /// A photo that cannot be read: an error line in JSON Lines; with a table, a line on standard error and
    /// no rows; the exit status is 1 either way.
    @Test func unreadableInputIsReportedAndTheOthersRun() throws {
        let directory = try makeTemporaryDirectory("holistic-bad")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bad = directory.appendingPathComponent("notes.png")
        try Data("not a photo".utf8).write(to: bad)
        let json = try blaze(["holistic", "--quiet", bad.path, Self.paths[1]])
        #expect(json.status == 1 && json.lines.count == 2)
        #expect(try Self.object(json.lines[0])["error"] != nil && json.lines[0].contains("notes.png"))
        let csv = try blaze(["holistic", "--quiet", "--format", "csv", bad.path, Self.paths[1]])
        #expect(csv.status == 1 && csv.stderr.contains("error: notes.png: "), "\(csv.stderr)")
        #expect(csv.lines.count == 1 + 543 && csv.lines.dropFirst().allSatisfy { $0.hasPrefix("mpii_052475643.png,") })
    }
}
