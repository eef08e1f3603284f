import MirrorCore

/// Failures writing or reading the offline folder.
public enum SiteError: Error, CustomStringConvertible {
    case unmappable(String)
    case io(path: String, message: String)
    case unreadable(path: String, message: String)

    public var description: String {
        switch self {
        case .unmappable(let url): return "no local file name for \(url)"
        case .io(let path, let message): return "cannot write \(path): \(message)"
        case .unreadable(let path, let message): return "cannot read \(path): \(message)"
        }
    }

    /// A failed system call on a file or folder, as `io`.
    static func io(_ error: FileSystemError) -> SiteError {
        .io(path: error.path, message: error.message)
    }

    /// `body`'s use of the ledger, its failure a `SiteError` (one of the ledger's own names its file).
    static func fromLedger<Value>(_ body: () throws -> Value) throws -> Value {
        do { return try body() } catch let error as SiteError { throw error } catch {
            throw SiteError.io(path: ledgerName, message: "\(error)")
        }
    }

    static let ledgerName = ".mirror/journal.sqlite"
}
