/// Why a mirror cannot be opened (to serve or search it), or a file of it cannot be read.
public enum ServeError: Error, CustomStringConvertible {
    case source(path: String, reason: String)
    case read(path: String, reason: String)

    public var description: String {
        switch self {
        case .source(let path, let reason): "cannot open \(path): \(reason)"
        case .read(let path, let reason): "cannot read \(path): \(reason)"
        }
    }
}
