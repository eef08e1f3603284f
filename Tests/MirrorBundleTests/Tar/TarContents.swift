import MirrorBundle

/// What a `TarReader` reported for a whole archive.
struct TarContents: Equatable {
    var entries: [TarEntry] = []
    /// File contents by path.
    var files: [String: [UInt8]] = [:]
    var directories: [String] { entries.filter { $0.kind == .directory }.map(\.path) }
}
