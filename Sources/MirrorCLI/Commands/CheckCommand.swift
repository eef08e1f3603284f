import ArgumentParser
import MirrorCore
import MirrorSite

/// `mirror check`: does a mirrored folder browse offline?
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check that a mirrored folder browses offline: report its broken links.",
        discussion: """
            Reads every HTML page and style sheet of the folder (not .mirror/), finds each link \
            the crawler follows, and resolves it as a browser does from file://. A link is broken \
            when its file is missing, when it leads outside the folder or to a folder, or when it \
            is root-relative (/x) or protocol-relative (//host/x), which name no file of the \
            folder from file://. Absolute http(s) links are counted as unconverted, not broken: \
            with --origin, only those of that site.

            Examples:
              mirror check docs
              mirror check docs --origin https://docs.example.org
              mirror check docs --json
            """
    )

    @Argument(help: ArgumentHelp("The mirrored folder.", valueName: "DIR")) var directory: String
    @Option(help: ArgumentHelp("Count as unconverted only absolute links under this URL.", valueName: "URL")) var origin: String?
    @Option(help: "How many broken links to list.") var show = 10
    @Flag(help: "Print the result as JSON.") var json = false

    func validate() throws {
        if let origin, URLParts(origin) == nil { throw ValidationError("--origin must be an http(s) URL, e.g. https://docs.example.org") }
        guard show >= 0 else { throw ValidationError("--show must be 0 or more") }
    }

    func run() async throws {
        let report: OfflineLinkReport
        do {
            report = try OfflineLinkChecker(folder: directory, origin: origin, exampleLimit: show).check()
        } catch let error as SiteError {
            throw CommandFailure(error.description, status: .io)
        }
        if json {
            try Output.json(report)
        } else {
            for link in report.examples { Output.line("broken: \(link.file) -> \(link.link) (\(link.reason))") }
            if report.broken > report.examples.count { Output.line("… and \(report.broken - report.examples.count) more") }
            Output.line(
                """
                checked \(report.files) files (\(report.htmlFiles) HTML, \(report.cssFiles) CSS): \(report.links) links, \
                \(report.local) to files of the folder, \(report.broken) broken, \(report.unconverted) unconverted, \
                \(report.external) external
                """)
        }
        if report.broken > 0 {
            throw CommandFailure("\(directory) has \(report.broken) broken link\(report.broken == 1 ? "" : "s")", status: .brokenLinks)
        }
    }
}
