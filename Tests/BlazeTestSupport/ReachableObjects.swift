/// Every object of class `T` reachable from `root` through stored properties, as `Mirror` shows them (private
/// ones, enum payloads, optionals, tuples and collections included), each once, in the order first reached. The
/// walk does not look inside a `T`, and skips collections of plain values (pixel buffers, weights) after their
/// first element. For checking what every network a task holds was made with, e.g. the `InferenceSession`s of
/// a landmarker and their options, without an accessor in the API for it.
public func reachableObjects<T: AnyObject>(_ type: T.Type, from root: Any) -> [T] {
    var seen = Set<ObjectIdentifier>()
    var found: [T] = []
    func visit(_ value: Any) {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .class {
            let object = value as AnyObject
            guard seen.insert(ObjectIdentifier(object)).inserted else { return }
            if let match = object as? T {
                found.append(match)
                return
            }
        }
        if mirror.displayStyle == .collection || mirror.displayStyle == .set,
           let first = mirror.children.first, Mirror(reflecting: first.value).displayStyle == nil {
            return
        }
        var level: Mirror? = mirror
        while let current = level {
            for child in current.children { visit(child.value) }
            level = current.superclassMirror
        }
    }
    visit(root)
    return found
}
