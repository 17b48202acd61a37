import Foundation

/// The eleven converted MediaPipe models shipped with the package, found as package resources.
public enum BuiltinModels {
    /// The directory holding the built-in `.bkm` files.
    public static var directory: URL? { Bundle.module.resourceURL?.appendingPathComponent("bkm") }
}
