import Foundation
import MirrorTestSupport
import Testing

extension BrowserSuites {
    /// `mirror crawl --browser` on the `checked` fixture site: a header that changes on scroll
    /// (as Material for MkDocs' does), content that came by fetch, a page whose script shows where
    /// it was opened from, and one that no form of copy can show as it was (a canvas drawn over
    /// http only). Each copy is checked offline against the live page.
    @Suite("Each page's copy checked against the live page")
    struct BrowserCheckTests {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("browser-check-\(UUID().uuidString)").path

        struct Report: Decodable {
            struct Check: Decodable {
                let url: String
                let form: String
                let retried: Bool
                let outcome: [String: [String: Double]]
                let screenshots: [String]?
            }
            let pageChecks: [Check]
            let snapshots: Int
        }

        @Test func everyPageIsCheckedAndTheFormThatLooksRightIsKept() async throws {
            defer { try? FileManager.default.removeItem(atPath: root) }
            let origin = try await TestOrigin.start(site: .named("checked"))
            let crawl = try await ChildProcess.run(BuiltProducts.executable("mirror"), [
                "crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache", "--browser", "--verbose",
                "--keep-check-screenshots", "--report", root + "/report.json",
            ])
            try await origin.shutdown()
            try #require(crawl.status == 0, "\(crawl.stderr)")
            let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: root + "/report.json")))
            // `/` and `/index.html` share a file, checked once.
            let checks = Dictionary(uniqueKeysWithValues: report.pageChecks.map { ($0.url, $0) })
            #expect(checks.count == 3, "\(report.pageChecks.map(\.url))")

            // The page built from fetched data is its rendered DOM, taken as the page opens: the
            // header as at the top, not as the scroll down and back left it; its copy matches.
            let home = try #require(checks[origin.url("/")])
            #expect(home.form == "snapshot" && !home.retried && home.outcome.keys.first == "identical", "\(home)")
            let saved = try String(contentsOfFile: root + "/out/\(origin.host)_\(origin.port)/index.html", encoding: .utf8)
            #expect(saved.contains("first item from data.json"))
            #expect(!saved.contains("class=\"scrolled\"") && !saved.contains("hidden=\"\""), "saved in its scrolled state:\n\(saved)")

            // Its original says "file:" offline: the check finds it and keeps the rendered DOM.
            let protocolPage = try #require(checks[origin.url("/protocol.html")])
            #expect(protocolPage.form == "snapshot" && protocolPage.retried && protocolPage.outcome.keys.first == "identical",
                    "\(protocolPage)")
            let where_ = try String(contentsOfFile: root + "/out/\(origin.host)_\(origin.port)/protocol.html", encoding: .utf8)
            #expect(where_.contains("opened over http:"))

            // No form shows the canvas: reported with its share, the original (scripts running) kept.
            let canvas = try #require(checks[origin.url("/canvas.html")])
            let share = try #require(canvas.outcome["differs"]?["share"], "\(canvas)")
            #expect(canvas.form == "original" && canvas.retried && share > 0.005 && share < 0.2, "\(canvas)")
            #expect(crawl.stderr.contains("CHECK \(origin.url("/canvas.html")) "), "\(crawl.stderr)")
            #expect(crawl.stderr.contains("checked 3 copies offline against the live pages: 2 identical, 1 differ"), "\(crawl.stderr)")

            // Both screenshots of each page are kept on request, as PNGs.
            for check in report.pageChecks {
                for path in try #require(check.screenshots) {
                    let bytes = try Data(contentsOf: URL(fileURLWithPath: root + "/out/" + path))
                    #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(path)")
                }
            }
        }

        @Test func theCheckCanBeTurnedOffAndLeavesNothingBehind() async throws {
            defer { try? FileManager.default.removeItem(atPath: root) }
            let origin = try await TestOrigin.start(site: .named("checked"))
            for (folder, flags) in [("checked", [String]()), ("unchecked", ["--no-page-check"])] {
                let crawl = try await ChildProcess.run(BuiltProducts.executable("mirror"), [
                    "crawl", origin.url("/protocol.html"), "-o", root + "/" + folder, "--cache", root + "/cache", "--browser",
                    "--depth", "0", "--report", root + "/\(folder).json",
                ] + flags)
                try #require(crawl.status == 0, "\(crawl.stderr)")
                #expect(!FileManager.default.fileExists(atPath: root + "/" + folder + "/.mirror/checks"))
            }
            try await origin.shutdown()
            let checked = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: root + "/checked.json")))
            let unchecked = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: root + "/unchecked.json")))
            #expect(checked.pageChecks.count == 1 && checked.snapshots == 1)
            // Unchecked, the page's original stays, its script saying "file:" offline.
            #expect(unchecked.pageChecks.isEmpty && unchecked.snapshots == 0)
        }
    }
}
