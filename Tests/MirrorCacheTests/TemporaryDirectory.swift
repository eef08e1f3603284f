import Foundation

/// A fresh folder under the system's temporary directory, for one test; removed when the last
/// reference to it goes (a suite's property: when the test's instance of the suite does). A local
/// one may go right after its last use, so a test that keeps using its path writes
/// `defer { folder.remove() }`.
final class TemporaryDirectory: Sendable {
    let path: String

    init(_ label: String = "mirror-test") {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        remove()
    }

    /// Removes the folder and everything in it.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    func files(under folder: String) -> [String] {
        let root = path + "/" + folder
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root + "/" + $0, isDirectory: &isFolder)
            return !isFolder.boolValue
        }
    }
}
