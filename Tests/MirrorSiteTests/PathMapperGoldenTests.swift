import MirrorSite
import Testing

@Suite("URL → preferred local path, golden table")
struct PathMapperGoldenTests {
    let mapper = PathMapper()

    /// URL, content type, expected preferred path (`PathRegistry` makes them unique). Hashes are
    /// SHA-256 prefixes: they never change.
    static let table: [(String, String?, String)] = [
        // host, port, root, folder index
        ("http://Example.COM/", "text/html", "example.com/index.html"),
        ("http://example.com", "text/html", "example.com/index.html"),
        ("https://example.com:443/", "text/html", "example.com/index.html"),
        ("http://127.0.0.1:8080/", "text/html", "127.0.0.1_8080/index.html"),
        ("http://example.com/feed/", "application/rss+xml", "example.com/feed/index.rss"),
        ("http://example.com/", nil, "example.com/index.html"),
        // the names the site uses (wget's names)
        ("http://127.0.0.1:8000/index.html", "text/html", "127.0.0.1_8000/index.html"),
        ("http://h/a/index.html", "text/html", "h/a/index.html"),
        ("http://h/genindex-A.html", "text/html", "h/genindex-A.html"),
        ("http://h/_static/theme.css?v=2022.1", "text/css", "h/_static/theme@v=2022.1.css"),
        // a page /docs and a folder /docs/ both kept; /docs and /docs.html prefer one file
        ("http://h/docs", "text/html", "h/docs.html"),
        ("http://h/docs.html", "text/html", "h/docs.html"),
        ("http://h/docs/", "text/html", "h/docs/index.html"),
        ("http://h/docs/guide.html", "text/html; charset=utf-8", "h/docs/guide.html"),
        ("http://h/docs/index.html", "text/html", "h/docs/index.html"),
        ("http://h/docs/index", "text/html", "h/docs/index.html"),
        ("http://h/a.html/b", "text/html", "h/a%2Ehtml/b.html"),
        ("http://h/v1.2/", "text/html", "h/v1.2/index.html"),
        // extensions from the content type
        ("http://h/page.htm", "text/html", "h/page.htm"),
        ("http://h/photo.jpeg", "image/jpeg", "h/photo.jpeg"),
        ("http://h/photo", "image/jpeg", "h/photo.jpg"),
        ("http://h/style", "text/css", "h/style.css"),
        ("http://h/app.mjs", "text/javascript", "h/app.mjs"),
        ("http://h/app", "application/javascript", "h/app.js"),
        ("http://h/logo.gif", "image/png", "h/logo.gif.png"),
        ("http://h/x.php", "text/html", "h/x.php.html"),
        ("http://h/LICENSE", "application/x-unknown", "h/LICENSE"),
        ("http://h/license", nil, "h/license"),
        ("http://h/archive.tar.gz", "application/octet-stream", "h/archive.tar.gz"),
        ("http://h/data.bin", nil, "h/data.bin"),
        // query strings
        ("http://h/page.html?id=3&lang=en", "text/html", "h/page@id=3&lang=en.html"),
        ("http://h/page?id=3", "text/html", "h/page@id=3.html"),
        ("http://h/_static/theme.css?2022.1", "text/css", "h/_static/theme@2022.1.css"),
        ("http://h/page.html?", "text/html", "h/page@.html"),
        ("http://h/?q=x", "text/html", "h/index@q=x.html"),
        ("http://h/s?" + String(repeating: "q=1&", count: 30), "text/html", "h/s@~4293059c.html"),
        ("http://h/p.html?a/b?c", "text/html", "h/p@a%2Fb%3Fc.html"),
        // long names keep their extension and a hash of what was cut
        (
            "http://h/" + String(repeating: "a", count: 300) + ".css", "text/css",
            "h/" + String(repeating: "a", count: 187) + "~dc69e898.css"
        ),
        (
            "http://h/" + String(repeating: "b", count: 250) + "/", "text/html",
            "h/" + String(repeating: "b", count: 191) + "~68c5fbdb/index.html"
        ),
        // Windows: reserved names, forbidden characters, trailing dots and spaces
        ("http://h/con.txt", "text/plain", "h/%63on.txt"),
        ("http://h/aux/", "text/html", "h/%61ux/index.html"),
        ("http://h/nul.tar.gz", nil, "h/%6Eul.tar.gz"),
        ("http://h/com1", "text/html", "h/%63om1.html"),
        ("http://h/con", nil, "h/%63on"),
        ("http://h/lpt9.min.js", "text/javascript", "h/%6Cpt9.min.js"),
        ("http://h/a%3Cb%3E%22c%7C.html", "text/html", "h/a%3Cb%3E%22c%7C.html"),
        ("http://h/dots.../", "text/html", "h/dots..%2E/index.html"),
        ("http://h/sp%20/", "text/html", "h/sp%20/index.html"),
        ("http://h/.well-known/x.txt", "text/plain", "h/%2Ewell-known/x.txt"),
        // case is kept, with no hash (PathRegistry separates names equal once folded)
        ("http://h/A.html", "text/html", "h/A.html"),
        ("http://h/a.html", "text/html", "h/a.html"),
        ("http://h/Docs/", "text/html", "h/Docs/index.html"),
        ("http://h/a.HTML", "text/html", "h/a.HTML"),
        // percent-encoded UTF-8, spaces, unsafe decodings
        ("http://h/%C3%BCn%C3%AFcode.html", "text/html", "h/ünïcode.html"),
        ("http://h/ünïcode.html", "text/html", "h/ünïcode.html"),
        ("http://h/my%20file.pdf", "application/pdf", "h/my file.pdf"),
        ("http://h/a%2Fb.html", "text/html", "h/a%2Fb.html"),
        ("http://h/a%5Cb.html", "text/html", "h/a%5Cb.html"),
        ("http://h/a%00b.html", "text/html", "h/a%00b.html"),
        ("http://h/..%2f..%2fetc", nil, "h/%2E.%2F..%2Fetc"),
        ("http://h/trailing.", nil, "h/trailing%2E"),
        ("http://h/%2e%2e/%2e%2e/x.html", "text/html", "h/x.html"),
        ("http://h/%C0%AE%C0%AE/x.html", "text/html", "h/%C0%AE%C0%AE/x.html"),
        ("http://h/%FF.html", "text/html", "h/%FF.html"),
        ("http://h/%25.html", "text/html", "h/%25.html"),
        ("http://h/a%3Bb.html", "text/html", "h/a%3Bb.html"),
        ("http://h/a;b.html", "text/html", "h/a;b.html"),
        ("http://h/a:b.html", "text/html", "h/a%3Ab.html"),
        ("http://h/a%3Ab.html", "text/html", "h/a%3Ab~39462eb6.html"),
        ("http://h/~user/", "text/html", "h/%7Euser/index.html"),
        ("http://h/npm/lodash@4.17.21/lodash.min.js", "text/javascript", "h/npm/lodash%404.17.21/lodash.min.js"),
        ("http://h//x.png", "image/png", "h/~/x.png"),
        ("http://h/a\\b.html", "text/html", "h/a/b.html"),
        // fragments are ignored, equivalent URLs agree
        ("http://h/x.html#top", "text/html", "h/x.html"),
        ("HTTP://H:80/./y/../x.html", "text/html", "h/x.html"),
        ("http://h/%7Euser/", "text/html", "h/%7Euser/index.html"),
    ]

