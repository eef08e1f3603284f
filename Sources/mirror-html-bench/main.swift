// Measures link extraction and rewriting on real pages; scripts/bench-html.sh runs it on the
// Python 3.11 documentation.
//
//     mirror-html-bench [FOLDER=/usr/share/doc/python3.11/html] [PASSES=5] [ONLY]
//
// Every *.html under FOLDER is read into memory first; then, on one thread, each measure
// parses all of them, best of PASSES taken in turn: libxml2's SAX parser alone with no-op
// callbacks (the floor), the same without end tags and text (what the crawl's parse asks of
// libxml2 without the search index) and with the text copied to a buffer (the least a reader of
// the page's text does), HTMLLinkExtractor, HTMLReferenceLocator (as the crawl parses a page,
// without and with the page's text), the page's name in the folder (PathMapper and PathRegistry),
// and LinkRewriter.rewriteHTML. ONLY (e.g. "Locator", for a
// profiler) runs just the floor and the measures whose names contain it, or with a leading `=`
// the one named so ("=HTMLReferenceLocator"); "floor" runs the floor alone (scripts/bench-crawl.sh's
// `T_lx`).
import CLibXML2
import Foundation
import MirrorCore
import MirrorHTML
import MirrorSite

let arguments = CommandLine.arguments
let folder = arguments.count > 1 ? arguments[1] : "/usr/share/doc/python3.11/html"
let passes = arguments.count > 2 ? Int(arguments[2])! : 5
let only = arguments.count > 3 ? arguments[3] : ""

/// (path relative to the folder, bytes) of every HTML file, in a fixed order.
let pages: [(path: String, bytes: [UInt8])] = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? [])
    .filter { $0.hasSuffix(".html") }.sorted()
    .map { ($0, Array(FileManager.default.contents(atPath: folder + "/" + $0)!)) }
let totalBytes = pages.reduce(0) { $0 + $1.bytes.count }
guard totalBytes > 0 else {
    FileHandle.standardError.write(Data("mirror-html-bench: no HTML files under \(folder)\n".utf8))
    exit(2)
}
print("# \(pages.count) pages, \(String(format: "%.1f", Double(totalBytes) / 1e6)) MB, best of \(passes) passes, one thread")

/// What the callbacks of `parse` do with end tags and text (start tags they ignore).
enum TextCallbacks {
    /// None: libxml2 reports neither (what the crawl asks of it without the search index).
    case none
    /// Callbacks that do nothing.
    case ignored
    /// The text copied to a buffer: the least a reader of the page's text does.
    case copied
}

/// Where `TextCallbacks.copied` puts a page's text: twice the largest page (libxml2 may decode a
/// byte to two), and how much it holds. One parse at a time uses it.
nonisolated(unsafe) let copiedText = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 2 * pages.map(\.bytes.count).max()!)
nonisolated(unsafe) var copiedCount = 0

/// libxml2's HTML parser over the page in memory (as `HTMLSAXParser` reads it) with callbacks
/// that do nothing with start tags, and with end tags and text what `text` says; the bytes parsed
/// and the bytes of text copied.
func parse(_ page: [UInt8], text: TextCallbacks = .ignored) -> Int {
    var handler = htmlSAXHandler()
    handler.initialized = XML_SAX2_MAGIC
    handler.startElement = { _, _, _ in }
    switch text {
    case .none:
        break
    case .ignored:
        handler.endElement = { _, _ in }
        handler.characters = { _, _, _ in }
    case .copied:
        handler.endElement = { _, _ in }
        handler.characters = { _, characters, length in
            guard let characters, copiedCount + Int(length) <= copiedText.count else { return }
            (copiedText.baseAddress! + copiedCount).update(from: characters, count: Int(length))
            copiedCount += Int(length)
        }
    }
    handler.serror = { _, _ in }
    page.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { bytes in
            let context = htmlCreateMemoryParserCtxt(bytes.baseAddress, Int32(bytes.count))!
            let options =
                HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                | HTML_PARSE_NONET.rawValue | HTML_PARSE_IGNORE_ENC.rawValue
            htmlCtxtUseOptions(context, Int32(options))
            xmlSwitchToEncoding(context, xmlFindCharEncodingHandler("utf-8"))
            withUnsafeMutablePointer(to: &handler) { handler in
                let own = context.pointee.sax
                context.pointee.sax = handler
                _ = htmlParseDocument(context)
                context.pointee.sax = own
            }
            if let document = context.pointee.myDoc { xmlFreeDoc(document) }
            htmlFreeParserCtxt(context)
        }
    }
    defer { copiedCount = 0 }
    return page.count + copiedCount
}

