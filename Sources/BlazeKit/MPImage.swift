import BlazeImage

/// MediaPipe Tasks' name for the image a task takes: BlazeKit's ``BlazeImage/Image``, so
/// `MPImage(contentsOfFile:)` reads a PNG or JPEG (by content, EXIF orientation included) as in
/// MediaPipe's guides.
public typealias MPImage = Image

extension Image {
    /// Decodes the PNG or JPEG file at `path` and sets `orientation` to `orientation` instead of the
    /// file's EXIF tag, as `MPImage(uiImage:orientation:)` overrides a `UIImage`'s own.
    ///
    /// - Throws: as `Image(contentsOfFile:)`.
    public init(contentsOfFile path: String, orientation: ImageOrientation) throws {
        try self.init(contentsOfFile: path)
        self.orientation = orientation
    }
}
