import MirrorCore
import MirrorTestSupport
import Testing

@testable import MirrorSite

/// `FileTable` against a model of dictionaries, through random adds and removes: its indexes
/// grow, fill with tombstones and are rebuilt, and every answer stays the model's.
@Suite("File table")
struct FileTableTests {
    @Test(arguments: [1, 2, 3])
    func answersAsDictionariesWould(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var table = FileTable()
        var pathOfURL: [String: String] = [:]
        var urlsAtPath: [String: [String]] = [:]
        for step in 0..<6_000 {
            let url = "http://h/\(Int.random(in: 0..<2_000, using: &generator))"
            if pathOfURL[url] != nil, Bool.random(using: &generator) {
                let path = pathOfURL.removeValue(forKey: url)!
                urlsAtPath[path]!.removeAll { $0 == url }
                let removed = table.remove(url: url)
                #expect(removed?.path == path)
                #expect((removed?.emptied != nil) == urlsAtPath[path]!.isEmpty)
                if urlsAtPath[path]!.isEmpty { urlsAtPath[path] = nil }
            } else if pathOfURL[url] == nil {
                // Few paths, so that files have several URLs.
                let path = "p/\(Int.random(in: 0..<700, using: &generator))"
                table.add(url: url, path: path, preferred: path, sha256: HexDigest(""))
                pathOfURL[url] = path
                urlsAtPath[path, default: []].append(url)
            }
            if step % 500 == 0 {
                for (url, path) in pathOfURL { #expect(table.path(of: url) == path) }
                for (path, urls) in urlsAtPath { #expect(table.file(at: path)?.urls == urls) }
                #expect(Set(table.urls) == Set(pathOfURL.keys))
                #expect(Set(table.paths) == Set(urlsAtPath.keys))
                #expect(table.path(of: "http://h/none") == nil)
                #expect(table.file(at: "p/none") == nil)
            }
        }
    }
}
