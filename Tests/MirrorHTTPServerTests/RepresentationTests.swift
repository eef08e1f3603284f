import MirrorHTTPServer
import NIOHTTP1
import Testing

/// Conditional and range requests (RFC 9110 §13, §14) against one representation.
@Suite("Preconditions and byte ranges")
struct RepresentationTests {
    let representation = Representation(size: 100, etag: "\"v1\"", lastModified: 1_000_000)

    func answer(_ headers: [(String, String)], method: HTTPMethod = .GET) -> Representation.Answer {
        representation.answer(method: method, headers: HTTPHeaders(headers))
    }

    @Test func conditionsInTheOrderOfTheRFC() {
        #expect(answer([]) == .full)
        #expect(answer([("If-None-Match", "\"v1\"")]) == .notModified)
        #expect(answer([("If-None-Match", "\"v0\", \"v1\"")]) == .notModified)
        #expect(answer([("If-None-Match", "W/\"v1\"")]) == .notModified, "If-None-Match compares weakly")
        #expect(
            answer([("If-None-Match", "\"v0\""), ("If-Modified-Since", "Mon, 12 Jan 1970 13:46:40 GMT")]) == .full,
            "If-Modified-Since is ignored when If-None-Match is there")
        #expect(answer([("If-Modified-Since", "Mon, 12 Jan 1970 13:46:40 GMT")]) == .notModified)
        #expect(answer([("If-Modified-Since", "Mon, 12 Jan 1970 13:46:39 GMT")]) == .full)
        #expect(answer([("If-Match", "W/\"v1\"")]) == .preconditionFailed, "If-Match compares strongly")
        #expect(answer([("If-Match", "\"v1\""), ("Range", "bytes=0-9")]) == .partial(0..<10))
        #expect(answer([("If-Unmodified-Since", "Mon, 12 Jan 1970 13:46:39 GMT")]) == .preconditionFailed)
        #expect(answer([("If-None-Match", "\"v1\"")], method: .POST) == .preconditionFailed)
    }

    /// Tag lists are cut by bytes: a prepended mark (U+0600) before a comma made one `Character`
    /// with it, and the tag after it went unseen.
    @Test func tagListsAreCutByBytes() {
        #expect(answer([("If-None-Match", "\"x\"\u{600}, \"v1\"")]) == .notModified)
        #expect(answer([("If-Match", "\"x\"\u{600},\"v1\"")]) == .full)
        #expect(answer([("If-None-Match", "\"v1\"\u{301}")]) == .full)
    }

    @Test func rangesAndIfRange() {
        #expect(answer([("Range", "bytes=10-19")]) == .partial(10..<20))
        #expect(answer([("Range", "bytes = 10-19 ")]) == .full, "not the syntax")
        #expect(answer([("Range", "bytes=10-")]) == .partial(10..<100))
        #expect(answer([("Range", "bytes=-10")]) == .partial(90..<100))
        #expect(answer([("Range", "bytes=-1000")]) == .partial(0..<100))
        #expect(answer([("Range", "bytes=99-99999999999999999999999")]) == .partial(99..<100))
        #expect(answer([("Range", "bytes=100-")]) == .unsatisfiable)
        #expect(answer([("Range", "bytes=-0")]) == .unsatisfiable)
        #expect(answer([("Range", "bytes=20-10")]) == .full)
        #expect(answer([("Range", "bytes=0-1,3-4")]) == .full)
        #expect(answer([("Range", "bytes=0-9")], method: .HEAD) == .full, "HEAD ignores Range")
        #expect(answer([("Range", "bytes=0-9"), ("If-Range", "\"v1\"")]) == .partial(0..<10))
        #expect(answer([("Range", "bytes=0-9"), ("If-Range", "W/\"v1\"")]) == .full)
        #expect(answer([("Range", "bytes=0-9"), ("If-Range", "\"v2\"")]) == .full)
        #expect(answer([("Range", "bytes=0-9"), ("If-Range", "Mon, 12 Jan 1970 13:46:40 GMT")]) == .partial(0..<10))
        #expect(answer([("Range", "bytes=0-9"), ("If-Range", "Mon, 12 Jan 1970 13:46:41 GMT")]) == .full)
    }
}
