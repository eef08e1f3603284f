import Logging
import MirrorLock

/// The crawl's report as it grows: every part of the crawl counts, skips, fails and notes here,
/// workers at once.
final class ReportRecorder: Sendable {
    let report = Locked(CrawlReport())
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// The report as it is now.
    var current: CrawlReport { report.withLock { $0 } }

    /// Counts `item` as skipped for `reason`, with one of the first 20 examples of that reason.
    func skip(_ item: CrawlItem, _ reason: SkipReason) {
        report.withLock { report in
            report.skipped[reason.rawValue, default: 0] += 1
            if report.skippedExamples.count(where: { $0.reason == reason.rawValue }) < 20 {
                report.skippedExamples.append(.init(url: item.url, reason: reason.rawValue, referrer: item.referrer))
            }
        }
    }

    func failure(_ item: CrawlItem, status: Int?, message: String) {
        logger.debug("failed: \(item.url): \(message)")
        report.withLock { $0.failures.append(.init(url: item.url, status: status, message: message, referrer: item.referrer)) }
    }

    /// A note of the browser's on a page (`--browser`).
    func note(_ item: CrawlItem, _ message: String) {
        report.withLock { $0.browserNotes.append(.init(url: item.url, message: message)) }
    }
}
