import Foundation
import MirrorCore
import MirrorHTML
import MirrorSite
import MirrorTestSupport
import Testing

@Suite("Link rewriting on the fixture site")
struct LinkRewriterFixtureTests {
    static let root = FixtureSite.named("links").root
    static let origin = "http://127.0.0.1:8080"

    /// The fixture's HTML files.
    static let pages: [[UInt8]] = (try? FileManager.default.contentsOfDirectory(atPath: root.path))!
        .filter { $0.hasSuffix(".html") }.sorted()
        .map { Array(FileManager.default.contents(atPath: root.appendingPathComponent($0).path)!) }

    @Test func chunkedInputGivesTheSameSpansAsWhole() {
        var random = SeededGenerator(seed: 5)
        for _ in 0..<60 {
            // Whole pages and pieces of pages cut anywhere, in random order: malformed on purpose.
            var document: [UInt8] = []
            for _ in 0..<Int.random(in: 1...5, using: &random) {
                let page = Self.pages.randomElement(using: &random)!
                let lower = Bool.random(using: &random) ? 0 : Int.random(in: 0..<page.count, using: &random)
                let upper = Bool.random(using: &random) ? page.count : Int.random(in: lower...page.count, using: &random)
                document += page[lower..<upper]
            }
            let whole = HTMLReferenceLocator.references(in: document)
            let locator = HTMLReferenceLocator()
            var start = 0
            while start < document.count {
                let end = min(document.count, start + Int.random(in: 1...40, using: &random))
                locator.feed(Array(document[start..<end]))
                start = end
            }
            #expect(locator.finish() == whole)
            for reference in whole where reference.role == .link {
                #expect(String(decoding: document[reference.range], as: UTF8.self).contains(reference.value.prefix(3)))
            }
        }
    }

    /// The references a crawl kept from its own parse give the same bytes as parsing again; ones
    /// that do not fit the document (out of range, out of order) are not trusted.
    @Test func knownReferencesGiveTheSameRewrite() throws {
        let crawl = FixtureCrawl(root: Self.root, origin: Self.origin)
        let rewriter = LinkRewriter()
        var pages = 0
        for (url, file) in crawl.saved where file.type.hasPrefix("text/html") {
            let bytes = Array(try Data(contentsOf: file.source))
            let located = HTMLReferenceLocator.references(in: bytes)
            func rewrite(_ known: [HTMLReference]?) -> [UInt8] {
                rewriter.rewriteHTML(bytes, charset: "utf-8", pageURL: url, pagePath: file.path, references: known, target: crawl.target)
            }
            let parsed = rewrite(nil)
            #expect(rewrite(located) == parsed)
            guard let first = located.first, let last = located.last else { continue }
            pages += 1
            // Known references that fit are used as given, not located again.
            let moved = HTMLReference(range: first.range, value: "https://elsewhere.example/moved.html", role: .link, inAttribute: true)
            #expect(rewrite([moved] + located.dropFirst()) != parsed)
            let beyond = HTMLReference(range: bytes.count..<bytes.count + 4, value: last.value, role: .link, inAttribute: true)
            #expect(rewrite(located + [beyond]) == parsed)
            if located.count > 1 { #expect(rewrite(located.reversed()) == parsed) }
        }
        #expect(pages > 5)
    }

    @Test func everyFixturePageWorksOffline() throws {
        let crawl = FixtureCrawl(root: Self.root, origin: Self.origin)
        #expect(crawl.saved.count > 30)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("mirror-rewrite-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let rewriter = LinkRewriter()
        for (url, file) in crawl.saved {
            var bytes = Array(try Data(contentsOf: file.source))
            if file.type.hasPrefix("text/html") {
                bytes = rewriter.rewriteHTML(bytes, charset: "utf-8", pageURL: url, pagePath: file.path, target: crawl.target)
            } else if file.type == "text/css" {
                bytes = rewriter.rewriteCSS(bytes, fileURL: url, filePath: file.path, target: crawl.target)
            }
            let destination = output.appendingPathComponent(file.path)
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: destination)
        }

        let report = try OfflineLinkChecker(folder: output.path, origin: Self.origin).check()
        #expect(report.broken == 0, "\(report.examples)")
        #expect(report.unconverted == 0)
        #expect(report.local > 40)
    }
}

