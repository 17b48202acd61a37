import BlazeImage
import Foundation

/// `Tests/BlazeKitTests/Fixtures`, the photos (and MediaPipe's results for them) that several test targets
/// read by path: they are the resources of BlazeKitTests only. Found from this file's own path.
public let fixturePhotosDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("BlazeKitTests/Fixtures")

/// The PNG photo `name` (e.g. `"pose/mpii_052475643.png"`) of `Tests/BlazeKitTests/Fixtures`.
public func fixturePhoto(_ name: String) throws -> Image {
    try Image(contentsOfPNGFile: fixturePhotosDirectory.appendingPathComponent(name).path)
}
