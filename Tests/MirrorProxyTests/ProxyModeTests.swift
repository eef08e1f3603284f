import Foundation
import MirrorProxy
import MirrorTestSupport
import Testing

/// Record, replay and passthrough; `--on-miss`, `--max-age`, `--refresh`.
@Suite("mirror proxy: modes")
struct ProxyModeTests {
    /// What was recorded replays with the origin gone, and the replay opens no connection at all:
    /// not for hits, not for misses, not for other methods.
    @Test func aRecordingReplaysWithTheOriginStoppedAndNoConnectionIsEverOpened() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/page") { _ in .html("<p>recorded</p>", headers: [("Cache-Control", "no-cache"), ("ETag", "\"p\"")]) }
        let recorder = try await ProxyHarness.reverse(origin)
        #expect(try await recorder.request("GET", "/page").text == "<p>recorded</p>")
        await recorder.stop(keepingCache: true)

        let connectionsWhileRecording = origin.connections
        let replay = try await ProxyHarness.reverse(origin, mode: .replay, cacheFolder: recorder.cacheFolder)
        // Running origin: a miss, a POST and a stale hit still open nothing.
        let miss = try await replay.request("GET", "/never-recorded?x=1")
        #expect(miss.status == 504)
        #expect(miss.text.contains("\(origin.baseURL)/never-recorded?x=1"))
        #expect(miss.header("cache-status") == "mirror; detail=replay-miss")
        #expect(try await replay.log.eventually { $0.contains("GET /never-recorded?x=1 504 ") && $0.hasSuffix("replay-miss") })
        #expect(try await replay.request("POST", "/page", body: "x").status == 504)
        let hit = try await replay.request("GET", "/page")
        #expect(hit.status == 200)
        #expect(hit.text == "<p>recorded</p>")
        #expect(origin.connections == connectionsWhileRecording)
        // Stopped origin: the same answers.
        try await origin.shutdown()
        #expect(try await replay.request("GET", "/page").text == "<p>recorded</p>")
        #expect(try await replay.request("HEAD", "/page").status == 200)
        #expect(origin.connections == connectionsWhileRecording)
        await replay.stop()
    }

    /// Recording hands `Set-Cookie` to the client whose request brought it, and stores the response
    /// without it: the replay, to any client, gives nobody that session.
    @Test func setCookieGoesToItsClientAndIsNeverRecorded() async throws {
        let origin = try await TestOrigin.start()
        let secret = "S-\(UUID().uuidString)"
        origin.route("/page") { _ in .html("page", headers: [("Cache-Control", "max-age=600"), ("Set-Cookie", "sid=\(secret); HttpOnly")]) }
        let recorder = try await ProxyHarness.reverse(origin)
        let recorded = try await recorder.request("GET", "/page")
        #expect(recorded.header("set-cookie") == "sid=\(secret); HttpOnly")
        let hit = try await recorder.request("GET", "/page")
        #expect(hit.header("cache-status")?.contains("hit") == true && hit.header("set-cookie") == nil)
        await recorder.stop(keepingCache: true)
        let replay = try await ProxyHarness.reverse(origin, mode: .replay, cacheFolder: recorder.cacheFolder)
        let replayed = try await replay.request("GET", "/page")
        #expect(replayed.text == "page" && replayed.header("set-cookie") == nil)
        let files = FolderContents.files(recorder.cacheFolder)
        #expect(!files.isEmpty && files.values.allSatisfy { $0.firstRange(of: Array(secret.utf8)) == nil })
        await replay.stop()
        try await origin.shutdown()
    }

    @Test func onMiss404() async throws {
        let origin = try await TestOrigin.start()
        let replay = try await ProxyHarness.reverse(origin, mode: .replay) { $0.missStatus = 404 }
        let miss = try await replay.request("GET", "/nothing")
        #expect(miss.status == 404)
        #expect(miss.text.contains("/nothing"))
        #expect(origin.connections == 0)
        await replay.stop()
        try await origin.shutdown()
    }

    @Test func passthroughNeitherReadsNorWritesTheCache() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/page") { _ in .html("fresh", headers: [("Cache-Control", "max-age=600")]) }
        let proxy = try await ProxyHarness.reverse(origin, mode: .passthrough)
        for _ in 0..<2 {
            let response = try await proxy.request("GET", "/page")
            #expect(response.text == "fresh")
            #expect(response.header("cache-status") == "mirror; fwd=bypass; detail=passthrough")
            #expect(response.header("via")?.hasPrefix("1.1 mirror-") == true)
        }
        #expect(origin.requests(path: "/page").count == 2)
        #expect(try proxy.store.statistics().entries == 0)
        await proxy.stop()
        try await origin.shutdown()
    }

    /// `--max-age`: a response younger than S is used whatever its headers say; `--refresh`
    /// asks the origin about every stored response.
    @Test func maxAgeAndRefresh() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/uncacheable") { _ in .html("page", headers: [("Cache-Control", "max-age=0"), ("ETag", "\"u\"")]) }
        origin.route("/fresh") { _ in .html("page", headers: [("Cache-Control", "max-age=600"), ("ETag", "\"f\"")]) }
        let keeping = try await ProxyHarness.reverse(origin) { $0.cache.mode = .maxAge(3600) }
        _ = try await keeping.request("GET", "/uncacheable")
        #expect(try await keeping.request("GET", "/uncacheable").header("cache-status") == "mirror; hit; detail=stale")
        #expect(origin.requests(path: "/uncacheable").count == 1)
        await keeping.stop(keepingCache: true)

        let refreshing = try await ProxyHarness.reverse(origin, cacheFolder: keeping.cacheFolder) { $0.cache.mode = .refresh }
        _ = try await refreshing.request("GET", "/fresh")
        let again = try await refreshing.request("GET", "/fresh")
        #expect(again.header("cache-status") == "mirror; fwd=stale; fwd-status=304")
        #expect(origin.requests(path: "/fresh").count == 2)
        #expect(origin.requests(path: "/fresh").last?.header("if-none-match") == "\"f\"")
        await refreshing.stop()
        try await origin.shutdown()
    }
}
