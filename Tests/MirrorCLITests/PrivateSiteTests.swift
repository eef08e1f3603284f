import Foundation
import MirrorTestSupport
import NIOHTTP1
import Testing

/// `mirror crawl` of a site that only a logged-in user sees, with each way in: a cookies.txt, a
/// session cookie the site sets, HTTP Basic, a bearer token. Every page is saved as the user
/// sees it; the second origin (a requisite host, a redirect target) receives no credential,
/// checked on its own log; the logout links are not followed; and no secret is in anything the
/// crawl wrote or printed.
@Suite("mirror crawl of private sites")
final class PrivateSiteTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("cli-private-\(UUID().uuidString)").path

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// The private site on `origin`, its requisites on `other`: `/` links to two private pages, two
    /// logout links and `/login`; its image on `other`, and an image of its own that redirects there.
    /// `allows` says whether a request is logged in; one that is not is sent `refusal`.
    static func serve(
        _ origin: TestOrigin, other: TestOrigin, allows: @escaping @Sendable (TestRequest) -> Bool,
        refusal: TestResponse = .redirect(to: "/login"), extra: [(String, String)] = []
    ) {
        func page(_ body: String, headers: [(String, String)] = []) -> TestOrigin.Handler {
            { request in allows(request) ? .html(body, headers: headers) : refusal }
        }
        origin.route(
            "/",
            page(
                """
                <title>Home</title><link rel=stylesheet href="/style.css"><h1>Private home</h1>
                <a href="/docs/a.html">A</a> <a href="/docs/b.html">B</a> <a href="/logout">x</a>
                <a href="/session/end"><span>Sign</span> out</a> <a href="/login">login</a>
                <img src="\(other.url("/pixel.png"))"> <img src="/img/logo.png">
                """, headers: extra))
        origin.route("/docs/a.html", page("<title>A</title><p>Private page A <a href='b.html'>B</a></p>"))
        origin.route("/docs/b.html", page("<title>B</title><p>Private page B <a href='/'>home</a></p>"))
        origin.route("/style.css") { request in allows(request) ? .content("h1 { color: teal }", type: "text/css") : refusal }
        origin.route("/img/logo.png") { _ in
            var redirect = TestResponse.redirect(to: other.url("/logo.png"))
            redirect.headers.add(name: "Cache-Control", value: "max-age=3600")
            return redirect
        }
        origin.route("/login") { _ in .html("<title>Log in</title><form method=post>Please log in</form>") }
        for path in ["/logout", "/session/end"] {
            origin.route(path) { _ in
                var response = TestResponse.redirect(to: "/login")
                response.headers.add(name: "Set-Cookie", value: "sid=; Max-Age=0; Path=/")
                response.headers.add(name: "Set-Cookie", value: "session=; Max-Age=0; Path=/")
                return response
            }
        }
        for path in ["/pixel.png", "/logo.png"] {
            other.route(path) { _ in TestResponse(headers: ["Content-Type": "image/png"], body: Array("PNG bytes".utf8)) }
        }
    }

    /// A 401 with `WWW-Authenticate: <challenge>`.
    static func challenge(_ challenge: String) -> TestResponse {
        var response = TestResponse.html("<title>401</title>Who are you?")
        response.status = 401
        response.headers.add(name: "WWW-Authenticate", value: challenge)
        return response
    }

    func crawl(_ url: String, _ options: [String], environment: [String: String] = [:]) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            MirrorProcess.executable,
            [
                "crawl", url, "-o", root + "/out", "--cache", root + "/cache",
                "--bundle", root + "/site.tar.gz", "--report", root + "/report.json",
                "--verbose", "--retries", "0",
            ] + options,
            environment: environment)
    }

    /// What a logged-in crawl must have done: every private page saved as the user sees it, the
    /// logout links listed and never requested, nothing sent to the other origin that lets anyone in.
    func expectMirrored(
        _ result: ChildProcess.Result, origin: TestOrigin, other: TestOrigin,
        credentialFields: [String] = ["authorization", "cookie"]
    ) throws {
        #expect(result.status == 0, "\(result.stderr)")
        let host = "127.0.0.1_\(origin.port)"
        for (file, text) in [
            ("index.html", "Private home"), ("docs/a.html", "Private page A"), ("docs/b.html", "Private page B"),
            ("style.css", "color: teal"),
        ] {
            let saved = try String(contentsOfFile: "\(root)/out/\(host)/\(file)", encoding: .utf8)
            #expect(saved.contains(text), "\(file): \(saved)")
            #expect(!saved.contains("Please log in"))
        }
        #expect(origin.requests(path: "/logout").isEmpty && origin.requests(path: "/session/end").isEmpty)
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/report.json"))) as? [String: Any]
        let skipped = (report?["skippedExamples"] as? [[String: Any]] ?? []).filter {
            ($0["reason"] as? String)?.contains("logout") == true
        }
        #expect(Set(skipped.compactMap { $0["url"] as? String }) == [origin.url("/logout"), origin.url("/session/end")])
        #expect(Set(other.requests.map(\.path)).isSuperset(of: ["/pixel.png", "/logo.png"]))
        for request in other.requests {
            for field in credentialFields { #expect(request.header(field) == nil, "\(field) sent to \(other.baseURL)\(request.path)") }
        }
    }

    /// Exports the cache as WARC and WACZ, then looks for each secret in every byte the crawl wrote
    /// (folder, bundle, report, cache, exports, unpacked when compressed) and printed.
    func expectNoSecret(_ secrets: [String], printed: String) async throws {
        let warc = try await MirrorProcess.run(["export", "--warc", root + "/site.warc.gz", "--cache", root + "/cache"])
        #expect(warc.status == 0, "\(warc.stderr)")
        let wacz = try await MirrorProcess.run(["export", "--wacz", root + "/site.wacz", "--from", root + "/out"])
        #expect(wacz.status == 0, "\(wacz.stderr)")
        let shown = try await MirrorProcess.run(["cache", "ls", "--cache", root + "/cache"])
        let found = try await SecretSearch.find(secrets, in: root, excluding: ["cookies.txt", "password", "netrc"])
        #expect(found.isEmpty, "secrets found: \(found)")
        for secret in secrets {
            #expect(!printed.contains(secret) && !shown.stdout.contains(secret) && !warc.stdout.contains(secret), "printed: \(secret)")
        }
    }

    @Test func aCookiesFileLogsIn() async throws {
        try await TestOrigin.with { other in
            try await TestOrigin.with { origin in
                let secret = "FILESECRET-\(UUID().uuidString)"
                Self.serve(origin, other: other, allows: { $0.header("cookie")?.contains("sid=\(secret)") == true })
                try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
                try """
                # Netscape HTTP Cookie File
                #HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\t\(secret)
                .elsewhere.example\tTRUE\t/\tFALSE\t0\tother\tnot-for-this-site

                """.write(toFile: root + "/cookies.txt", atomically: true, encoding: .utf8)
                let result = try await crawl(
                    origin.url("/"), ["--cookies", root + "/cookies.txt", "--save-cookies", root + "/saved-cookies"])
                try expectMirrored(result, origin: origin, other: other)
                #expect(origin.requests.allSatisfy { $0.header("cookie")?.contains("not-for-this-site") != true })
                // The one file a secret may be written to is the one the user asked for, readable by them alone.
                let saved = try String(contentsOfFile: root + "/saved-cookies", encoding: .utf8)
                #expect(saved.contains("#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\t\(secret)"), "\(saved)")
                let mode = try FileManager.default.attributesOfItem(atPath: root + "/saved-cookies")[.posixPermissions] as? Int
                #expect(mode == 0o600)
                try FileManager.default.removeItem(atPath: root + "/saved-cookies")
                try await expectNoSecret([secret], printed: result.stdout + result.stderr)
            }
        }
    }

    @Test func aSessionCookieTheSiteSetsIsKeptAndNeverStored() async throws {
        try await TestOrigin.with { other in
            try await TestOrigin.with { origin in
                let secret = "SITESECRET-\(UUID().uuidString)"
                // The first page sets the session; the others are served only with it.
                Self.serve(
                    origin, other: other, allows: { $0.path == "/" || $0.header("cookie")?.contains("session=\(secret)") == true },
                    extra: [("Set-Cookie", "session=\(secret); Path=/; HttpOnly")])
                let result = try await crawl(origin.url("/"), [])
                try expectMirrored(result, origin: origin, other: other)
                let shown = try await MirrorProcess.run(["cache", "show", origin.url("/"), "--cache", root + "/cache"])
                #expect(shown.status == 0 && shown.stdout.contains("Content-Type") && !shown.stdout.contains(secret), "\(shown.stdout)")
                try await expectNoSecret([secret], printed: result.stdout + result.stderr)
            }
        }
    }

    @Test func httpBasicWithAPasswordFileAnsweredForTheSeedsOriginOnly() async throws {
        try await TestOrigin.with { other in
            try await TestOrigin.with { origin in
                let password = "PASSWORD-\(UUID().uuidString)"
                let authorization = "Basic " + Data("alice:\(password)".utf8).base64EncodedString()
                Self.serve(
                    origin, other: other, allows: { $0.header("authorization") == authorization },
                    refusal: Self.challenge("Basic realm=\"Docs\", charset=\"UTF-8\""))
                try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
                try (password + "\n").write(toFile: root + "/password", atomically: true, encoding: .utf8)
                let result = try await crawl(origin.url("/"), ["--user", "alice", "--password-file", root + "/password"])
                try expectMirrored(result, origin: origin, other: other)
                // Asked once: after the first challenge every request carries the answer.
                #expect(origin.requests.filter { $0.header("authorization") == nil }.count <= 2, "\(origin.requests.map(\.path))")
                try await expectNoSecret([password, authorization.dropFirst(6).description], printed: result.stdout + result.stderr)
            }
        }
    }

    @Test func aBearerTokenAndAnAPIKeyGoToTheSeedsOriginOnly() async throws {
        try await TestOrigin.with { other in
            try await TestOrigin.with { origin in
                let token = "TOKEN-\(UUID().uuidString)"
                let key = "KEY-\(UUID().uuidString)"
                Self.serve(
                    origin, other: other, allows: { $0.header("authorization") == "Bearer \(token)" && $0.header("x-api-key") == key },
                    refusal: TestResponse(status: 403, headers: [("Content-Type", "text/plain")], body: "no"))
                let result = try await crawl(
                    origin.url("/"), ["--header", "Authorization: Bearer \(token)", "--header", "X-Api-Key: \(key)"])
                try expectMirrored(result, origin: origin, other: other, credentialFields: ["authorization", "cookie", "x-api-key"])
                try await expectNoSecret([token, key], printed: result.stdout + result.stderr)
            }
        }
    }

    /// A token given for an https site does not follow a redirect to plain http, even to a host
    /// the crawl allows.
    @Test func aCredentialForHTTPSNeverGoesOverHTTP() async throws {
        let authority = try TestCertificateAuthority()
        try await TestOrigin.with { plain in
            try await TestOrigin.with(tls: try authority.serverIdentity()) { origin in
                let token = "TOKEN-\(UUID().uuidString)"
                origin.route("/") { request in
                    request.header("authorization") == "Bearer \(token)"
                        ? .html("<h1>Private</h1><img src='/insecure.png'>") : TestResponse(status: 403, headers: [], body: "no")
                }
                origin.route("/insecure.png") { _ in .redirect(to: plain.url("/image.png")) }
                plain.route("/image.png") { _ in TestResponse(headers: ["Content-Type": "image/png"], body: Array("PNG".utf8)) }
                try await authority.withCertificateFile { file in
                    let result = try await crawl(
                        origin.url("/"),
                        [
                            "--header", "Authorization: Bearer \(token)", "--ca-certificate", file,
                            "--allow-host", "127.0.0.1",
                        ])
                    #expect(result.status == 0, "\(result.stderr)")
                }
                #expect(plain.requests(path: "/image.png").count == 1)
                #expect(plain.requests.allSatisfy { $0.header("authorization") == nil })
            }
        }
    }

    /// `--user` takes its password from $MIRROR_PASSWORD, else from ~/.netrc; a host that wants
    /// credentials the crawl was not given is reported once, with its realm, and not asked again.
    @Test func passwordsFromTheEnvironmentOrNetrcAndAChallengeWithoutThem() async throws {
        try await TestOrigin.with { other in
            try await TestOrigin.with { origin in
                let password = "PASSWORD-\(UUID().uuidString)"
                let authorization = "Basic " + Data("bob:\(password)".utf8).base64EncodedString()
                Self.serve(
                    origin, other: other, allows: { $0.header("authorization") == authorization },
                    refusal: Self.challenge("Basic realm=\"Team docs\""))
                let fromEnvironment = try await crawl(origin.url("/"), ["--user", "bob"], environment: ["MIRROR_PASSWORD": password])
                try expectMirrored(fromEnvironment, origin: origin, other: other)

                try FileManager.default.removeItem(atPath: root + "/out")
                try FileManager.default.removeItem(atPath: root + "/cache")
                try "machine 127.0.0.1 login bob password \"\(password)\"\n".write(
                    toFile: root + "/netrc", atomically: true, encoding: .utf8)
                let fromNetrc = try await crawl(
                    origin.url("/"), ["--user", "bob"], environment: ["NETRC": root + "/netrc", "MIRROR_PASSWORD": ""])
                #expect(fromNetrc.status == 0, "\(fromNetrc.stderr)")
                #expect(FileManager.default.fileExists(atPath: "\(root)/out/127.0.0.1_\(origin.port)/docs/b.html"))

                origin.clearLog()
                let without = try await ChildProcess.run(
                    MirrorProcess.executable,
                    [
                        "crawl", origin.url("/"), "-o", root + "/anonymous",
                        "--cache", root + "/anonymous-cache", "--retries", "3",
                    ])
                #expect(without.status == 4, "\(without.stderr)")
                #expect(
                    without.stderr.components(separatedBy: "wants credentials (401, realm \"Team docs\")").count == 2, "\(without.stderr)")
                #expect(origin.requests(path: "/").count == 1, "a 401 is not retried")

                let wrong = try await ChildProcess.run(
                    MirrorProcess.executable,
                    [
                        "crawl", origin.url("/"), "-o", root + "/wrong",
                        "--cache", root + "/wrong-cache", "--user", "bob",
                    ],
                    environment: ["MIRROR_PASSWORD": "not-it", "NETRC": root + "/missing"])
                #expect(wrong.status == 4)
                #expect(wrong.stderr.contains("refused the credentials (401, realm \"Team docs\")"), "\(wrong.stderr)")
                let missing = try await ChildProcess.run(
                    MirrorProcess.executable, ["crawl", origin.url("/"), "--user", "bob"],
                    environment: ["MIRROR_PASSWORD": "", "NETRC": root + "/missing"])
                #expect(missing.status == 2)
                #expect(missing.stderr.contains("no password for bob"), "\(missing.stderr)")
                let inURL = try await MirrorProcess.run(["crawl", "http://bob:\(password)@127.0.0.1:\(origin.port)/"])
                #expect(
                    inURL.status == 2 && inURL.stderr.contains("visible to everyone on this machine") && !inURL.stderr.contains(password))
            }
        }
    }

    /// A response that deletes the login cookie ends the session: the crawl stops at once with its
    /// own exit code, and the login page it was sent is not saved in place of the real page.
    @Test func theSiteEndingTheSessionStopsTheCrawl() async throws {
        try await TestOrigin.with { other in
            try await TestOrigin.with { origin in
                let secret = "FILESECRET-\(UUID().uuidString)"
                Self.serve(origin, other: other, allows: { $0.header("cookie")?.contains("sid=\(secret)") == true })
                origin.route("/docs/b.html") { _ in
                    .html(
                        "<title>Log in</title>Your session expired. Please log in",
                        headers: [("Set-Cookie", "sid=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/")])
                }
                try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
                try "127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\t\(secret)\n".write(
                    toFile: root + "/cookies.txt", atomically: true, encoding: .utf8)
                let result = try await crawl(origin.url("/"), ["--cookies", root + "/cookies.txt", "--concurrency", "1"])
                #expect(result.status == 14, "\(result.stderr)")
                #expect(
                    result.stderr.contains("the site ended the login session: \(origin.url("/docs/b.html")) deleted the cookie sid"),
                    "\(result.stderr)")
                let copy = (try? String(contentsOfFile: "\(root)/out/127.0.0.1_\(origin.port)/docs/b.html", encoding: .utf8)) ?? ""
                #expect(!copy.contains("Please log in"))
                #expect(origin.requests(path: "/logout").isEmpty)
            }
        }
    }

    /// What a crawl fetched with credentials is private to them in the cache: `cache ls` says so, and
    /// neither a crawl without them nor a replaying proxy is answered from it.
    @Test func responsesObtainedWithCredentialsArePrivateInTheCache() async throws {
        try await TestOrigin.with { other in
            try await TestOrigin.with { origin in
                let token = "TOKEN-\(UUID().uuidString)"
                Self.serve(
                    origin, other: other, allows: { $0.header("authorization") == "Bearer \(token)" },
                    refusal: TestResponse(status: 403, headers: [("Content-Type", "text/plain")], body: "no"))
                let result = try await crawl(origin.url("/"), ["--header", "Authorization: Bearer \(token)"])
                #expect(result.status == 0, "\(result.stderr)")
                let listed = try await MirrorProcess.run(["cache", "ls", "--cache", root + "/cache"])
                let lines = listed.stdout.split(separator: "\n")
                #expect(lines.contains { $0.contains("private") && $0.hasSuffix(origin.url("/docs/a.html")) }, "\(listed.stdout)")
                #expect(lines.contains { !$0.contains("private") && $0.hasSuffix(other.url("/pixel.png")) }, "\(listed.stdout)")

                let anonymous = try await MirrorProcess.run([
                    "crawl", origin.url("/"), "--offline", "--cache", root + "/cache",
                    "-o", root + "/anonymous",
                ])
                #expect(anonymous.status != 0)
                #expect(!FileManager.default.fileExists(atPath: "\(root)/anonymous/127.0.0.1_\(origin.port)/docs/a.html"))
                let again = try await MirrorProcess.run([
                    "crawl", origin.url("/"), "--offline", "--cache", root + "/cache",
                    "-o", root + "/again", "--header", "Authorization: Bearer \(token)",
                ])
                #expect(again.status == 0, "\(again.stderr)")
                #expect(FileManager.default.fileExists(atPath: "\(root)/again/127.0.0.1_\(origin.port)/docs/a.html"))
            }
        }
    }
}

