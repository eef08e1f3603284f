/// One file or directory of a tar archive, as the reader reports it.
public struct TarEntry: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case file
        case directory
    }

    /// Relative, '/'-separated, checked safe; no leading "./" and no trailing "/".
    public var path: String
    public var kind: Kind
    /// Bytes of data; 0 for a directory.
    public var size: Int64

    public init(path: String, kind: Kind, size: Int64) {
        self.path = path
        self.kind = kind
        self.size = size
    }
}
