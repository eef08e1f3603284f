import ArgumentParser
import Foundation
import MirrorBundle
import MirrorHTML
import MirrorSearch

/// `mirror search`: the pages of a mirrored folder that match a query, best first.
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the pages of a mirrored folder or bundle.",
        discussion: """
            A crawl makes the folder's full-text index (.mirror/search.sqlite) and a bundle packed \
            from the folder holds it; a folder or bundle without one is indexed on first use. \
            Results are ranked by relevance (bm25), a hit in a page's title or headings counting \
            more than one in its text. Words match in any order; "a phrase" matches as written; \
            walk* matches words that begin so; AND, OR, NOT and parentheses combine them.

            Examples:
              mirror search docs 'os.walk'
              mirror search docs '"list comprehension"' --limit 3
              mirror search docs 'walk* NOT path' --json
            """
    )

    @Argument(help: ArgumentHelp("The mirrored folder or bundle.", valueName: "DIR|FILE.tar.gz")) var source: String
    @Argument(help: "What to look for.") var query: String
    @Option(help: "How many results to show.") var limit = 10
    @Flag(help: "Print the results as JSON.") var json = false

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be 1 or more") }
    }

    /// One result as `--json` prints it; hits in the snippet are between `<mark>` and `</mark>`,
    /// the rest HTML-escaped.
    struct Found: Encodable {
        let rank: Int
        let title: String
        let path: String
        let url: String
        let snippet: String
    }

    func run() throws {
        let parsed: SearchQuery
        do { parsed = try SearchQuery(query) } catch { throw CommandFailure("\(error)", status: .usage) }
        let results: [SearchIndex.Result]
        do {
            results = try index().search(parsed, limit: limit)
        } catch SearchError.badQuery(let message) {
            throw CommandFailure("not a search query: \(message)", status: .usage)
        } catch {
            throw CommandFailure("\(error)", status: .io)
        }
        if json {
            try Output.json(
                results.enumerated().map { index, result in
                    Found(
                        rank: index + 1, title: result.title, path: result.path, url: result.url,
                        snippet: result.snippet(open: "<mark>", close: "</mark>", escape: HTMLEscaping.escape))
                })
            return
        }
        if results.isEmpty { return Output.line("no page matches \(query)") }
        for (index, result) in results.enumerated() {
            Output.line("\(index + 1). \(result.title)\n   \(result.path)  (\(result.url))\n   \(result.snippet(open: "[", close: "]"))")
        }
    }

    /// The index of the folder, or of the bundle read in place: through its seek table when
    /// `mirror pack` made it with an index (the index and the results' pages are all that is
    /// read), else checked whole first, as `mirror serve` does.
    private func index() throws -> SearchIndex {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isFolder) else {
            throw CommandFailure("\(source): no such folder or bundle", status: .io)
        }
        if isFolder.boolValue { return try SearchIndex.open(folder: source) }
        do {
            if let bundle = try SeekableBundle.open(path: source), let index = try SearchIndex.open(bundle: bundle) { return index }
            return try SearchIndex.open(archive: BundleArchive(path: source))
        } catch let error as BundleError {
            throw CommandFailure("\(source): \(error)", status: .badBundle)
        }
    }
}
