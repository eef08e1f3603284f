import Foundation
import MirrorCredentials
import MirrorTestSupport
import Testing

@testable import MirrorBrowser

extension BrowserSuites {
    /// `mirror crawl --browser --cookies --save-cookies` of a site that only a logged-in user sees:
    /// Chromium is given the crawl's jar (the page's scripts see the login), every request the page
    /// makes carries the session to the site's own origin and nothing to another, and what the
    /// page's script and responses set comes back into the jar and the saved cookies file.
    @Suite("Cookies in the browser")
    struct BrowserCookieTests {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("browser-cookies-\(UUID().uuidString)").path

        /// The private site on `origin`, its image on `other` (the same host, another port: a
        /// cookie of 127.0.0.1 matches it, the crawl's credentials must not go there). Every page
        /// and `/api/data.json` need `sid=<secret>`, else 302 to `/login`.
        static func serve(_ origin: TestOrigin, other: TestOrigin, secret: String) {
            let allowed = { @Sendable (request: TestRequest) in
                (request.header("cookie") ?? "").split(separator: ";").contains {
                    $0.trimmingCharacters(in: .whitespaces) == "sid=\(secret)"
                }
            }
            // Reads document.cookie (the theme the user gave; the HttpOnly session stays hidden), sets
            // a cookie of its own, and builds its content from JSON the server sends logged-in users only.
            let script = """
                <script>
                  const seen = document.cookie;
                  if (seen.includes("theme=dark")) document.getElementById("theme").textContent = "Theme is dark; cookies seen: " + seen;
                  if (seen.includes("seen=1")) document.getElementById("before").textContent = "Seen before";
                  document.cookie = "seen=1; path=/";
                  fetch("/api/data.json").then(r => r.json()).then(d => {
                    document.getElementById("data").textContent = d.message;
                    if (document.cookie.includes("visited=yes")) document.getElementById("after").textContent = "Server cookie seen";
                  });
                </script>
                """
            func page(_ title: String, links: String) -> TestOrigin.Handler {
                { request in
                    allowed(request)
                        ? .html(
                            """
                            <!DOCTYPE html><title>\(title)</title><h1>\(title)</h1>
                            <p id=theme>no theme</p><p id=before>first visit</p><p id=data>loading</p><p id=after>no server cookie</p>
                            <img src="\(other.url("/pixel.png"))"> \(links)
                            \(script)
                            """) : .redirect(to: "/login")
                }
            }
            origin.route("/", page("Private home", links: "<a href=\"/second.html\">second</a>"))
            origin.route("/second.html", page("Second private page", links: "<a href=\"/\">home</a>"))
            origin.route("/api/data.json") { request in
                allowed(request)
                    ? .content(
                        "{\"message\": \"Data for the logged-in user\"}", type: "application/json",
                        headers: [("Set-Cookie", "visited=yes; Path=/")])
                    : .redirect(to: "/login")
            }
            origin.route("/login") { _ in .html("<title>Log in</title><form method=post>Please log in</form>") }
            other.route("/pixel.png") { _ in TestResponse(headers: ["Content-Type": "image/png"], body: Array("PNG bytes".utf8)) }
        }

        /// The jar's cookies as `Storage.setCookies` takes them, and `Storage.getCookies`'s as the jar's.
        @Test func cookiesAreWrittenAndReadTheDevToolsWay() throws {
            let hostOnly = BrowserCookies.parameter(
                Cookie(
                    name: "a", value: "1", domain: "app.example.org", path: "/docs", secure: true,
                    httpOnly: true, expires: 2_000_000_000, sameSite: "strict", creation: 0))
            #expect(
                hostOnly == [
                    "name": "a", "value": "1", "url": "https://app.example.org/docs", "path": "/docs", "secure": true,
                    "httpOnly": true, "sameSite": "Strict", "expires": .number(2_000_000_000),
                ])
            let domain = BrowserCookies.parameter(
                Cookie(
                    name: "b", value: "2", domain: "example.org", hostOnly: false, sameSite: "None",
                    creation: 0))
            // SameSite=None without Secure would be dropped by Chromium: it goes without the attribute.
            #expect(domain == ["name": "b", "value": "2", "domain": ".example.org", "path": "/", "secure": false, "httpOnly": false])