/// A miniature crawl of a fixture site without a server: every URL reachable from its files,
/// served by the fixture server's rules (`FixtureSite`) and named by `PathMapper` and `PathRegistry`.
struct FixtureCrawl {
    struct SavedFile {
        let path: String
        let source: URL
        let type: String
    }

    private(set) var saved: [String: SavedFile] = [:]
    private(set) var redirects: [String: String] = [:]

    init(root: URL, origin: String) {
        let files = FileManager.default.enumerator(atPath: root.path)!.compactMap { $0 as? String }
        var queue = files.filter { !$0.hasSuffix("_redirects") && !$0.hasSuffix(".self") }
            .map { origin + "/" + ($0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? $0) }
        queue += [origin + "/", origin + "/docs"]
        var table: [String: String] = [:]
        let lines = (try? String(contentsOf: root.appendingPathComponent("_redirects"), encoding: .utf8)) ?? ""
        for line in lines.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: " ").map(String.init)
            if fields.count >= 2 { table[fields[0]] = fields[1] }
        }
        var visited: Set<String> = []
        var registry = PathRegistry()
        while let next = queue.popLast() {
            guard let parts = URLParts(next), parts.origin == origin, visited.insert(parts.normalized).inserted else { continue }
            let url = parts.normalized
            if let location = table[parts.path], let target = parts.resolve(location) {
                redirects[url] = target.normalized
                queue.append(target.normalized)
                continue
            }
            guard let (file, type) = Self.file(for: parts.path, in: root),
                let preferred = PathMapper().path(for: url, contentType: type)
            else { continue }
            // The fixture file a URL is served from stands for its body.
            let path = registry.assign(url: url, preferred: preferred, sha256: file.path)
            saved[url] = SavedFile(path: path.string, source: file, type: type)
            let bytes = Array(FileManager.default.contents(atPath: file.path) ?? Data())
            if type.hasPrefix("text/html") {
                let links = HTMLLinkExtractor.links(in: bytes)
                let base = links.baseHref.flatMap(parts.resolve) ?? parts
                queue += links.links.compactMap { base.resolve($0.reference)?.normalized }
            } else if type == "text/css" {
                queue += CSSLinkExtractor.links(in: String(decoding: bytes, as: UTF8.self)).compactMap {
                    parts.resolve($0.reference)?.normalized
                }
            }
        }
    }

    /// The file a URL was saved to, following redirects.
    func target(_ url: String) -> String? {
        var current = url
        for _ in 0..<10 {
            if let file = saved[current] { return file.path }
            guard let next = redirects[current] else { return nil }
            current = next
        }
        return nil
    }

    /// The file the fixture server answers `path` with (a folder's `index.html`, a `.self` page).
    private static func file(for path: String, in root: URL) -> (URL, String)? {
        guard let decoded = path.removingPercentEncoding else { return nil }
        var file = root.appendingPathComponent(String(decoded.drop { $0 == "/" }))
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder) else { return nil }
        if isFolder.boolValue {
            file = file.appendingPathComponent(decoded.hasSuffix("/") ? "index.html" : ".self")
            guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        }
        let types = [
            "html": "text/html", "self": "text/html", "css": "text/css", "js": "text/javascript",
            "png": "image/png", "svg": "image/svg+xml", "woff2": "font/woff2", "mp4": "video/mp4", "vtt": "text/vtt",
        ]
        return (file, types[file.pathExtension] ?? (file.lastPathComponent == ".self" ? "text/html" : "application/octet-stream"))
    }
}
