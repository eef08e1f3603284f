import Foundation

/// A fresh folder under the system's temporary directory, for one test.
struct TemporaryDirectory {
    let path: String

    init(_ label: String = "mirror-test") {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
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
