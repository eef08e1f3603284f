import Foundation
import MirrorCore
import MirrorServe
import MirrorSite
import MirrorTestSupport
import Testing

/// `mirror serve` end to end: a crawled folder served over real sockets, asked as a browser asks.
@Suite("mirror serve: as if it were the site")
struct ServeTests {
    @Test(arguments: ServedMirror.Source.allCases)
    func everySavedURLAnswersByItsOwnPathAndByItsFolderPath(source: ServedMirror.Source) async throws {
        try await ServedMirror.with(source) { mirror in
            #expect(mirror.manifest.resources.count >= 20)
            for (url, resource) in mirror.manifest.resources {
                let bytes = try mirror.file(resource.path)
                let type = SiteResponder.contentType(resource, path: resource.path)
                let authority = URLParts(url)!.authority
                for target in [mirror.target(of: url), "/_/\(authority)" + mirror.target(of: url), ServedMirror.encoded(resource.path)] {
                    let response = try await mirror.request(target)
                    #expect(response.status == resource.status, "\(target)")
                    #expect(response.body == bytes, "\(target)")
                    #expect(response.header("content-type") == type, "\(target)")
                }
            }
        }
    }

    /// A browser resolves a rewritten page's relative links against the address it opened the
    /// page by: every link must lead to a saved file from each of the three addresses.
    @Test(arguments: ServedMirror.Source.allCases)
    func everyLinkOfEveryPageLeadsToAFileWhicheverAddressOpenedThePage(source: ServedMirror.Source) async throws {
        try await ServedMirror.with(source) { mirror in
            var checked = 0
            for (url, resource) in mirror.manifest.resources where resource.contentType?.hasPrefix("text/html") == true {
                let authority = URLParts(url)!.authority
                for target in [mirror.target(of: url), "/_/\(authority)" + mirror.target(of: url), ServedMirror.encoded(resource.path)] {
                    let page = try await mirror.request(target)
                    let base = URL(string: "http://127.0.0.1" + target)!
                    for link in Self.links(in: page.text) {
                        guard let resolved = URL(string: link, relativeTo: base)?.absoluteURL,
                            resolved.host == "127.0.0.1"
                        else { continue }
                        let linked = resolved.path(percentEncoded: true) + (resolved.query(percentEncoded: true).map { "?" + $0 } ?? "")
                        let response = try await mirror.request(linked)
                        #expect(response.status < 400, "\(target) links to \(link): \(linked) is \(response.status)")
                        checked += 1
                    }
                }
            }
            #expect(checked > 50)
        }
    }

