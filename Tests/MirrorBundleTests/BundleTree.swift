import Foundation

/// Helpers to compare folders and run GNU tar.
enum BundleTree {
    /// Every regular file under `folder` by relative path, with its bytes (folders left out).
    static func files(_ folder: String, leaving excluded: Set<String> = []) -> [String: Data] {
        var files: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return files }
        while let path = walker.nextObject() as? String {
            guard !excluded.contains(path), walker.fileAttributes?[.type] as? FileAttributeType == .typeRegular else { continue }
            files[path] = FileManager.default.contents(atPath: folder + "/" + path)
        }
        return files
    }
}
