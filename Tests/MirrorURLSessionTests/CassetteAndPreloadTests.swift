import Foundation
import MirrorCache
import MirrorTestSupport
import MirrorURLSession
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The test recorder (`MirrorCassette`) and preloading (`MirrorURLCache.preload`).
@Suite("recordings and preloading")
struct CassetteAndPreloadTests {
    let harness = SessionHarness()

    @Test func aCassetteRecordsOnceAndReplaysWithTheNetworkGone() async throws {
        defer { harness.remove() }
        let origin = try await TestOrigin.start()
        origin.route("/forecast") { _ in .content("{\"days\":7}", type: "application/json", headers: [("Cache-Control", "no-store")]) }
        let forecast = URL(string: origin.url("/forecast"))!
        let never = URL(string: origin.url("/never"))!
        // No recording yet: the first run records.
        #expect(try MirrorCassette.defaultMode(for: harness.folder, environment: [:]) == .record)
        let recorded = try await MirrorCassette.with(harness.folder) { session in text(try await session.data(from: forecast).0) }
        try await origin.shutdown()
        // The recording is there: later runs replay, offline.
        #expect(try MirrorCassette.defaultMode(for: harness.folder, environment: [:]) == .replay)
        let replayed = try await MirrorCassette.with(harness.folder) { session in text(try await session.data(from: forecast).0) }
        #expect(recorded == "{\"days\":7}" && replayed == recorded)
        await #expect {
            try await MirrorCassette.with(harness.folder) { session in _ = try await session.data(from: never) }
        } throws: { error in
            (error as? URLError)?.code == .resourceUnavailable
        }
        // `mirror cache ls` reads the recording as any cache folder, and `mirror proxy --mode
        // replay` serves it to other programs.
        let listing = try await ChildProcess.run(BuiltProducts.executable("mirror"), ["cache", "ls", "--cache", harness.folder])
        #expect(listing.status == 0 && listing.stdout.contains(forecast.absoluteString), "\(listing.stdout)\(listing.stderr)")
        let proxy = try ServerProcess("proxy", ["--mode", "replay", "--cache", harness.folder], log: harness.folder + "-proxy.log")
        defer { try? FileManager.default.removeItem(atPath: harness.folder + "-proxy.log") }
        _ = try await proxy.waitForURL()
        let served = try await proxy.get(forecast.absoluteString)
        #expect(try await proxy.interruptAndWait() == 0)
        #expect(served.status == 200 && served.text == recorded, "\(proxy.output)")
    }

    @Test func theEnvironmentChoosesTheModeAndAWrongOneIsRefused() throws {
        #expect(try MirrorCassette.defaultMode(for: harness.folder, environment: ["MIRROR_CASSETTE": "passthrough"]) == .passthrough)
        #expect(throws: MirrorCassette.UnknownMode.self) {
            try MirrorCassette.defaultMode(for: harness.folder, environment: ["MIRROR_CASSETTE": "rewind"])
        }
    }

    @Test func preloadStoresPagesWithTheirRequisitesForOfflineUse() async throws {
        defer { harness.remove() }
        let base = try await TestOrigin.with { origin in
            origin.route("/") { _ in
                .html(#"<link rel="stylesheet" href="/style.css"><img src="/logo.png"><a href="/next">next</a>"#)
            }
            origin.route("/style.css") { _ in .content("p { color: teal }", type: "text/css") }
            origin.route("/logo.png") { _ in .content("PNG", type: "image/png") }
            origin.route("/next") { _ in .html("<p>next</p>") }
            let report = try await harness.with(removing: false) { _, cache in try await cache.preload(urls: [origin.url("/")]) }
            #expect(report.pages == 1 && report.requisites == 2, "\(report.pages) pages, \(report.requisites) requisites")
            #expect(origin.requests(path: "/next").isEmpty)
            return origin.baseURL
        }
        // The origin is gone: the page and its requisites come from what was preloaded.
        try await harness.with(.replay, removing: false) { session, _ in
            var bodies: [String] = []
            for path in ["/style.css", "/logo.png"] { bodies.append(text(try await session.data(from: URL(string: base + path)!).0)) }
            #expect(bodies == ["p { color: teal }", "PNG"])
            let (page, _) = try await session.data(from: URL(string: base + "/")!)
            #expect(text(page).contains("logo.png"))
            await #expect {
                _ = try await session.data(from: URL(string: base + "/next")!)
            } throws: { error in
                (error as? URLError)?.code == .resourceUnavailable
            }
        }
    }
}