    @Test func table() {
        for (url, type, expected) in Self.table {
            #expect(mapper.path(for: url, contentType: type)?.string == expected, "\(url) \(type ?? "nil")")
        }
    }

    @Test(arguments: ["ftp://h/x", "file:///etc/passwd", "/relative", "mailto:a@b", "http:/x", "", "javascript:alert(1)"])
    func nonHTTPURLsHaveNoPath(url: String) {
        #expect(mapper.path(for: url, contentType: "text/html") == nil)
    }

    /// A mapper keeps the folder name of each host it has named: one that has named every other
    /// host first names each URL as a new mapper does (the port, the case, two Unicode spellings
    /// of one host, in both orders).
    @Test func hostNamesKeptChangeNoName() {
        let hosts = HostileURLs.hosts + ["é.test", "e\u{301}.test", "h:8080", "H:8080"]
        let urls = hosts.flatMap { host in ["http://\(host)/a.html", "https://\(host)/", "https://\(host):443/b"] }
        let shared = PathMapper()
        for url in urls + urls.reversed() {
            #expect(shared.path(for: url, contentType: "text/html") == PathMapper().path(for: url, contentType: "text/html"), "\(url)")
        }
    }

    @Test func smallerSegmentLimit() {
        let mapper = PathMapper(maxSegmentBytes: 40)
        let path = mapper.path(for: "http://h/" + String(repeating: "é", count: 60) + ".html", contentType: "text/html")
        let file = path!.components.last!
        #expect(file.utf8.count <= 40)
        #expect(file.hasSuffix(".html"))
        #expect(file.hasPrefix("éé"))
    }
}
