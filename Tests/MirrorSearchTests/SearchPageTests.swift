import Foundation
import MirrorCrawlTesting
import MirrorTestSupport
import Testing

/// `mirror serve`'s search page, asked as a browser would.
@Suite("The search page of mirror serve")
struct SearchPageTests {
    @Test func resultsLinkIntoTheCopyArePagedEscapedAndSafeUnderLoad() async throws {
        let origin = try await TestOrigin.start()
        origin.route("/") { _ in .html((1...25).map { "<a href=\"p\($0).html\">\($0)</a>" }.joined(separator: " ")) }
        for index in 1...25 {
            origin.route("/p\(index).html") { _ in
                .html(
                    "<title>Orchard \(index) &lt;b&gt;</title><p>\(String(repeating: "apple ", count: index)) pear &lt;script&gt;alert(1)&lt;/script&gt;</p>"
                )
            }
        }
        try await CrawlHarness.with { harness in
            _ = try await harness.crawl([origin.url("/")])
            try await origin.shutdown()
            let server = try ServerProcess("serve", [harness.root + "/out"], log: harness.root + "/serve.log")
            defer { server.process.signal(SIGKILL) }
            _ = try await server.waitForURL()
            func page(_ target: String) async throws -> (status: Int, html: String) {
                let response = try await server.get(target)
                return (response.status, String(decoding: response.body, as: UTF8.self))
            }

            let first = try await page("/_/search?q=apple")
            #expect(first.status == 200)
            #expect(first.html.components(separatedBy: "<li>").count - 1 == 10)
            // The page where "apple" is most frequent first, linking to where this server has it.
            #expect(first.html.contains("<li><a href=\"/p25.html\">Orchard 25 &lt;b&gt;</a>"), "\(first.html)")
            #expect(first.html.contains("<mark>apple</mark>") && !first.html.contains("<script>"))
            #expect(first.html.contains("href=\"/_/search?q=apple&amp;page=2\">Next</a>"))
            let third = try await page("/_/search?q=apple&page=3")
            #expect(third.html.components(separatedBy: "<li>").count - 1 == 5 && third.html.contains("<ol start=\"21\">"))
            #expect(!third.html.contains(">Next<") && third.html.contains("page=2\">Previous</a>"))
            let served = try await server.get("/p25.html")
            #expect(served.status == 200)

            // A hostile query stays text; a malformed one is a 400 that says why; an empty one asks for words.
            let hostile = try await page("/_/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E%22%3E")
            #expect(
                hostile.status == 400 && !hostile.html.contains("<script>") && hostile.html.contains("&lt;script&gt;"),
                "\(hostile.html)")
            let malformed = try await page("/_/search?q=apple+OR")
            #expect(malformed.status == 400 && malformed.html.contains("OR needs words on both sides"))
            let empty = try await page("/_/search?q=")
            #expect(empty.status == 200 && empty.html.contains("Type words"))

            // Many searches at once while the server runs.
            let port = server.port
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<40 {
                    group.addTask { try await ServerProcess.get("/_/search?q=apple+\(index % 25 + 1)", port: port).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 40))
        }
    }
}
