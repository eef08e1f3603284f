/// The running totals behind the progress line.
public struct CrawlProgress: Sendable {
    public let fetched: Int
    public let queued: Int
    public let bytes: Int
    public let failures: Int
    public let seconds: Double
}