let origin = "http://docs.example/"
/// What a crawl saved: each page under its own path (a dictionary, like the site manifest), and
/// every other URL in one file, so that every reference is rewritten.
let saved = Dictionary(uniqueKeysWithValues: pages.map { (origin + $0.path, "docs.example/" + $0.path) })
func target(_ url: String) -> String? { saved[url] ?? "docs.example/elsewhere.html" }

/// One pass of `work` over every page: its seconds, and the sum of what `work` returned (links,
/// references, bytes written), so that nothing is optimized away.
func pass(_ work: (_ path: String, _ page: [UInt8]) -> Int) -> (seconds: Double, count: Int) {
    let start = ContinuousClock.now
    let count = pages.reduce(0) { $0 + work($1.path, $1.bytes) }
    return ((ContinuousClock.now - start).seconds, count)
}

/// The crawl's parse of a page (`LinkReader`): its references located, the links that end a
/// session looked for, and its text read when `readingText`; their count and the text's bytes.
func locatedReferences(_ page: [UInt8], readingText: Bool) -> Int {
    let locator = HTMLReferenceLocator(charset: "utf-8")
    locator.feed(page)
    return locator.finish(readingText: readingText).count + (locator.text?.body.utf8.count ?? 0)
}

let rewriter = LinkRewriter()
let mapper = PathMapper()
/// The names given in this pass: a pass starts again with none at the first page.
nonisolated(unsafe) var registry = PathRegistry()

/// The name a crawl gives the page's URL in the folder (`ResponseSaver`): its preferred path,
/// made unique among the pass's; the name's bytes.
func named(_ path: String) -> Int {
    if path == pages[0].path { registry = PathRegistry() }
    guard let preferred = mapper.path(for: origin + path, contentType: "text/html; charset=utf-8") else { return 0 }
    return registry.assign(url: origin + path, preferred: preferred, sha256: "").string.utf8.count
}
/// Each measure: its name, what its count counts, and its work on one page; the floor first.
let measures: [(String, String, (String, [UInt8]) -> Int)] = [
    ("libxml2 SAX, no-op (floor)", "bytes", { parse($1) }),
    ("libxml2 SAX, start tags only", "bytes", { parse($1, text: .none) }),
    ("libxml2 SAX, text copied", "bytes and text bytes", { parse($1, text: .copied) }),
    ("HTMLLinkExtractor", "links", { HTMLLinkExtractor.links(in: $1, charset: "utf-8").links.count }),
    ("HTMLReferenceLocator", "references", { _, page in locatedReferences(page, readingText: false) }),
    ("HTMLText.extract", "text bytes", { HTMLText.extract(from: $1, contentType: "text/html").body.utf8.count }),
    (
        "HTMLReferenceLocator + text", "references",
        { _, page in locatedReferences(page, readingText: true) }
    ),
    ("PathMapper + PathRegistry", "name bytes", { path, _ in named(path) }),
    (
        "LinkRewriter.rewriteHTML", "bytes written",
        { path, page in
            let pagePath = "docs.example/" + path
            return rewriter.rewriteHTML(page, charset: "utf-8", pageURL: origin + path, pagePath: pagePath, target: target).count
        }
    ),
]
/// Whether a measure is chosen by ONLY: its name contains it, or is it after a `=`.
func isChosen(_ name: String) -> Bool {
    only.isEmpty || (only.hasPrefix("=") ? name == only.dropFirst() : name.contains(only))
}
let chosen = measures.enumerated().filter { $0.offset == 0 || isChosen($0.element.0) }.map(\.element)
/// The best of `passes` for each chosen measure, the passes taken in turn (one of each, then
/// again): measures compared with each other see the same moments of a machine whose speed moves.
var best = [(seconds: Double, count: Int)](repeating: (.infinity, 0), count: chosen.count)
for _ in 0..<passes {
    for (index, measure) in chosen.enumerated() {
        let result = pass(measure.2)
        best[index] = (min(best[index].seconds, result.seconds), result.count)
    }
}
let floor = best[0].seconds
for ((name, counted, _), result) in zip(chosen, best) {
    let rate = Double(totalBytes) / result.seconds / 1e6
    let figures = String(
        format: "%7.1f MB/s per core  %5.2f× the floor  (%.3f s, %d ", rate, floor / result.seconds, result.seconds, result.count)
    print(name.padding(toLength: 28, withPad: " ", startingAt: 0) + figures + counted + ")")
}
