import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCLI

/// Sizes and durations with units, the crawl budgets they set, and options that cannot go together.
@Suite("mirror crawl options")
final class CrawlOptionTests {
    /// A folder for each test (Swift Testing makes a new instance per test); `deinit` removes it.
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("cli-options-\(UUID().uuidString)").path

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    @Test(
        arguments: [
            ("4096", 4096), ("500K", 512_000), ("10M", 10_485_760), ("2G", 2_147_483_648), ("1.5k", 1536),
            ("10MB", 10_485_760), ("10MiB", 10_485_760), ("7b", 7),
        ] as [(String, Int64)])
    func sizesTakeUnits(text: String, bytes: Int64) {
        #expect(ByteSize(argument: text)?.bytes == bytes)
    }

    /// Help shows a default in the largest unit that divides it, and reads back as the same size.
    @Test(
        arguments: [(Int64(1) << 30, "1G"), (64 << 20, "64M"), (1536, "1536"), (1024, "1K"), (0, "0"), (1500, "1500")]
            as [(Int64, String)])
    func defaultSizesShowTheirUnit(bytes: Int64, shown: String) {
        #expect(ByteSize(bytes: bytes).defaultValueDescription == shown)
        #expect(ByteSize(argument: shown)?.bytes == bytes)
    }

    @Test(arguments: ["", "K", "-1", "10Q", "1.5.2M", "ten"])
    func badSizesAreRefused(text: String) {
        #expect(ByteSize(argument: text) == nil)
    }

    @Test(
        arguments: [("30", 30), ("30s", 30), ("5m", 300), ("2h", 7200), ("1d", 86400), ("250ms", 0.25), ("0.5", 0.5)]
            as [(String, Double)])
    func durationsTakeUnits(text: String, seconds: Double) {
        #expect(TimeSpan(argument: text)?.seconds == seconds)
    }

    @Test(arguments: ["", "s", "-2s", "5 minutes", "3w"])
    func badDurationsAreRefused(text: String) {
        #expect(TimeSpan(argument: text) == nil)
    }

    /// Contradictory cache options are a usage error naming both; so is a bad unit and a
    /// `--resume` where no crawl was started.
    @Test func clashesAndMistakesAreUsageErrors() async throws {
        for clash in [["--offline", "--refresh"], ["--offline", "--max-age", "1h"], ["--refresh", "--max-age", "10m"]] {
            let result = try await MirrorProcess.run(["crawl", "http://127.0.0.1:1/", "-o", root + "/a"] + clash)
            #expect(result.status == 2, "\(clash)")
            #expect(result.stderr.contains(clash[0]) && result.stderr.contains(clash[1]), "\(clash): \(result.stderr)")
        }
        let badSize = try await MirrorProcess.run(["crawl", "http://127.0.0.1:1/", "--max-bytes", "10Q", "-o", root + "/b"])
        #expect(badSize.status == 2)
        let nothing = try await MirrorProcess.run([
            "crawl", "http://127.0.0.1:1/", "--resume", "-o", root + "/c", "--cache", root + "/cache",
        ])
        #expect(nothing.status == 2)
        #expect(nothing.stderr.contains("nothing to resume"))
    }

    /// `--max-bytes` and `--max-file-size` take units and bound the crawl.
    @Test func budgetsWithUnitsBoundTheCrawl() async throws {
        try await TestOrigin.with { origin in
            let filler = String(repeating: "x", count: 1500)
            origin.route("/") { _ in .html("<img src='/big.png'>" + (1...20).map { "<a href='/p\($0).html'>p</a>" }.joined()) }
            for index in 1...20 { origin.route("/p\(index).html") { _ in .html("page \(index) \(filler)") } }
            origin.route("/big.png") { _ in
                TestResponse(headers: [("Content-Type", "image/png")], body: String(repeating: "b", count: 4096))
            }
            let result = try await MirrorProcess.run([
                "crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache", "--concurrency", "1",
                "--max-bytes", "10K", "--max-file-size", "2K", "--report", root + "/report.json",
            ])
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/report.json"))) as? [String: Any])
            let skipped = report["skipped"] as? [String: Int] ?? [:]
            #expect(result.status == 0 || result.status == 8, "\(result.stderr)")
            #expect(skipped["larger than --max-file-size"] == 1, "\(skipped)")
            #expect((skipped["byte or time budget reached"] ?? 0) > 5, "\(skipped)")
            #expect((report["bytes"] as? Int ?? .max) < 10 * 1024 + 1600)
        }
    }
}
