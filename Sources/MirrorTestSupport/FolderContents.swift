public import Foundation
import MirrorCore

/// The regular files under a folder, to compare two folders byte for byte in tests.
public enum FolderContents {
    /// Every regular file under `folder` by relative path with its bytes, leaving out paths
    /// that start with one of `excludedPrefixes`.
    public static func files(_ folder: String, excluding excludedPrefixes: [String] = []) -> [String: Data] {
        var files: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return files }
        while let path = walker.nextObject() as? String {
            guard !excludedPrefixes.contains(where: path.hasPrefix),
                walker.fileAttributes?[.type] as? FileAttributeType == .typeRegular
            else { continue }
            // FileReading: Foundation's reader leaks a page of memory for each empty file.
            files[path] = (try? FileReading.contents(of: folder + "/" + path)).flatMap { $0.map { Data($0) } }
        }
        return files
    }

    /// A mirror folder's files without what a crawl keeps for itself (journal, temporary files).
    public static func mirror(_ folder: String) -> [String: Data] {
        files(folder, excluding: [".mirror/journal", ".mirror/tmp"])
    }
}
