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
}
