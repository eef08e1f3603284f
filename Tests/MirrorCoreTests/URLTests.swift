import MirrorCore
import Testing

@Suite("URL normalization (RFC 3986 §6) and resolution (§5.2)")
struct URLTests {
    @Test(arguments: [
        ("HTTP://Example.ORG:80/a/./b/../c?q=%7e%2f#frag", "http://example.org/a/c?q=~%2F"),
        ("https://example.org:443", "https://example.org/"),
        ("https://example.org:8443/", "https://example.org:8443/"),
        ("http://example.org/%7Euser/%c3%bc", "http://example.org/~user/%C3%BC"),
        ("http://example.org/ünï code", "http://example.org/%C3%BCn%C3%AF%20code"),
        ("http://example.org/a%2fb", "http://example.org/a%2Fb"),
        ("http://example.org/../../x", "http://example.org/x"),
        ("http://example.org/100%", "http://example.org/100%25"),
        ("  http://example.org/x\\y  ", "http://example.org/x/y"),
    ])
    func normalizes(input: String, expected: String) {
        #expect(URLNormalizer.normalize(input) == expected)
    }

    /// A host with a space or a control (`http://a\u{0}\u{1B}/`, found by the `url-normalize` fuzz
    /// target) normalized to a URL that resolved otherwise, those being dropped from references.
    @Test(arguments: [
        "mailto:a@b.c", "ftp://x/", "http://", "http://host:99999/", "//host/x", "relative/path", "http://host:12a/", "http://a b/",
        "http://a\u{0}\u{1B}/", "http://a\u{7F}/", "http://u@\t/",
    ])
    func rejectsWhatIsNotAnAbsoluteHTTPURL(input: String) {
        #expect(URLNormalizer.normalize(input) == nil)
    }

    /// RFC 3986 §5.2.4's algorithm, and paths that only look like dot segments.
    @Test(arguments: [
        ("/a/b/c/./../../g", "/a/g"), ("/mid/content=5/../6", "/mid/6"), ("/", "/"), ("/.", "/"), ("/..", "/"),
        ("/a/..", "/"), ("/a/b/..", "/a/"), ("/a/./", "/a/"), ("/a//../b", "/a/b"), ("/a/.b/..c/.../", "/a/.b/..c/.../"),
        ("/a.html", "/a.html"), ("/../../x/./y", "/x/y"), ("/a/%2e%2e/b", "/a/%2e%2e/b"), ("relative/../x", "relative/../x"),
    ])
    func removesDotSegments(path: String, expected: String) {
        #expect(URLParts.removeDotSegments(path) == expected)
    }

