import Foundation

/// A name taken in a folder, as `PathRegistry` keeps it: FNV-1a of the folder's actual path, a
/// NUL (in no component) and the name folded as a case- and normalization-insensitive disk
/// compares names. Stable across runs and machines, unlike `hashValue`, so names come out the
/// same on every run.
struct NameSlot: Hashable, Sendable {
    private let value: UInt64

    /// The slot of `name` in `folder` (its actual path, "" for the output folder).
    init(_ folder: String, _ name: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        for byte in folder.utf8 { add(byte) }
        add(0)
        for byte in Self.folded(name).utf8 { add(byte) }
        value = hash
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
