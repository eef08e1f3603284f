import MirrorCache

/// The process exit codes, documented in docs/exit-codes.md. Scripts rely on them: never renumber,
/// and leave 9 unused (it once meant something else).
public enum ExitStatus: Int32, CaseIterable, Sendable {
    case success = 0
    /// An unexpected failure not covered below.
    case failure = 1
    /// The command line is wrong: unknown option, bad value, missing argument.
    case usage = 2
    /// Reading or writing local files failed (permissions, full disk, bad path).
    case io = 3
    /// The network failed: a seed could not be reached, DNS, connection refused, timeouts.
    case network = 4
    /// Some pages could not be fetched (server errors, 404s, offline misses), the rest were.
    case somePagesFailed = 8
    /// A bundle is corrupt, truncated, malicious or not a mirror bundle; or a WARC or WACZ is
    /// corrupt, truncated or not one.
    case badBundle = 10
    /// `cache verify` found damaged or missing entries.
    case cacheDamaged = 11
    /// `mirror check` found links that do not work offline.
    case brokenLinks = 12
    /// The database of a shared crawl (`--shared`) could not be reached, or went away for longer
    /// than the worker waits.
    case sharedDatabase = 13
    /// The site ended the login session (a response deleted a cookie the user gave): the crawl
    /// stopped before saving login pages; `--resume` with fresh credentials continues.
    case sessionEnded = 14
    /// Interrupted by Ctrl-C: what was saved is kept and finished; `--resume` continues.
    case interrupted = 130

    /// What the code means, for `--help` and docs/exit-codes.md.
    public var meaning: String {
        switch self {
        case .success: return "success"
        case .failure: return "unexpected failure"
        case .usage: return "usage error (bad option or argument)"
        case .io: return "local I/O error (permissions, full disk, bad path)"
        case .network: return "network failure (nothing could be fetched)"
        case .somePagesFailed: return "some pages failed (server errors, offline misses)"
        case .badBundle: return "bad bundle or archive (corrupt, truncated, malicious, not a mirror bundle, WARC or WACZ)"
        case .cacheDamaged: return "the cache has damaged or missing entries"
        case .brokenLinks: return "the folder has broken links (mirror check)"
        case .sharedDatabase: return "the shared crawl's database could not be reached (mirror crawl --shared)"
        case .sessionEnded: return "the site ended the login session; the crawl stopped (--resume with fresh credentials continues)"
        case .interrupted: return "interrupted (Ctrl-C); what was saved is kept, --resume continues"
        }
    }
}

extension ExitStatus {
    /// The exit code for a cache failure that reaches the command line.
    init(_ error: CacheError) {
        switch error.code {
        case .io, .bodyTooLarge: self = .io
        case .corruptIndex, .corruptBody, .incompatibleVersion: self = .cacheDamaged
        default: self = .failure
        }
    }
}