    /// RFC 3986 §5.4.1 normal examples, base http://a/b/c/d;p?q.
    @Test(arguments: [
        ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
        ("//g", "http://g/"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q"),
        ("g#s", "http://a/b/c/g"), ("g?y#s", "http://a/b/c/g?y"), (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"),
        ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
        ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../g", "http://a/g"),
        ("../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."),
        ("g..", "http://a/b/c/g.."), ("./../g", "http://a/b/g"), ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"),
        ("http:g", "http://a/b/c/g"), ("https://other/x", "https://other/x"), (" g\n", "http://a/b/c/g"),
        // CR LF is one `Character`: it was kept inside, as %0D%0A.
        ("/a/long\r\n/path", "http://a/a/long/path"), ("g\r\n\th", "http://a/b/c/gh"),
        // A prepended mark makes one `Character` with the space after it: the space is trimmed still.
        ("g\u{600} ", "http://a/b/c/g%D8%80"),
    ])
    func resolvesReferences(reference: String, expected: String) throws {
        let base = try #require(URLParts("http://a/b/c/d;p?q"))
        #expect(base.resolve(reference)?.normalized == expected)
    }

    @Test func keepsTheFragmentOfTheReference() throws {
        let base = try #require(URLParts("http://a/b/c"))
        #expect(base.resolve("d#part")?.fragment == "part")
        #expect(base.resolve("d")?.fragment == nil)
    }

    @Test(arguments: ["mailto:x@y", "javascript:void(0)", "data:text/plain,hi", "tel:123", "ftp://host/"])
    func ignoresOtherSchemes(reference: String) throws {
        #expect(try #require(URLParts("http://a/b")).resolve(reference) == nil)
    }

    @Test func hostPatterns() throws {
        let wildcard = try #require(HostPattern("*.Example.org"))
        #expect(wildcard.matches(host: "docs.example.org", port: 443))
        #expect(wildcard.matches(host: "example.org", port: 80))
        #expect(!wildcard.matches(host: "badexample.org", port: 80))
        let withPort = try #require(HostPattern("127.0.0.1:8080"))
        #expect(withPort.matches(host: "127.0.0.1", port: 8080))
        #expect(!withPort.matches(host: "127.0.0.1", port: 8081))
        #expect(HostPattern("host:notaport") == nil)
        #expect(HostPattern("") == nil)
    }

    /// Resolving the part before the fragment and then setting the fragment is resolving the
    /// whole, wherever `splitAtFragment` allows it; it refuses the references where it is not.
    @Test func splittingAtTheFragmentResolvesAsTheWhole() throws {
        let base = try #require(URLParts("http://h.example/docs/a/page.html?x=1"))
        let references = [
            "b.html#sec", "../c.html#a#b", "?q=2#frag", "/root#", "//other.example/p#x", "https://s.example/#/route",
            "http:rel.html#f", "caf%C3%A9.html#%C3%BC", "ünï.html#ç", "x.html", "a b.html#c d",
        ]
        for reference in references {
            let (target, fragment) = try #require(URLParts.splitAtFragment(reference), "\(reference)")
            var split = base.resolve(String(target))
            split?.fragment = fragment.map(String.init)
            #expect(split == base.resolve(reference), "\(reference)")
        }
        #expect(URLParts.splitAtFragment("ünï.html#ç#2").map { [String($0.target), $0.fragment.map(String.init)] } == ["ünï.html", "ç#2"])
        #expect(URLParts.splitAtFragment("x.html").map { [String($0.target), $0.fragment.map(String.init)] } == ["x.html", nil])
        for reference in [" a.html#x", "a.html#x\t", "a\n.html#x", "a\\b.html#x", ""] {
            #expect(URLParts.splitAtFragment(reference) == nil, "\(reference)")
        }
    }

    /// Found by the `url-normalize` fuzz target: a host name holds no `:`, so the port is what
    /// follows the first one. `http://a:80:/` read as host `a:80` normalized to `http://a:80/`,
    /// which normalized again to `http://a/`.
    @Test func thePortFollowsTheFirstColon() {
        #expect(URLNormalizer.normalize("http://a:80:/") == nil)
        #expect(URLNormalizer.normalize("http://a:b:80/") == nil)
        #expect(URLNormalizer.normalize("http://u:p@a:8080/") == "http://a:8080/")
        #expect(URLNormalizer.normalize("http://[::1]:8080/x") == "http://[::1]:8080/x")
    }

    /// A combining mark after a delimiter is no part of it: it is not stepped over with the
    /// delimiter, nor does it hide one (`h:\u{301}` has no port, `\` with a mark is still `/`).
    @Test func combiningMarksStayAfterDelimiters() throws {
        #expect(URLNormalizer.normalize("http://h:\u{301}/") == nil)
        #expect(URLNormalizer.normalize("http://h/a?\u{301}q#f") == "http://h/a?%CC%81q")
        #expect(URLNormalizer.normalize("http://h/a\\\u{301}b") == "http://h/a/%CC%81b")
        let base = try #require(URLParts("http://h/a/\u{301}b"))
        #expect(base.resolve("c")?.normalized == "http://h/a/c")
        #expect(base.resolve("c#\u{301}x")?.fragment == "\u{301}x")
    }

    /// Found by the `url-normalize` fuzz target: the part before the `#` is trimmed alone, so a
    /// control ending it went (`g\u{1C}#s` resolved as `g`, the whole as `g%1C`): such a
    /// reference is resolved whole. A combining mark after the `#` stays in the fragment.
    @Test func aControlBeforeTheFragmentIsResolvedWhole() throws {
        #expect(URLParts.splitAtFragment("g\u{1C}#s") == nil)
        #expect(URLParts.splitAtFragment("g #s") == nil)
        #expect(URLParts.splitAtFragment("g#\u{301}s").map { String($0.fragment ?? "") } == "\u{301}s")
        let base = try #require(URLParts("http://a/b/c"))
        #expect(base.resolve("g\u{1C}#s")?.normalized == "http://a/b/g%1C")
    }
}
