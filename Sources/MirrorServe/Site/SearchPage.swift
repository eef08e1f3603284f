import Foundation
import MirrorCore
import MirrorHTML
import MirrorHTTPServer
import MirrorLock
import MirrorSearch
import NIOHTTP1

/// `mirror serve`'s search page, `/_/search?q=QUERY[&page=N]`: the folder's index (`SearchIndex`)
/// asked, ten results a page, each a link into the served copy with its snippet, hits in `<mark>`;
/// plain HTML, no script, every piece of text escaped. The index is opened (made or brought up
/// to date when need be) by the first search, not when the server starts.
final class SearchPage: Sendable {
    static let path = "/_/search"
    static let pageSize = 10
    /// The mirror searched.
    private let files: any SiteFiles
    /// One SQLite connection, one query at a time: a query takes milliseconds.
    private let index = Locked<SearchIndex?>(nil)

    init(files: any SiteFiles) {
        self.files = files
    }

    /// The search box: a form that asks this page for `text`.
    static func form(_ text: String) -> String {
        """
        <form action="\(path)" method="get"><input type="search" name="q" size="40" value="\(HTMLEscaping.escape(text))">
        <button type="submit">Search</button></form>
        """
    }

    /// Words to look for when `path` was not found: its last segment without its extension
    /// (`/library/os-path.html` → `os path`).
    static func words(of path: String) -> String {
        let name = path.split(separator: "?").first.flatMap { $0.split(separator: "/").last } ?? ""
        let stem = name.split(separator: ".").first ?? ""
        return (String(stem).removingPercentEncoding ?? String(stem)).split { !$0.isLetter && !$0.isNumber }.joined(separator: " ")
    }

    /// The page for `query` (the request's query string, undecoded).
    func respond(query: Substring?, served: (String) -> String) -> ServerResponse {
        let parameters = Self.parameters(query)
        let text = parameters["q"] ?? ""
        let page = max(1, parameters["page"].flatMap(Int.init) ?? 1)
        var body = ""
        var status = HTTPResponseStatus.ok
        if text.trimmingCharacters(in: .whitespaces).isEmpty {
            body = "<p>Type words to look for in this mirror's pages.</p>"
        } else {
            do {
                let parsed = try SearchQuery(text)
                let results = try index.withLock { index throws(SearchError) -> [SearchIndex.Result] in
                    if index == nil { index = try files.searchIndex() }
                    return try index!.search(parsed, limit: Self.pageSize + 1, offset: (page - 1) * Self.pageSize)
                }
                body = Self.list(results.prefix(Self.pageSize), text: text, page: page, more: results.count > Self.pageSize, served: served)
            } catch SearchError.badQuery(let message) {
                status = .badRequest
                body = "<p>Not a search query: \(HTMLEscaping.escape(message))</p>"
            } catch {
                status = .notFound
                body = "<p>\(HTMLEscaping.escape("\(error)"))</p>"
            }
        }
        let title = text.isEmpty ? "Search" : "Search: \(HTMLEscaping.escape(text))"
        let html = """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>\(title)</title>
            <style>body{font-family:sans-serif;max-width:50em;margin:2em auto;padding:0 1em}li{margin:1em 0}
            small{color:#555}mark{background:#fe6}</style></head>
            <body>\(Self.form(text))
            \(body)
            </body></html>

            """
        return .text(status, html, contentType: "text/html; charset=utf-8")
    }

    private static func list(
        _ results: ArraySlice<SearchIndex.Result>, text: String, page: Int, more: Bool,
        served: (String) -> String
    ) -> String {
        guard !results.isEmpty else { return page == 1 ? "<p>No page matches.</p>" : "<p>No more pages match.</p>" }
        var html = "<ol start=\"\((page - 1) * pageSize + 1)\">\n"
        for result in results {
            html +=
                "<li><a href=\"\(HTMLEscaping.escape(served(result.url)))\">\(HTMLEscaping.escape(result.title))</a><br>"
                + "<small>\(HTMLEscaping.escape(result.url))</small><br>"
                + result.snippet(open: "<mark>", close: "</mark>", escape: HTMLEscaping.escape) + "</li>\n"
        }
        html += "</ol>\n"
        let link = { (number: Int, label: String) in
            "<a href=\"\(path)?q=\((text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))&amp;page=\(number)\">\(label)</a>"
        }
        var pages: [String] = []
        if page > 1 { pages.append(link(page - 1, "Previous")) }
        if more { pages.append(link(page + 1, "Next")) }
        if !pages.isEmpty { html += "<p>" + pages.joined(separator: " · ") + "</p>\n" }
        return html
    }

    /// `name=value` pairs of a query string, `+` and percent escapes decoded.
    static func parameters(_ query: Substring?) -> [String: String] {
        var parameters: [String: String] = [:]
        let decode = { (raw: Substring) in (raw.replacingOccurrences(of: "+", with: " ").removingPercentEncoding) ?? "" }
        for pair in QueryParameters.split(String(query ?? "")) where !pair.isEmpty {
            let name = QueryParameters.name(of: pair)
            let value = name.endIndex == pair.endIndex ? "" : Substring(pair.utf8.dropFirst(name.utf8.count + 1))
            parameters[decode(name)] = decode(value)
        }
        return parameters
    }
}
