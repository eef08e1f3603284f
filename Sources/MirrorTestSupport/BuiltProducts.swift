public import Foundation

/// The executables `swift build` made beside the test bundle.
public enum BuiltProducts {
    /// The built executable `name` (the folder holding the test bundle also holds it).
    public static func executable(_ name: String) -> URL {
        var folder = Bundle.main.bundleURL
        if folder.pathExtension == "xctest" { folder.deleteLastPathComponent() }
        let direct = folder.appendingPathComponent(name)
        return FileManager.default.fileExists(atPath: direct.path)
            ? direct : folder.deletingLastPathComponent().appendingPathComponent(name)
    }
}
