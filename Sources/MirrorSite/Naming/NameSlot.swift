import Foundation
import MirrorCore

/// A name taken in a folder, as `PathRegistry` keeps it: the `StableHash` of the folder's actual
/// path, a NUL (in no component) and the name folded as a case- and normalization-insensitive
/// disk compares names, so names come out the same on every run.
struct NameSlot: Hashable, Sendable {
    private let value: UInt64

    /// The slot of `name` in `folder` (its actual path, "" for the output folder).
    init(_ folder: String, _ name: String) {
        var hash = StableHash()
        hash.add(folder.utf8)
        hash.add(0)
        hash.add(Self.folded(name).utf8)
        value = hash.value
    }

    /// How a case- and normalization-insensitive disk compares names, erring towards "equal":
    /// NFKC, full case folding (`ß` and `ss`, `K` and `k`), default-ignorable characters dropped.
    static func folded(_ name: String) -> String {
        if name.utf8.allSatisfy({ $0 < 0x80 }) { return name.lowercased() }
        let lowered = name.precomposedStringWithCompatibilityMapping.lowercased().uppercased().lowercased()
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: lowered.unicodeScalars.filter { !$0.properties.isDefaultIgnorableCodePoint })
        return String(scalars).precomposedStringWithCompatibilityMapping
    }
}
