// The floor of `mirror crawl --browser`: the same Chromium, tabs, proxies and page loop loading
// the same pages, with every response the page asks for served from memory (read beforehand from
// the crawl's cache folder) instead of by the crawl. `scripts/bench-browser.sh` measures the crawl
// against it; the crawl can only be slower by what the crawl itself does (scope, robots.txt,
// cache, folder, offline check). With `--check FOLDER` (a crawl's folder of those pages), each
// page is also shot as it opens and its copy in FOLDER opened from file:// with no network and
// compared with it, right after the page, once per file: the least the crawl's offline check
// can cost.
//   mirror-browser-bench URLS-FILE --cache DIR [--check FOLDER] [--tabs N] [--browser-path FILE]
import Foundation
import MirrorBrowser
import MirrorCache
import MirrorCore
import MirrorCrawl
import MirrorLock

let arguments = CommandLine.arguments.dropFirst()
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.index(after: $0) < arguments.endIndex ? arguments[arguments.index(after: $0)] : nil }
}
guard let list = arguments.first, let text = try? String(contentsOfFile: list, encoding: .utf8), let cache = option("--cache") else {
    FileHandle.standardError.write(
        Data("usage: mirror-browser-bench URLS-FILE --cache DIR [--check FOLDER] [--tabs N] [--browser-path FILE]\n".utf8))
    exit(2)
}
let urls = text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }

// Every GET response of the cache folder, body and all, by normalized URL.
let store = try CacheStore(directory: cache)
var responses: [String: CacheResponse] = [:]
for entry in try store.allEntries() where entry.method == "GET" {
    guard let body = try store.body(of: entry)?.collect(), let url = URLNormalizer.normalize(entry.url) else { continue }
    responses[url] = CacheResponse(status: entry.status, headers: entry.headers, body: ResponseBody(bytes: body), outcome: .hit)
}
let memory = responses

/// The file of each page's copy in the folder to check, by normalized URL (from its manifest).
struct Manifest: Decodable {
    struct Resource: Decodable { let path: String }
    let resources: [String: Resource]
}
let checked = option("--check")
var copies: [String: String] = [:]
if let checked {
    let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: checked + "/.mirror/manifest.json")))
    for (url, resource) in manifest.resources {
        if let url = URLNormalizer.normalize(url) { copies[url] = checked + "/" + resource.path }
    }
}
// Each file checked once (`/` and `/index.html` share one), by the first of its pages.
var seenFiles: Set<String> = []
let firstOfFile = Dictionary(
    urls.map { url in
        (url, URLNormalizer.normalize(url).flatMap { copies[$0] }.flatMap { seenFiles.insert($0).inserted ? $0 : nil })
    }, uniquingKeysWith: { first, _ in first })

var settings = ChromiumRenderer.Settings(executable: try BrowserExecutable.locate(option("--browser-path")))
settings.tabs = option("--tabs").flatMap(Int.init) ?? 2
settings.checksPages = checked != nil
let renderer = try await ChromiumRenderer.start(settings)
let differing = Locked(0)
let started = ContinuousClock.now
let unsettled = await withTaskGroup(of: Bool.self) { group in
    for url in urls {
        group.addTask {
            let page = try? await renderer.render(url) { request in
                URLNormalizer.normalize(request.url).flatMap { memory[$0] }.map { .response($0) } ?? .refused("not in the cache")
            }
            if let page, let file = firstOfFile[url] ?? nil, let live = page.screenshot {
                let comparison = try? await renderer.compareOffline(PercentEncoding.fileURL(path: file), with: live)
                if comparison?.identical != true { differing.withLock { $0 += 1 } }
            }
            return page.map { !$0.notes.isEmpty } ?? true
        }
    }
    var count = 0
    for await hadNotes in group where hadNotes { count += 1 }
    return count
}
let seconds = (ContinuousClock.now - started).seconds
await renderer.close()
print(
    String(
        format: "%d pages in %.2f s (%.2f pages/s), %d with notes; %d responses in memory", urls.count, seconds,
        Double(urls.count) / seconds, unsettled, memory.count))
if checked != nil { print("\(seenFiles.count) copies checked, \(differing.withLock { $0 }) not identical") }
