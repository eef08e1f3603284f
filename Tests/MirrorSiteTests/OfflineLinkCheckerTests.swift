import Foundation
import MirrorSite
import Testing

/// The checker on small hand-made folders: each broken sort of link, and the ones that work.
@Suite struct OfflineLinkCheckerTests {
    /// A temporary folder holding `site/` with `files` (path → content), and `outside.html`
    /// beside `site/`, which links may reach but must not count.
    struct Site {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("offline-check-\(UUID().uuidString)").path
        var root: String { parent + "/site" }

        init(_ files: [String: String]) throws {
            for (path, content) in files.merging(["../outside.html": "<p>outside</p>"], uniquingKeysWith: { $1 }) {
                let url = URL(fileURLWithPath: root + "/" + path).standardizedFileURL
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(content.utf8).write(to: url)
            }
        }

        func check(origin: String? = nil) throws -> OfflineLinkReport {
            defer { try? FileManager.default.removeItem(atPath: parent) }
            return try OfflineLinkChecker(folder: root, origin: origin).check()
        }
    }

    /// The broken links of `page` (written as `host/dir/page.html` beside `others`), as link → reason.
    private func broken(_ page: String, _ others: [String: String] = [:]) throws -> [String: OfflineLinkReport.Reason] {
        let report = try Site(others.merging(["host/dir/page.html": page], uniquingKeysWith: { $1 })).check()
        #expect(report.broken == report.examples.count)
        #expect(report.examples.allSatisfy { $0.file == "host/dir/page.html" })
        return Dictionary(report.examples.map { ($0.link, $0.reason) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func aLinkToAMissingFileIsBroken() throws {
        let found = try broken(#"<a href="there.html">ok</a><a href="gone.html">gone</a>"#, ["host/dir/there.html": ""])
        #expect(found == ["gone.html": .missingFile])
    }

    @Test func aLinkAboveTheFolderIsBrokenEvenWhenItsFileExists() throws {
        let found = try broken(#"<a href="../../../outside.html">x</a><a href="../../host/dir/page.html">in</a>"#)
        #expect(found == ["../../../outside.html": .outsideFolder])
    }

    @Test func rootAndProtocolRelativeLinksAreBroken() throws {
        let found = try broken(#"<a href="/host/dir/page.html">x</a><img src="//cdn.example/i.png">"#)
        #expect(found == ["/host/dir/page.html": .rootRelative, "//cdn.example/i.png": .protocolRelative])
    }

    @Test func eachSrcsetCandidateIsChecked() throws {
        let found = try broken(#"<img src="a.png" srcset="a.png 1x, b,2.png 2x, c.png 3x">"#, ["host/dir/a.png": "", "host/dir/c.png": ""])
        #expect(found == ["b,2.png": .missingFile])
    }

    @Test func styleSheetsInlineStylesAndStyleBlocksAreChecked() throws {
        let report = try Site([
            "host/s.css": "@import 'gone.css'; body { background: url(img/ok.png) } p { background: url(\"img/gone.png\") }",
            "host/img/ok.png": "",
            "host/p.html": #"<style>a { background: url(img/gone2.png) }</style><p style="background: url('img/ok.png')">"#,
        ]).check()
        #expect(report.cssFiles == 1)
        #expect(report.htmlFiles == 1)
        #expect(report.local == 2)
        #expect(
            Set(report.examples.map { "\($0.file) \($0.link)" }) == [
                "host/s.css gone.css", "host/s.css img/gone.png", "host/p.html img/gone2.png",
            ])
    }

    @Test func escapesAreDecodedQueriesAndFragmentsIgnored() throws {
        let found = try broken(
            #"<a href="with%20space.html?x=1#top">s</a><a href="caf%C3%A9.html">c</a><a href="q%3Fv=1.css">q</a><a href="?p">self</a>"#,
            ["host/dir/with space.html": "", "host/dir/café.html": "", "host/dir/q?v=1.css": ""])
        #expect(found.isEmpty)
    }

    @Test func aLinkToAFolderIsBrokenUnderFileRules() throws {
        let found = try broken(
            #"<a href="sub/">a</a><a href="sub">b</a><a href="sub/index.html">c</a><a href=".">d</a>"#, ["host/dir/sub/index.html": ""])
        #expect(found == ["sub/": .folder, "sub": .folder, ".": .folder])
    }

    @Test func baseHrefIsApplied() throws {
        #expect(try broken(#"<base href="sub/"><a href="index.html">x</a>"#, ["host/dir/sub/index.html": ""]).isEmpty)
        #expect(try broken(#"<base href="/"><a href="index.html">x</a>"#, ["host/dir/index.html": ""]) == ["index.html": .rootRelative])
        let report = try Site(["p.html": #"<base href="https://example.org/docs/"><a href="a.html">x</a>"#]).check(
            origin: "https://example.org")
        #expect(report.unconverted == 1)
        #expect(report.broken == 0)
    }

    @Test func absoluteLinksAreCountedNotBrokenAndOtherSchemesSkipped() throws {
        let page = """
            <a href="http://127.0.0.1:8080/a.html">a</a><a href="https://elsewhere.example/">b</a><a href="ftp://x/y">c</a>
            <a href="file:///etc/passwd">d</a><a href="mailto:x@y">e</a><a href="#top">f</a><a href="javascript:void(0)">g</a>
            """
        let all = try Site(["p.html": page]).check()
        #expect(all.links == 3)
        #expect(all.unconverted == 2)
        #expect(all.external == 1)
        let one = try Site(["p.html": page]).check(origin: "http://127.0.0.1:8080")
        #expect(one.unconverted == 1)
        #expect(one.external == 2)
        #expect(one.broken == 0)
    }

    @Test func theMirrorFolderAndOtherFilesAreNotRead() throws {
        let report = try Site([
            ".mirror/originals/abc": #"<a href="/gone.html">"#, ".mirror/x.html": #"<a href="/gone.html">"#,
            "host/a.js": #"<a href="/gone.html">"#, "host/.hidden.html": #"<a href="gone.html">"#,
        ]).check()
        #expect(report.htmlFiles == 1)
        #expect(report.examples.map(\.file) == ["host/.hidden.html"])
    }

    @Test func aMissingFolderIsAnError() {
        #expect(throws: SiteError.self) { try OfflineLinkChecker(folder: "/nonexistent/folder/\(UUID().uuidString)").check() }
    }
}