            let read = try #require(
                BrowserCookies.cookie(
                    [
                        "name": "seen", "value": "1", "domain": ".example.org", "path": "/",
                        "expires": -1, "httpOnly": false, "secure": false, "session": true,
                        "sameSite": "Lax",
                    ], now: 5))
            #expect(read == Cookie(name: "seen", value: "1", domain: "example.org", hostOnly: false, sameSite: "Lax", creation: 5))
            let persistent = try #require(
                BrowserCookies.cookie(
                    [
                        "name": "p", "value": "2", "domain": "127.0.0.1", "path": "/x",
                        "expires": .number(1_900_000_000.5), "session": false, "httpOnly": true,
                    ], now: 5))
            #expect(
                persistent.hostOnly && persistent.domain == "127.0.0.1" && persistent.expires == 1_900_000_000.5 && persistent.httpOnly
                    && !persistent.given)
            // A partitioned cookie belongs to one top-level site, which the jar cannot say: not kept.
            #expect(
                BrowserCookies.cookie(
                    [
                        "name": "c", "value": "3", "domain": "cdn.example", "path": "/", "session": true,
                        "partitionKey": ["topLevelSite": "https://example.org", "hasCrossSiteAncestor": true],
                    ], now: 5) == nil)
            // Chromium caps an expiry at 400 days: a given cookie that lasts longer is unchanged.
            let now = 1_800_000_000.0
            let long = Cookie(name: "l", value: "v", domain: "example.org", expires: now + 800 * 86400, creation: 0)
            var capped = long
            capped.expires = now + 400 * 86400
            #expect(BrowserCookies.isSame(capped, long, now: now))
            capped.value = "w"
            #expect(!BrowserCookies.isSame(capped, long, now: now))
        }

        @Test func theBrowserSharesTheJarAndWhatThePageSetsIsKept() async throws {
            defer { try? FileManager.default.removeItem(atPath: root) }
            _ = try BrowserTesting.executable()
            try await TestOrigin.with { other in
                try await TestOrigin.with { origin in
                    let secret = "BROWSERSECRET-\(UUID().uuidString)"
                    Self.serve(origin, other: other, secret: secret)
                    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
                    try """
                    # Netscape HTTP Cookie File
                    #HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\t\(secret)
                    127.0.0.1\tFALSE\t/\tFALSE\t0\ttheme\tdark

                    """.write(toFile: root + "/cookies.txt", atomically: true, encoding: .utf8)
                    let result = try await ChildProcess.run(
                        BuiltProducts.executable("mirror"),
                        [
                            "crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache", "--report", root + "/report.json",
                            "--browser", "--browser-tabs", "1", "--verbose", "--retries", "0",
                            "--cookies", root + "/cookies.txt", "--save-cookies", root + "/saved-cookies",
                        ])
                    try #require(result.status == 0, "\(result.stderr.suffix(3000))")
                    let report =
                        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/report.json")))
                        as? [String: Any]
                    #expect((report?["browserNotes"] as? [Any])?.isEmpty == true, "\(report?["browserNotes"] ?? "none")")

                    // The browser had the jar: the theme the user gave is seen by the page's script, the HttpOnly
                    // session is not (but its requests carried it: the data came).
                    let folder = "\(root)/out/127.0.0.1_\(origin.port)/"
                    let home = try String(contentsOfFile: folder + "index.html", encoding: .utf8)
                    // (The snapshot keeps the script's text, inert: the elements' text is what the script wrote.)
                    #expect(
                        home.contains("<h1>Private home</h1>") && home.contains("<p id=\"data\">Data for the logged-in user</p>"), "\(home)"
                    )
                    #expect(home.contains("<p id=\"theme\">Theme is dark; cookies seen: theme=dark</p>"), "\(home)")
                    #expect(home.contains("<p id=\"before\">first visit</p>"), "\(home)")
                    #expect(!home.contains(secret) && !home.contains("sid="), "\(home)")
                    // A response's Set-Cookie reached the browser, through the tab's proxy.
                    #expect(home.contains("<p id=\"after\">Server cookie seen</p>"), "\(home)")
                    // The second page's browser was given what the first page's script set.
                    let second = try String(contentsOfFile: folder + "second.html", encoding: .utf8)
                    #expect(
                        second.contains("<h1>Second private page</h1>") && second.contains("<p id=\"data\">Data for the logged-in user</p>")
                            && second.contains("<p id=\"before\">Seen before</p>"), "\(second)")
                    #expect(!second.contains(secret), "\(second)")
                    for (file, bytes) in FolderContents.files(root + "/out", excluding: [".mirror/"]) {
                        #expect(!String(decoding: bytes, as: UTF8.self).contains("Please log in"), "\(file) is the login page")
                    }

                    // Every request of the site carried the session; the page's cookie went back to the site
                    // once kept; the other origin got no cookie at all.
                    #expect(origin.requests(path: "/login").isEmpty)
                    #expect(origin.requests(path: "/api/data.json").count >= 1)
                    for request in origin.requests where request.path != "/robots.txt" {
                        #expect(request.header("cookie")?.contains("sid=\(secret)") == true, "\(request.path) without the session")
                    }
                    #expect(origin.requests(path: "/second.html").allSatisfy { $0.header("cookie")?.contains("seen=1") == true })
                    #expect(other.requests(path: "/pixel.png").count >= 1)
                    for request in other.requests {
                        #expect(
                            request.header("cookie") == nil && request.header("authorization") == nil,
                            "sent to \(other.baseURL)\(request.path)")
                    }

                    // The saved jar holds the user's cookies as given and what the page and the server set.
                    let saved = try String(contentsOfFile: root + "/saved-cookies", encoding: .utf8)
                    #expect(saved.contains("127.0.0.1\tFALSE\t/\tFALSE\t0\tseen\t1\n"), "\(saved)")
                    #expect(saved.contains("visited\tyes"), "\(saved)")
                    #expect(saved.contains("#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\t\(secret)"), "\(saved)")
                    #expect(saved.contains("theme\tdark"), "\(saved)")
                }
            }
        }
    }
}
