/// What a crawl did: totals, counts per status and per skip reason, every error with its
/// URL. Written with `--report FILE.json` and summarized on the terminal.
public struct CrawlReport: Sendable, Codable {
    public struct Failure: Sendable, Codable, Equatable {
        public let url: String
        /// The HTTP status, when the server answered.
        public let status: Int?
        public let message: String
        public let referrer: String?
    }

    public struct Skip: Sendable, Codable, Equatable {
        public let url: String
        public let reason: String
        public let referrer: String?
    }

    /// What a person should know about a page loaded in the browser (`--browser`).
    public struct BrowserNote: Sendable, Codable, Equatable {
        public let url: String
        public let message: String
    }

    /// An origin that answered 401 or 407: it wants credentials the crawl was not given (or
    /// refused those it was). Listed once per origin.
    public struct CredentialsWanted: Sendable, Codable, Equatable {
        public let origin: String
        public let status: Int
        /// The realm its challenge named.
        public let realm: String?
        /// True when the request carried credentials: the origin refused them.
        public let refused: Bool
    }

    /// The offline check of a page loaded in the browser (`--browser`): its copy, opened from
    /// the folder with no network, against the live page as it opened, at the same window size.
    public struct PageCheck: Sendable, Codable, Equatable {
        public enum Outcome: Sendable, Codable, Equatable, CustomStringConvertible {
            case identical
            /// `share` of the window's pixels differ (0 < share ≤ 1).
            case differs(share: Double)
            /// The copy could not be compared (why).
            case unchecked(String)

            public var description: String {
                switch self {
                case .identical: "identical"
                case .differs(let share): "\(Self.percent(share)) of pixels differ"
                case .unchecked(let why): "not checked: \(why)"
                }
            }

            /// A share as a percentage that is never shown as 0 when some pixels differ.
            private static func percent(_ share: Double) -> String {
                let value = share * 100
                if value < 0.01 { return "<0.01%" }
                let hundredths = Int((value * 100).rounded())
                return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)%"
            }
        }

        public let url: String
        /// The form the folder keeps.
        public let form: RenderedPage.CopyForm
        /// True when the copy differed and the other form was tried.
        public let retried: Bool
        public let outcome: Outcome
        /// The live and the offline screenshots, relative to the folder, when they are kept
        /// (`--keep-check-screenshots`).
        public let screenshots: [String]?
        /// What the copy's scripts requested offline that its replay layer could not answer.
        public let unanswered: [String]
    }

    /// Where the site ended the login session: the response that deleted a cookie the user gave.
    public struct SessionEnd: Sendable, Codable, Equatable {
        public let url: String
        /// The cookie's name (never its value).
        public let cookie: String
    }

    public var seeds: [String] = []
    public var startedAt: Double = 0
    public var seconds: Double = 0
    /// Responses saved (pages and requisites).
    public var fetched = 0
    public var pages = 0
    public var requisites = 0
    public var redirects = 0
    public var bytes = 0
    /// Cache outcomes: hit, revalidated, miss…
    public var cache: [String: Int] = [:]
    public var statuses: [String: Int] = [:]
    public var skipped: [String: Int] = [:]
    public var failures: [Failure] = []
    /// The first few skipped URLs per reason, to answer "why was URL X not fetched?".
    public var skippedExamples: [Skip] = []
    /// Pages loaded in the browser (`--browser`), and of those, the ones saved as their rendered DOM.
    public var rendered = 0
    public var snapshots = 0
    /// Pages that timed out, opened dialogs or windows, navigated away…, or whose browser failed.
    public var browserNotes: [BrowserNote] = []
    /// Each page's offline check, in the order the pages were saved.
    public var pageChecks: [PageCheck] = []
    public var credentialsWanted: [CredentialsWanted] = []
    /// Set when the crawl stopped because the site ended the login session.
    public var sessionEnded: SessionEnd?
    /// True when the crawl stopped before its frontier was empty (budget, signal, error).
    public var incomplete = false
    /// True when the crawl was cancelled (Ctrl-C) before it was done.
    public var interrupted = false

    public init() {}
}

extension CrawlReport {
    /// The report of a crawl several workers made, from each one's report: counts added,
    /// the earliest start, the longest time.
    public static func merged(_ reports: [CrawlReport]) -> CrawlReport {
        var total = CrawlReport()
        total.seeds = reports.first?.seeds ?? []
        total.startedAt = reports.map(\.startedAt).filter { $0 > 0 }.min() ?? 0
        for report in reports {
            total.seconds = max(total.seconds, report.seconds)
            total.fetched += report.fetched
            total.pages += report.pages
            total.requisites += report.requisites
            total.redirects += report.redirects
            total.bytes += report.bytes
            total.cache.merge(report.cache, uniquingKeysWith: +)
            total.statuses.merge(report.statuses, uniquingKeysWith: +)
            total.skipped.merge(report.skipped, uniquingKeysWith: +)
            total.failures += report.failures
            total.skippedExamples += report.skippedExamples
            total.rendered += report.rendered
            total.snapshots += report.snapshots
            total.browserNotes += report.browserNotes
            total.pageChecks += report.pageChecks
            for wanted in report.credentialsWanted where !total.credentialsWanted.contains(where: { $0.origin == wanted.origin }) {
                total.credentialsWanted.append(wanted)
            }
            total.sessionEnded = total.sessionEnded ?? report.sessionEnded
            total.incomplete = total.incomplete || report.incomplete
            total.interrupted = total.interrupted || report.interrupted
        }
        return total
    }
}
