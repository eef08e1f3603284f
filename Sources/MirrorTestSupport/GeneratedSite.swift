public import Foundation

/// Writes a linked site of any size to a folder, for `FixtureSite(root:)` to serve: a tree of
/// pages (fan-out 5) under ten sections, each page linking to its children, its parent and two
/// pages elsewhere, with a shared stylesheet whose URL has a query string (`theme.css?v=2`), a
/// background image it names, a shared logo, an image per tenth page and a redirect.
public enum GeneratedSite {
    /// Writes `pages` pages (at least 2) under `folder` and returns `folder` as a URL.
    @discardableResult
    public static func write(pages: Int, to folder: String) throws -> URL {
        let root = URL(fileURLWithPath: folder)
        func save(_ path: String, _ text: String) throws {
            let file = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        try save("static/theme.css", "body { background: url(bg.png) } h1 { color: #333 }\n")
        try save("static/bg.png", "PNG-bg")
        try save("static/logo.png", "PNG-logo")
        try save("_redirects", "/old.html /s1/p1.html 301\n")
        for page in 0..<pages {
            let children = (1...5).map { 5 * page + $0 }.filter { $0 < pages }
            var links = children.map { "<a href=\"\(href(of: $0))\">page \($0)</a>" }
            links.append("<a href=\"\(href(of: (page * 7 + 3) % pages))\">across</a>")
            links.append("<a href=\"\(href(of: (page * 13 + 11) % pages))\">elsewhere</a>")
            if page > 0 { links.append("<a href=\"\(href(of: (page - 1) / 5))\">up</a>") }
            if page == 0 { links.append("<a href=\"/old.html\">moved</a>") }
            let image = page % 10 == 0 ? "<img src=\"/img/p\(page).png\" alt=\"\">" : ""
            if page % 10 == 0 { try save("img/p\(page).png", "PNG-\(page)") }
            try save(
                path(of: page),
                """
                <!DOCTYPE html>
                <html><head><meta charset="utf-8"><title>Page \(page)</title>
                <link rel="stylesheet" href="/static/theme.css?v=2"></head>
                <body><h1>Page \(page)</h1><img src="/static/logo.png" alt="logo">\(image)
                <p>\(links.joined(separator: "\n"))</p></body></html>

                """)
        }
        return root
    }

    /// The file of page `index`: `index.html` for the first, else `sN/pINDEX.html`.
    static func path(of index: Int) -> String { index == 0 ? "index.html" : "s\(index % 10)/p\(index).html" }

    static func href(of index: Int) -> String { index == 0 ? "/" : "/" + path(of: index) }
}
