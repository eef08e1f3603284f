/// How a program's requests use a cache folder: `mirror proxy --mode`, and `MirrorURLCache` for
/// URLSession and AsyncHTTPClient.
public enum RecordingMode: String, Sendable, CaseIterable {
    /// Answer per RFC 9111 and store what may be stored.
    case record
    /// Answer from the cache only; nothing ever leaves the machine, and a request never
    /// recorded is a miss.
    case replay
    /// Straight to the network: the cache is neither read nor written.
    case passthrough

    /// The engine's mode for a folder used this way: replay never touches the network,
    /// passthrough never the cache, and record answers in `recording`.
    public func cacheMode(recording: CacheMode) -> CacheMode {
        switch self {
        case .record: recording
        case .replay: .offline
        case .passthrough: .bypass
        }
    }
}
