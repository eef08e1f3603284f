import Foundation
import MirrorTestSupport
import Testing

extension BrowserSuites {
    /// `mirror crawl --browser` on the `checked` fixture site: a header that changes on scroll
    /// (as Material for MkDocs' does), content that came by fetch, a search answered by a worker
    /// that loads its index, a page whose script shows where it was opened from, and one that no
    /// form of copy can show as it was (a canvas drawn over http only). Each copy is checked
    /// offline against the live page.
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
                let unanswered: [String]
            }
            let pageChecks: [Check]
            let snapshots: Int
        }

        @Test func everyPageIsCheckedAndTheFormThatLooksRightIsKept() async throws {
            defer { try? FileManager.default.removeItem(atPath: root) }
            let origin = try await TestOrigin.start(site: .named("checked"))
            let crawl = try await ChildProcess.run(
                BuiltProducts.executable("mirror"),
                [
                    "crawl", origin.url("/"), "-o", root + "/out", "--cache", root + "/cache", "--browser", "--verbose",
                    "--keep-check-screenshots", "--report", root + "/report.json",
                ])
            try await origin.shutdown()
            try #require(crawl.status == 0, "\(crawl.stderr)")
            let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: root + "/report.json")))
            // `/` and `/index.html` share a file, checked once.
            let checks = Dictionary(uniqueKeysWithValues: report.pageChecks.map { ($0.url, $0) })
            #expect(checks.count == 6, "\(report.pageChecks.map(\.url))")

            // The page built from fetched data is its original, its scripts running offline with the
            // replay layer answering their fetch from what the crawl recorded: its copy matches.
            let home = try #require(checks[origin.url("/")])
            #expect(
                home.form == "original" && !home.retried && home.outcome.keys.first == "identical" && home.unanswered.isEmpty,
                "\(home)")
            let saved = try String(contentsOfFile: root + "/out/\(origin.host)_\(origin.port)/index.html", encoding: .utf8)
            #expect(saved.contains("<script data-mirror-replay>") && !saved.contains("first item from data.json"))

            // The worker starts offline from its recorded script, and the index it fetches is answered.
            let search = try #require(checks[origin.url("/search.html")])
            #expect(
                search.form == "original" && !search.retried && search.outcome.keys.first == "identical" && search.unanswered.isEmpty,
                "\(search)")

            // From file:// it adds a script of its index instead of fetching it, as Material for
            // MkDocs does: the replay layer answers with the recorded index in that form.
            let lookup = try #require(checks[origin.url("/lookup.html")])
            #expect(
                lookup.form == "original" && !lookup.retried && lookup.outcome.keys.first == "identical" && lookup.unanswered.isEmpty,
                "\(lookup)")

            // Its original says "file:" offline: the check finds it and keeps the rendered DOM.
            let protocolPage = try #require(checks[origin.url("/protocol.html")])
            #expect(
                protocolPage.form == "snapshot" && protocolPage.retried && protocolPage.outcome.keys.first == "identical",
                "\(protocolPage)")
            let where_ = try String(contentsOfFile: root + "/out/\(origin.host)_\(origin.port)/protocol.html", encoding: .utf8)
            #expect(where_.contains("opened over http:"))

            // No form shows the canvas: reported with its share, the original (scripts running) kept,
            // and the request its script makes anew each time listed as not answered offline.
            let canvas = try #require(checks[origin.url("/canvas.html")])
            let share = try #require(canvas.outcome["differs"]?["share"], "\(canvas)")
            #expect(canvas.form == "original" && canvas.retried && share > 0.005 && share < 0.2, "\(canvas)")
            #expect(canvas.unanswered.count == 1 && canvas.unanswered[0].hasPrefix(origin.url("/data.json?at=")), "\(canvas)")
            #expect(crawl.stderr.contains("CHECK \(origin.url("/canvas.html")) "), "\(crawl.stderr)")
            #expect(crawl.stderr.contains("checked 6 copies offline against the live pages: 5 identical, 1 differ"), "\(crawl.stderr)")

            // Both screenshots of each page are kept on request, as PNGs.
            for check in report.pageChecks {
                for path in try #require(check.screenshots) {
                    let bytes = try Data(contentsOf: URL(fileURLWithPath: root + "/out/" + path))
                    #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(path)")
                }
            }
        }

        /// Unchecked, a page built from fetched data is its rendered DOM, read once the page is back
        /// in the state it opened in (Material's header was saved scrolled in 2 of 4 crawls when
        /// background tabs got no animation frames and nothing waited for them).
        @Test func uncheckedPagesAreSavedAsTheyOpenAndNothingIsLeftBehind() async throws {
            defer { try? FileManager.default.removeItem(atPath: root) }
            let origin = try await TestOrigin.start(site: .named("checked"))
            for round in 0..<2 {
                let folder = root + "/unchecked\(round)"
                let crawl = try await ChildProcess.run(
                    BuiltProducts.executable("mirror"),
                    [
                        "crawl", origin.url("/"), "-o", folder, "--cache", root + "/cache", "--browser", "--no-page-check",
                        "--report", folder + ".json",
                    ])
                try #require(crawl.status == 0, "\(crawl.stderr)")
                #expect(!FileManager.default.fileExists(atPath: folder + "/.mirror/checks"))
                let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: folder + ".json")))
                // `/` and `/index.html` (one file), the canvas, styled and lookup pages fetched data.
                #expect(report.pageChecks.isEmpty && report.snapshots == 5, "\(report.snapshots) snapshots")
                let home = try String(contentsOfFile: folder + "/\(origin.host)_\(origin.port)/index.html", encoding: .utf8)
                #expect(home.contains("first item from data.json") && home.contains("text/x-mirror-inert"))
                #expect(!home.contains("class=\"scrolled\"") && !home.contains("hidden=\"\""), "saved in its scrolled state:\n\(home)")
                // Rules a script inserted into an empty <style> are written into the snapshot's text.
                let styled = try String(contentsOfFile: folder + "/\(origin.host)_\(origin.port)/styled.html", encoding: .utf8)
                #expect(styled.contains("<style id=\"styled\">.box { background: rgb(46, 125, 50);"), "\(styled)")
                // The search page, whose worker fetched its data, keeps its scripts with the replay layer.
                let search = try String(contentsOfFile: folder + "/\(origin.host)_\(origin.port)/search.html", encoding: .utf8)
                #expect(search.contains("<script data-mirror-replay>") && search.contains("new Worker('worker.js')"))
                // The page whose script shows where it was opened from stays its original, unchecked.
                let protocolPage = try String(contentsOfFile: folder + "/\(origin.host)_\(origin.port)/protocol.html", encoding: .utf8)
                #expect(protocolPage.contains("location.protocol") && !protocolPage.contains("text/x-mirror-inert"))
            }
            try await origin.shutdown()
        }
    }
}
