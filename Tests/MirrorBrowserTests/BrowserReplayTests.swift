import Foundation
import MirrorTestSupport
import Testing

extension BrowserSuites {
    /// What a `--browser` crawl saved shows the same pages with the origin gone: `mirror serve` of
    /// the folder and of its bundle, and the live pages with their scripts through
    /// `mirror proxy --mode replay` against the crawl's cache.
    @Suite("A browser crawl served and replayed")
    struct BrowserReplayTests {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("browser-replay-\(UUID().uuidString)").path

        @Test func servedAndReplayedPagesLookAsOnline() async throws {
            defer { try? FileManager.default.removeItem(atPath: root) }
            let origin = try await TestOrigin.start(site: .named("scripted"))
            let crawl = try await ChildProcess.run(
                BuiltProducts.executable("mirror"),
                ["crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache", "--bundle", root + "/out.tar.gz", "--browser"])
            try #require(crawl.status == 0, "\(crawl.stderr)")
            let pages = ["/", "/data.html", "/built.html", "/items/one.html"]
            var online: [String: PageView] = [:]
            try await PageViewer.with { viewer in
                for page in pages { online[page] = try await viewer.view(origin.url(page)) }
            }
            try await origin.shutdown()

            var servers: [ServerProcess] = []
            defer { for server in servers { server.process.signal(SIGKILL) } }
            for (name, arguments) in [("serve DIR", ["serve", root + "/out"]), ("serve BUNDLE", ["serve", root + "/out.tar.gz"])] {
                let server = try ServerProcess(arguments[0], Array(arguments.dropFirst()), log: root + "/\(servers.count).log")
                servers.append(server)
                let address = try await server.waitForURL()
                try await PageViewer.with { viewer in
                    for page in pages {
                        let served = try await viewer.view(address.dropLast() + page)
                        #expect(served == online[page], "\(name) \(page): \(served)\nonline: \(online[page]!)")
                    }
                }
            }
            let replay = try ServerProcess("proxy", ["--mode", "replay", "--cache", root + "/cache"], log: root + "/replay.log")
            servers.append(replay)
            let proxy = try await replay.waitForURL()
            try await PageViewer.with(proxy: String(proxy.dropLast())) { viewer in
                for page in pages {
                    let replayed = try await viewer.view(origin.url(page))
                    #expect(replayed == online[page], "replay \(page): \(replayed)\nonline: \(online[page]!)")
                }
            }
        }
    }
}
