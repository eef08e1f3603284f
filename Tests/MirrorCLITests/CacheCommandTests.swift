import Foundation
import MirrorCache
import MirrorTestSupport
import NIOHTTP1
import Testing

/// `mirror cache …` run as a user would, on a cache filled through the library.
@Suite("mirror cache")
final class CacheCommandTests {
    /// A folder for each test (Swift Testing makes a new instance per test); `deinit` removes it.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-cache-\(UUID().uuidString)").path

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func fill(_ count: Int) throws -> CacheStore {
        let store = try CacheStore(directory: directory)
        for index in 0..<count {
            let writer = try store.makeBodyWriter()
            try writer.write(Array("body number \(index)".utf8))
            let head = CachedResponseHead(
                status: 200, headers: ["Content-Type": "text/plain", "Cache-Control": "max-age=60"],
                requestTime: 1000, responseTime: 1000)
            try store.store(url: "http://site.test/page\(index)", request: [:], head: head, body: writer)
        }
        return store
    }

    func json(_ arguments: [String]) async throws -> Any {
        let result = try await MirrorProcess.run(arguments + ["--cache", directory, "--json"])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    @Test func statsListShowAndRemove() async throws {
        _ = try fill(3)
        let stats = try #require(try await json(["cache", "stats"]) as? [String: Any])
        #expect(stats["entries"] as? Int == 3)
        #expect(stats["bodies"] as? Int == 3)
        let list = try #require(try await json(["cache", "ls"]) as? [[String: Any]])
        #expect(list.compactMap { $0["url"] as? String } == ["http://site.test/page0", "http://site.test/page1", "http://site.test/page2"])
        let shown = try #require(try await json(["cache", "show", "HTTP://SITE.test:80/page1#x"]) as? [[String: Any]])
        #expect((shown.first?["headers"] as? [String])?.contains("Cache-Control: max-age=60") == true)
        #expect(shown.first?["freshnessLifetime"] as? Double == 60)
        #expect(shown.first?["isFresh"] as? Bool == false)

        let removed = try await MirrorProcess.run(["cache", "rm", "http://site.test/page1", "--cache", directory])
        #expect(removed.status == 0)
        #expect(removed.stdout.contains("removed 1 entry"))
        let again = try await MirrorProcess.run(["cache", "rm", "http://site.test/page1", "--cache", directory])
        #expect(again.status == 1)
        #expect(again.stderr.contains("nothing is stored"))
        #expect((try await json(["cache", "stats"]) as? [String: Any])?["entries"] as? Int == 2)
    }

    @Test func verifyExitsElevenOnDamageAndRepairFixesIt() async throws {
        let store = try fill(4)
        let entry = try #require(try store.entry(for: "http://site.test/page2", request: [:]))
        let bodyPath = "\(directory)/bodies/\(entry.digest.prefix(2))/\(entry.digest)"
        try Data("tampered".utf8).write(to: URL(fileURLWithPath: bodyPath))

        let verify = try await MirrorProcess.run(["cache", "verify", "--cache", directory])
        #expect(verify.status == 11)
        #expect(verify.stdout.contains("damaged body: http://site.test/page2"))
        let repair = try await MirrorProcess.run(["cache", "verify", "--repair", "--cache", directory])
        #expect(repair.status == 0)
        let clean = try await MirrorProcess.run(["cache", "verify", "--cache", directory])
        #expect(clean.status == 0)
        #expect(clean.stdout.contains("checked 3 entries"))
    }

    @Test func pruneAndClear() async throws {
        _ = try fill(5)
        let pruned = try #require(try await json(["cache", "prune", "--max-size", "40"]) as? [String: Any])
        #expect((pruned["bodyBytes"] as? Int ?? 999) <= 40)
        #expect((pruned["evicted"] as? Int ?? 0) >= 2)
        let cleared = try await MirrorProcess.run(["cache", "clear", "--cache", directory])
        #expect(cleared.status == 0)
        #expect((try await json(["cache", "stats"]) as? [String: Any])?["entries"] as? Int == 0)
    }

    @Test func theDefaultFolderFollowsTheEnvironment() async throws {
        let output = directory + ".stats.json"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = try Subprocess(
            MirrorProcess.executable.path, ["cache", "stats", "--json"],
            environment: ["MIRROR_CACHE": directory, "HOME": "/nonexistent"], stdout: .file(output))
        #expect(try await process.exit() == .exited(0))
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [String: Any]
        #expect(stats?["directory"] as? String == directory)
    }

    @Test func aCorruptIndexExitsElevenWithAHint() async throws {
        _ = try fill(2)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: directory + "/index.sqlite" + suffix) }
        try Data(repeating: 0x33, count: 8192).write(to: URL(fileURLWithPath: directory + "/index.sqlite"))
        let stats = try await MirrorProcess.run(["cache", "stats", "--cache", directory])
        #expect(stats.status == 11)
        #expect(stats.stderr.contains("verify --repair"))
        let repair = try await MirrorProcess.run(["cache", "verify", "--repair", "--cache", directory])
        #expect(repair.status == 0)
        #expect((try await json(["cache", "stats"]) as? [String: Any])?["entries"] as? Int == 2)
    }
}