/// Looks for secrets in every file under a folder, gzip members and zip entries unpacked.
enum SecretSearch {
    /// `"secret in path"` for each secret found; files whose name contains one of `excluding` are not read.
    static func find(_ secrets: [String], in folder: String, excluding: [String]) async throws -> [String] {
        let script = """
            import gzip, io, os, sys, zipfile
            secrets = [s.encode() for s in sys.argv[3:]]
            skip = sys.argv[2].split(",")
            def contents(name, data):
                yield name, data
                if data[:2] == b"\\x1f\\x8b":
                    try: yield from contents(name + "!gunzip", gzip.decompress(data))
                    except Exception: pass
                if data[:4] == b"PK\\x03\\x04":
                    with zipfile.ZipFile(io.BytesIO(data)) as archive:
                        for entry in archive.namelist(): yield from contents(name + "!" + entry, archive.read(entry))
            for base, _, files in os.walk(sys.argv[1]):
                for file in files:
                    path = os.path.join(base, file)
                    if any(part in file for part in skip): continue
                    with open(path, "rb") as handle: data = handle.read()
                    for name, data in contents(path, data):
                        for secret in secrets:
                            if secret in data: print(secret.decode(), "in", name)
            """
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", script, folder, excluding.joined(separator: ",")] + secrets)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }
}