    /// The relative `href` and `src` values of a page (the fixture's pages write them plainly).
    static func links(in html: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"(?:href|src)="([^"]+)""#)
        return pattern.matches(in: html, range: NSRange(html.startIndex..., in: html))
            .map { String(html[Range($0.range(at: 1), in: html)!]).replacingOccurrences(of: "&amp;", with: "&") }
            .filter { !$0.contains(":") && !$0.hasPrefix("#") }
    }

    @Test func typesAreTheOriginsAndRedirectsAreRedirects() async throws {
        try await ServedMirror.with { mirror in
            let style = try await mirror.request("/css/theme.css?v=2022.1")
            #expect(style.status == 200)
            #expect(style.header("content-type") == "text/css")
            let moved = try await mirror.request("/old.html")
            #expect(moved.status == 301)
            #expect(moved.header("location") == "/index.html")
            let temporary = try await mirror.request("/moved")
            #expect(temporary.status == 302)
            #expect(temporary.header("location") == "/docs/")
            let followed = try await mirror.request(temporary.header("location")!)
            #expect(followed.status == 200)
        }
    }

    @Test func theRootOpensTheStartPageAndFoldersGetTheirSlash() async throws {
        try await ServedMirror.with { mirror in
            let root = try await mirror.request("/")
            #expect(root.status == 200)
            #expect(root.body == (try mirror.file(mirror.manifest.path(for: mirror.origin.url("/"))!)))
            let host = mirror.manifest.path(for: mirror.origin.url("/"))!.split(separator: "/")[0]
            let folder = try await mirror.request("/\(host)/docs")
            #expect(folder.status == 301)
            #expect(folder.header("location") == "/\(host)/docs/")
            let page = try await mirror.request("/\(host)/docs/")
            #expect(page.status == 200)
            let slashless = try await mirror.request("/css")
            #expect(slashless.status == 404, "the site had no /css/ either")
        }
    }

    @Test func whatWasNotSavedIsARealNotFoundPage() async throws {
        try await ServedMirror.with { mirror in
            let missing = try await mirror.request("/never/saved.html?x=1")
            #expect(missing.status == 404)
            #expect(missing.header("content-type") == "text/html; charset=utf-8")
            #expect(missing.text.contains("was not saved"))
            #expect(missing.text.contains("\(mirror.origin.baseURL)/never/saved.html?x=1"))
            // A search box asks this server's search page for the missing page's name.
            #expect(missing.text.contains("<form action=\"/_/search\" method=\"get\">"), "\(missing.text)")
            #expect(missing.text.contains("name=\"q\" size=\"40\" value=\"saved\""), "\(missing.text)")
            #expect(missing.text.contains("<a href=\"/\">"))
            let internals = try await mirror.request("/.mirror/manifest.json")
            #expect(internals.status == 404, "the mirror's own files are not part of the site")
            let post = try await mirror.request("/", method: "POST")
            #expect(post.status == 405)
            #expect(post.header("allow") == "GET, HEAD")
        }
    }

    @Test(arguments: ServedMirror.Source.allCases)
    func byteRangesAsVideoPlayersAskForThem(source: ServedMirror.Source) async throws {
        try await ServedMirror.with(source) { mirror in
            let film = ServedMirror.binary
            let size = film.count
            let whole = try await mirror.request("/media/film.bin")
            #expect(whole.status == 200)
            #expect(whole.header("accept-ranges") == "bytes")
            #expect(whole.body == film)
            let etag = try #require(whole.header("etag"))
            let cases: [(range: String, bytes: Range<Int>)] = [
                ("bytes=0-0", 0..<1), ("bytes=1000-299999", 1000..<300_000), ("bytes=-1", size - 1..<size),
                ("bytes=\(size - 10)-", size - 10..<size), ("bytes=-500000", size - 500_000..<size),
                ("bytes=1400000-9999999", 1_400_000..<size),
            ]
            for (range, bytes) in cases {
                let part = try await mirror.request("/media/film.bin", headers: ["Range: \(range)"])
                #expect(part.status == 206, "\(range)")
                #expect(part.header("content-range") == "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/\(size)", "\(range)")
                #expect(part.header("content-length") == String(bytes.count), "\(range)")
                #expect(part.body == Array(film[bytes]), "\(range)")
            }
            for range in ["bytes=\(size)-", "bytes=\(size + 5)-\(size + 10)", "bytes=-0"] {
                let refused = try await mirror.request("/media/film.bin", headers: ["Range: \(range)"])
                #expect(refused.status == 416, "\(range)")
                #expect(refused.header("content-range") == "bytes */\(size)", "\(range)")
            }
            for ignored in ["bytes=5-3", "bytes=0-1,5-6", "items=0-1", "bytes=x-"] {
                let full = try await mirror.request("/media/film.bin", headers: ["Range: \(ignored)"])
                #expect(full.status == 200 && full.body == film, "\(ignored)")
            }
            let stale = try await mirror.request("/media/film.bin", headers: ["Range: bytes=0-9", "If-Range: \"elsewhere\""])
            #expect(stale.status == 200 && stale.body == film, "an If-Range that does not match gets the whole file")
            let current = try await mirror.request("/media/film.bin", headers: ["Range: bytes=0-9", "If-Range: \(etag)"])
            #expect(current.status == 206 && current.body == Array(film[0..<10]))
            let head = try await mirror.request("/media/film.bin", method: "HEAD", headers: ["Range: bytes=0-9"])
            #expect(head.status == 200 && head.header("content-length") == String(size) && head.body.isEmpty, "only GET has ranges")
        }
    }

    @Test func validatorsGiveNotModified() async throws {
        try await ServedMirror.with { mirror in
            let page = try await mirror.request("/frame.html")
            let etag = try #require(page.header("etag"))
            let modified = try #require(page.header("last-modified"))
            for conditional in [
                "If-None-Match: \(etag)", "If-None-Match: \"other\", W/\(etag)", "If-None-Match: *",
                "If-Modified-Since: \(modified)",
            ] {
                let response = try await mirror.request("/frame.html", headers: [conditional])
                #expect(response.status == 304, "\(conditional)")
                #expect(response.header("etag") == etag, "\(conditional)")
                #expect(response.body.isEmpty)
            }
            let older = HTTPDate.format(HTTPDate.parse(modified)! - 1)
            for unmet in ["If-None-Match: \"other\"", "If-Modified-Since: \(older)"] {
                let response = try await mirror.request("/frame.html", headers: [unmet])
                #expect(response.status == 200 && response.body == page.body, "\(unmet)")
            }
            let failed = try await mirror.request("/frame.html", headers: ["If-Match: \"other\""])
            #expect(failed.status == 412)
            let head = try await mirror.request("/frame.html", method: "HEAD")
            #expect(head.status == 200 && head.header("content-length") == String(page.body.count) && head.header("etag") == etag)
        }
    }

    @Test func theHostHeaderAndThePrefixNameEveryHost() async throws {
        try await ServedMirror.with { mirror in
            let port = mirror.server.port
            let byHost = try await RawHTTPConnection.run {
                let connection = try RawHTTPConnection(port: port)
                try connection.send("GET /frame.html HTTP/1.1\r\nHost: \(mirror.origin.authority)\r\nConnection: close\r\n\r\n")
                return try connection.readResponse()
            }
            #expect(byHost.status == 200)
            #expect(byHost.body == (try mirror.file(mirror.manifest.path(for: mirror.origin.url("/frame.html"))!)))
            let unknownHost = try await mirror.request("/_/elsewhere.example/frame.html")
            #expect(unknownHost.status == 404)
        }
    }
}
