import Foundation
import MirrorCrawl

/// The crawl's progress on standard error: a line redrawn in place on a terminal, a plain
/// log line every ten seconds otherwise (CI logs).
struct ProgressLine: Sendable {
    let isTerminal = isatty(STDERR_FILENO) == 1

    func draw(_ progress: CrawlProgress) {
        let rate = progress.seconds > 0 ? Double(progress.fetched) / progress.seconds : 0
        let text =
            "\(progress.fetched) fetched, \(progress.queued) queued, \(Output.bytes(progress.bytes)), "
            + String(format: "%.1f/s", rate) + ", \(progress.failures) errors"
        if isTerminal {
            FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
        } else if Int(progress.seconds) % 10 == 0 && progress.seconds >= 1 {
            FileHandle.standardError.write(Data("mirror: \(text)\n".utf8))
        }
    }

    static func summary(_ report: CrawlReport, output: String?) {
        if isatty(STDERR_FILENO) == 1 { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        var lines = [
            "saved \(report.fetched) files (\(report.pages) pages, \(report.requisites) requisites, "
                + "\(Output.bytes(report.bytes))) in " + String(format: "%.1f s", report.seconds) + (output.map { " to \($0)" } ?? "")
        ]
        if !report.cache.isEmpty {
            lines.append("cache: " + report.cache.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
        }
        if !report.skipped.isEmpty {
            lines.append("skipped: " + report.skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
        }
        for failure in report.failures.prefix(10) { lines.append("failed: \(failure.url): \(failure.message)") }
        if report.failures.count > 10 { lines.append("… and \(report.failures.count - 10) more failures (see --report)") }
        if report.rendered > 0 {
            lines.append(
                "browser: loaded \(report.rendered) pages"
                    + (report.snapshots > 0 ? ", \(report.snapshots) saved as their rendered DOM" : ""))
        }
        if !report.pageChecks.isEmpty {
            let identical = report.pageChecks.filter { $0.outcome == .identical }.count
            let differing = report.pageChecks.filter { if case .differs = $0.outcome { true } else { false } }
            let unchecked = report.pageChecks.count - identical - differing.count
            lines.append(
                "browser: checked \(report.pageChecks.count) copies offline against the live pages: \(identical) identical"
                    + (differing.isEmpty ? "" : ", \(differing.count) differ") + (unchecked == 0 ? "" : ", \(unchecked) not checked"))
            for check in report.pageChecks where check.outcome != .identical {
                lines.append("browser: \(check.url): \(check.outcome) (\(check.form.rawValue) form)")
                if lines.count > 40 { break }
            }
        }
        for note in report.browserNotes.prefix(10) { lines.append("browser: \(note.url): \(note.message)") }
        if report.browserNotes.count > 10 { lines.append("… and \(report.browserNotes.count - 10) more browser notes (see --report)") }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}
