public import MirrorCache

/// What a crawl reports as it goes, for a log (`mirror crawl --verbose`).
public enum CrawlEvent: Sendable {
    /// A GET answered, by the cache or the origin.
    case request(url: String, status: Int, outcome: CacheOutcome, bytes: Int, milliseconds: Int)
    /// A page was loaded in the browser (`--browser`); `snapshot` when its copy is the rendered DOM.
    case rendered(url: String, milliseconds: Int, snapshot: Bool)
    /// A page's copy was checked offline against the live page (`--browser`).
    case checked(url: String, form: RenderedPage.CopyForm, outcome: CrawlReport.PageCheck.Outcome, retried: Bool, unanswered: [String])
    /// A phase of the crawl began.
    case phase(String)

    /// One line of the log.
    public var line: String {
        switch self {
        case .request(let url, let status, let outcome, let bytes, let milliseconds):
            return "GET \(url) \(status) \(outcome.rawValue) \(bytes) B \(milliseconds) ms"
        case .rendered(let url, let milliseconds, let snapshot):
            return "BROWSER \(url) \(milliseconds) ms\(snapshot ? " (saved as its rendered DOM)" : "")"
        case .checked(let url, let form, let outcome, let retried, let unanswered):
            return "CHECK \(url) \(outcome)" + (retried ? " (retried; the \(form.rawValue) form kept)" : "")
                + (unanswered.isEmpty
                    ? ""
                    : "; not answered offline: " + unanswered.prefix(5).joined(separator: " ")
                        + (unanswered.count > 5 ? " and \(unanswered.count - 5) more" : ""))
        case .phase(let name):
            return "-- \(name)"
        }
    }
}
