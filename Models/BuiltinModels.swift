#if BLAZEKIT_MODELS_BESIDE_LIBRARY
import CBlazeKit
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The eleven converted MediaPipe models shipped with the package, found in
/// `BlazeKit_BlazeModels.resources/bkm` beside the shared library that holds this code (the Python wheel's
/// layout; Package.swift's `BLAZEKIT_MODELS_BESIDE_LIBRARY`).
public enum BuiltinModels {
    /// The directory holding the built-in `.bkm` files, nil when it is not there.
    public static var directory: URL? {
        guard let name = blazekit_internal_library_path() else { return nil }
        let bkm = URL(fileURLWithPath: String(cString: name)).deletingLastPathComponent()
            .appendingPathComponent("BlazeKit_BlazeModels.resources").appendingPathComponent("bkm")
        return FileManager.default.fileExists(atPath: bkm.path) ? bkm : nil
    }
}
#else
import Foundation

/// The eleven converted MediaPipe models shipped with the package, found as package resources.
public enum BuiltinModels {
    /// The directory holding the built-in `.bkm` files.
    public static var directory: URL? { Bundle.module.resourceURL?.appendingPathComponent("bkm") }
}
#endif
