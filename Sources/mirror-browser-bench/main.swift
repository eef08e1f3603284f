// Loads a list of pages in headless Chromium straight from their origin, with the page loop of
// `mirror crawl --browser` (load, idle, scroll, idle) and its tabs, but no proxy and no crawl:
// the floor `scripts/bench-browser.sh` measures `mirror crawl --browser` against.
//   mirror-browser-bench URLS-FILE [--tabs N] [--browser-path FILE]
import Foundation
import MirrorBrowser

let arguments = CommandLine.arguments.dropFirst()
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.index(after: $0) < arguments.endIndex ? arguments[arguments.index(after: $0)] : nil }
}
guard let list = arguments.first, let text = try? String(contentsOfFile: list, encoding: .utf8) else {
    FileHandle.standardError.write(Data("usage: mirror-browser-bench URLS-FILE [--tabs N] [--browser-path FILE]\n".utf8))
    exit(2)
}
let urls = text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
var settings = ChromiumRenderer.Settings(executable: try BrowserExecutable.locate(option("--browser-path")))
settings.tabs = option("--tabs").flatMap(Int.init) ?? 2
settings.direct = true
let renderer = try await ChromiumRenderer.start(settings)
let started = ContinuousClock.now
let unsettled = await withTaskGroup(of: Bool.self) { group in
    for url in urls {
        group.addTask {
            let page = try? await renderer.render(url) { _ in .refused("no crawl") }
            return page.map { !$0.notes.isEmpty } ?? true
        }
    }
    var count = 0
    for await hadNotes in group where hadNotes { count += 1 }
    return count
}
let elapsed = (ContinuousClock.now - started).components
let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
await renderer.close()
print(String(format: "%d pages in %.2f s (%.2f pages/s), %d with notes", urls.count, seconds, Double(urls.count) / seconds, unsettled))
