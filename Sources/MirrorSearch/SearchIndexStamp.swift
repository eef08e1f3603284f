import Foundation
import MirrorCore
import MirrorSite

/// The size and modification time of a folder's manifest and of its search index, noted in
/// `.mirror/search.checked` when the index was last found to match the manifest (or made from
/// it): while neither file changes, `SearchIndex.open` trusts the index without reading the
/// manifest, which takes tens of milliseconds on a large site.
public struct SearchIndexStamp {
    static let path = ".mirror/search.checked"
    private let folder: String
    /// "size seconds" of the manifest; nil when the folder has none.
    let manifest: String?
    private let index: String?

    public init(folder: String) {
        self.folder = folder
        manifest = Self.stamp(folder + "/" + SiteManifest.path)
        index = Self.stamp(folder + "/" + SearchIndex.path)
    }

    /// Whether the files are as they were when the check was last noted.
    var isRecorded: Bool {
        guard let manifest, let index else { return false }
        return (try? String(contentsOfFile: folder + "/" + Self.path, encoding: .utf8)) == "\(manifest) \(index)"
    }

    /// Notes that the index matches the manifest as the files are now (when it cannot, the next
    /// search checks again).
    public func record() {
        guard let manifest, let index else { return }
        try? "\(manifest) \(index)".write(toFile: folder + "/" + Self.path, atomically: true, encoding: .utf8)
    }

    private static func stamp(_ path: String) -> String? {
        PosixFile.stamp(atPath: path).map { "\($0.size) \($0.modified).\($0.modifiedNanoseconds)" }
    }
}
