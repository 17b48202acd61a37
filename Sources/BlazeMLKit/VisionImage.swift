import BlazeKit
import Foundation

/// An image to detect poses in (ML Kit's `VisionImage`): a BlazeKit ``BlazeImage/Image`` plus the
/// orientation it is displayed in.
///
/// ML Kit builds one from a `UIImage` or a camera `CMSampleBuffer`; here it is built from a BlazeKit
/// `Image` (decoded from a PNG or JPEG file, or copied from a raw pixel buffer such as a camera or video
/// frame). A class, as in ML Kit, so the guide's `image.orientation = …` works on a `let`. The
/// orientation is guarded by a lock, so an instance may be shared between threads.
public final class VisionImage: @unchecked Sendable {
    /// The stored pixels (their own `Image.orientation` is ignored; ``orientation`` counts).
    public let image: Image
    private let lock = NSLock()
    private var storedOrientation: ImageOrientation

    /// How the stored pixels are turned for display (`UIImage.Orientation`'s cases, mirrored ones
    /// included). Detection runs on the image as displayed and positions are in its pixels.
    ///
    /// It starts as the image's own orientation (a JPEG's EXIF tag); ML Kit starts at `.up`, which is the
    /// same for every image its documentation allows (an up `UIImage`, or a camera buffer whose
    /// orientation the guide sets).
    public var orientation: ImageOrientation {
        get { lock.withLock { storedOrientation } }
        set { lock.withLock { storedOrientation = newValue } }
    }

    /// An image for detection (ML Kit: `VisionImage(image: UIImage)`), displayed in the image's own orientation.
    public init(image: Image) {
        self.image = image
        storedOrientation = image.orientation
    }

    /// The stored pixels tagged with the current ``orientation``, read once, so a later change cannot
    /// affect a detection under way.
    var snapshot: Image {
        var tagged = image
        tagged.orientation = orientation
        return tagged
    }
}

/// `UIImage`'s spelling of BlazeKit's image orientation, for ML Kit code.
extension Image {
    /// The orientation the image is displayed in, under `UIImage`'s name for it (the same value as
    /// `orientation`), so ML Kit's `visionImage.orientation = image.imageOrientation`
    /// ports unchanged.
    public var imageOrientation: ImageOrientation { orientation }
}
