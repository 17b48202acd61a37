import BlazeKit
import Foundation
import Testing

@Suite struct ExifOrientationTests {
    /// A photo saved with transformed pixels and each of the 7 non-identity EXIF orientation tags gives the
    /// upright photo's landmarks, in the displayed photo's coordinates (the bar: mean difference ≤ 0.002 of
    /// the image size). The files are re-encoded at quality 100, so JPEG noise is all that differs.
    @Test func everyOrientationGivesTheUprightLandmarks() throws {
        let photo = try Image(contentsOfPNGFile: PoseReference.directory.appendingPathComponent("mpii_052475643.png").path)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("exif-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let uprightPath = directory.appendingPathComponent("o1.jpg").path
        try Data(photo.jpegData(quality: 100)).write(to: URL(fileURLWithPath: uprightPath))

        let landmarker = try PoseLandmarker(options: PoseLandmarkerOptions())
        let upright = try Image(contentsOfFile: uprightPath)
        #expect(upright.orientation == .up && upright.width == photo.width && upright.height == photo.height)
        let reference = try #require(landmarker.detect(image: upright).landmarks.first)
        let inverse: [ImageOrientation: ImageOrientation] = [.down: .down, .left: .right, .right: .left, .upMirrored: .upMirrored,
                                                             .downMirrored: .downMirrored, .leftMirrored: .leftMirrored,
                                                             .rightMirrored: .rightMirrored]
        for exif in 2...8 {
            let orientation = try #require(ImageOrientation(exifValue: exif))
            // The stored pixels that display as the upright photo under `orientation`.
            var turned = photo
            turned.orientation = inverse[orientation]!
            var stored = try turned.oriented()
            stored.orientation = orientation
            let path = directory.appendingPathComponent("o\(exif).jpg").path
            try Data(stored.jpegData(quality: 100)).write(to: URL(fileURLWithPath: path))

            let image = try Image(contentsOfFile: path)
            #expect(image.orientation == orientation)
            // MediaPipe's API rejects mirrored orientations (so the CLI turns those pixels upright itself).
            if orientation.isMirrored {
                #expect(throws: TaskError.unsupportedOrientation(orientation)) { try landmarker.detect(image: image) }
            }
            let input = orientation.isMirrored ? try image.oriented() : image
            let found = try #require(landmarker.detect(image: input).landmarks.first, "EXIF \(exif)")
            var sum: Float = 0
            for k in 0..<33 { sum += abs(found[k].x - reference[k].x) + abs(found[k].y - reference[k].y) }
            let mean = sum / 66
            #expect(mean <= 0.002, "EXIF \(exif) (\(orientation)): mean difference \(mean) from the upright photo")
        }
    }
}
