import Foundation
import MirrorCore

/// Remembers every path of an archive to refuse duplicates, names that collide on
/// case-insensitive or normalization-insensitive disks, and files used as directories.
struct TarPathRegistry: Sendable {
    private struct Seen: Sendable {
        var path: String
        var isFile: Bool
        /// The entry that made this directory exist without its own entry; nil once it has one.
        var impliedBy: String?
    }

    /// Keyed by the folded path.
    private var seen: [String: Seen] = [:]

    /// Records a normalized path, and its parent directories; records nothing when it throws.
    mutating func register(_ path: String, isDirectory: Bool) throws(TarError) {
        let folded = Self.fold(path)
        let ends = path.utf8.indices.filter { path.utf8[$0] == 0x2F }
        let foldedEnds = folded.utf8.indices.filter { folded.utf8[$0] == 0x2F }
        var newParents: [(key: String, path: String)] = []
        for (end, foldedEnd) in zip(ends, foldedEnds) {
            let parent = String(path[..<end])
            let key = String(folded[..<foldedEnd])
            if let known = seen[key] {
                if known.isFile { throw .fileUsedAsDirectory(file: known.path, entry: path) }
                if !known.path.bytesEqual(parent) { throw .caseConflict(path: path, other: known.path) }
            } else {
                newParents.append((key, parent))
            }
        }
        if let known = seen[folded] {
            guard known.path.bytesEqual(path) else { throw .caseConflict(path: path, other: known.path) }
            guard let child = known.impliedBy else { throw .duplicate(path: path) }
            guard isDirectory else { throw .fileUsedAsDirectory(file: path, entry: child) }
            seen[folded]?.impliedBy = nil
        } else {
            seen[folded] = Seen(path: path, isFile: !isDirectory)
        }
        for (key, parent) in newParents {
            seen[key] = Seen(path: parent, isFile: false, impliedBy: path)
        }
    }

    /// Case-folded NFC form, so names a macOS or Windows disk treats as one map to one key.
    private static func fold(_ path: String) -> String {
        if path.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: path.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        return path.decomposedStringWithCanonicalMapping
            .folding(options: .caseInsensitive, locale: nil)
            .precomposedStringWithCanonicalMapping
    }
}
