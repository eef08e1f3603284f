/// Why an archive cannot be written or read. Each names the file, and for a damaged archive the
/// offset of the record where reading stopped (records before it were read).
public enum ArchiveError: Error, CustomStringConvertible {
    /// The file is neither a WARC nor a WACZ.
    case notAnArchive(path: String, reason: String)
    /// The archive is damaged in the record at `offset`: the gzip member starting there (or, in a
    /// plain WARC or a WARC compressed as one gzip stream, the record's first byte).
    case corrupt(path: String, offset: Int, reason: String)
    /// The archive ends inside the record at `offset`.
    case truncated(path: String, offset: Int)
    /// The folder to export has no readable manifest.
    case notAMirrorFolder(path: String, reason: String)
    /// A body to export does not match its digest (the folder or cache was changed or damaged).
    case damagedBody(url: String)
    case io(path: String, message: String)

    public var description: String {
        switch self {
        case .notAnArchive(let path, let reason): return "\(path) is not a WARC or WACZ file: \(reason)"
        case .corrupt(let path, let offset, let reason): return "\(path) is damaged in the record at offset \(offset): \(reason)"
        case .truncated(let path, let offset): return "\(path) is truncated: it ends inside the record at offset \(offset)"
        case .notAMirrorFolder(let path, let reason):
            return "\(path) is not a mirror folder (\(reason)); only folders written by `mirror crawl` can be exported"
        case .damagedBody(let url): return "the body of \(url) does not match its digest"
        case .io(let path, let message): return "\(path): \(message)"
        }
    }
}
