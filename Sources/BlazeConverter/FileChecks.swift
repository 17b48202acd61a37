// What the engine asks of files in the same words with FoundationEssentials alone (the Python wheel's library)
// as with full Foundation.
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Whether `path` names something (following links, as `FileManager.fileExists(atPath:isDirectory:)`): nil when
/// it does not, else whether it is a directory.
package func fileIsDirectory(atPath path: String) -> Bool? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    return (st.st_mode & S_IFMT) == S_IFDIR
}

/// What `error.localizedDescription` says of an error from reading a file (`Data(contentsOf:)`), also where
/// only FoundationEssentials is linked (which has no `localizedDescription`): swift-corelibs-foundation's text
/// for the Cocoa file error codes, "The operation could not be completed. " and the reason (measured with
/// Swift 6.3.1's Foundation).
package func readFailureDescription(_ error: any Error) -> String {
    #if canImport(FoundationEssentials)
    guard let cocoa = error as? CocoaError else { return String(describing: error) }
    let code = cocoa.code.rawValue
    let reasons = [4: "The file doesn’t exist.", 257: "You don’t have permission.", 258: "The file name is invalid.",
                   259: "The file isn’t in the correct format.", 260: "The file doesn’t exist.",
                   261: "The specified text encoding isn’t applicable.", 262: "The specified URL type isn’t supported.",
                   263: "The item is too large.", 264: "The text encoding of the contents couldn’t be determined.",
                   513: "You don’t have permission.", 640: "There isn’t enough space.", 642: "The volume is read only."]
    return "The operation could not be completed. " + (reasons[code] ?? "(NSCocoaErrorDomain error \(code).)")
    #else
    return error.localizedDescription
    #endif
}

/// The size `FileManager.attributesOfItem(atPath:)[.size]` gives (of the link itself for a symbolic link), nil
/// when `path` names nothing. (With FoundationEssentials alone, that attribute is a UInt64 and `as? Int` is nil.)
package func itemSize(atPath path: String) -> Int? {
    var st = stat()
    guard lstat(path, &st) == 0 else { return nil }
    return Int(st.st_size)
}
