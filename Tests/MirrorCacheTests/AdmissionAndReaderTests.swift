import Foundation
import MirrorCore
import NIOHTTP1
import Testing

@testable import MirrorCache

@Suite("Admission rules and readers")
struct AdmissionAndReaderTests {
    @Test func admissionFollowsHostsURLPatternsAndUserAgents() throws {
        let rules = AdmissionRules(
            hosts: [HostPattern("*.docs.test")!], urlPatterns: [try URLPattern("/guide/")],
            userAgents: ["mirror/"])
        let agent: HTTPHeaders = ["User-Agent": "mirror/0.1"]
        let url = try #require(URLParts("https://www.docs.test/guide/intro.html"))
        #expect(rules.admits(url: url, method: .GET, headers: agent))
        #expect(rules.admits(url: url, method: .HEAD, headers: agent))
        #expect(!rules.admits(url: url, method: .POST, headers: agent))
        #expect(!rules.admits(url: try #require(URLParts("https://other.test/guide/")), method: .GET, headers: agent))
        #expect(!rules.admits(url: try #require(URLParts("https://docs.test/blog/")), method: .GET, headers: agent))
        #expect(!rules.admits(url: url, method: .GET, headers: ["User-Agent": "curl/8"]))
        #expect(AdmissionRules().admits(url: url, method: .GET, headers: [:]))
    }

    /// An ignored parameter drops itself only: cut on `Character`s, `x\u{600}&` was one, and
    /// `id=evil` went with `utm_a`, so the response for it was filed as `/p`'s for everyone.
    @Test func anIgnoredParameterEndingInAMarkTakesNoOtherWithIt() throws {
        var rules = AdmissionRules()
        rules.ignoredParameters = ["utm_*"]
        let marked = rules.cacheKey(try #require(URLParts("http://site.test/p?utm_a=x\u{600}&id=evil")))
        #expect(marked == rules.cacheKey(try #require(URLParts("http://site.test/p?id=evil"))))
        #expect(marked != rules.cacheKey(try #require(URLParts("http://site.test/p"))))
    }

    /// Eviction (or another process) may delete a body while it is being read: the reader,
    /// which opened the file first, still gets every byte.
    @Test func aBodyBeingReadSurvivesItsRemoval() async throws {
        let folder = TemporaryDirectory("reader")
        defer { folder.remove() }
        let store = try CacheStore(directory: folder.path)
        let body = (0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let writer = try store.makeBodyWriter()
        try writer.write(body)
        let entry = try store.store(
            url: "http://a.test/big", request: [:],
            head: CachedResponseHead(status: 200, headers: [:], requestTime: 1, responseTime: 1), body: writer)
        let stored = try #require(store.body(of: entry))
        var iterator = stored.chunks(chunkSize: 100_000).makeAsyncIterator()
        var received = try #require(try await iterator.next())
        try store.remove(url: "http://a.test/big")
        #expect(!FileManager.default.fileExists(atPath: store.bodyPath(entry.digest)))
        while let chunk = try await iterator.next() { received += chunk }
        #expect(received == body)
    }
}
