import MirrorArchive
import Testing

/// SURT keys as the `surt` package (behind cdxj-indexer, pywb and py-wacz) computes them: the
/// expected values were printed by `surt.surt(url)` (surt 0.3.1), so our CDXJ keys match theirs.
@Suite("SURT keys")
struct SURTTests {
    static let golden: [(String, String)] = [
        ("http://127.0.0.1:8080/", "1,0,0,127:8080)/"),
        ("http://127.0.0.1:8080/foo/Bar.html?b=2&a=1", "1,0,0,127:8080)/foo/bar.html?a=1&b=2"),
        ("http://www.Example.org/a/b/", "org,example)/a/b"),
        ("https://example.org:443/x%2Fy%20z?", "org,example)/x/y%20z"),
        ("http://example.org/%7Efoo/caf%C3%A9", "org,example)/~foo/caf%c3%a9"),
        ("http://example.org/a?x=%41&y", "org,example)/a?x=a&y"),
        ("http://example.org", "org,example)/"),
        ("http://example.org/a/./b/../c", "org,example)/a/c"),
        ("http://example.org/a#frag", "org,example)/a"),
        ("http://example.org/a%2523", "org,example)/a%23"),
        ("http://example.org/a?B=%e9&a", "org,example)/a?a&b=%e9"),
        ("http://localhost:80/x", "localhost)/x"),
        ("https://www2.example.org:8443/Docs/index.html?q=1&a=&a", "org,example:8443)/docs/index.html?a&a=&q=1"),
        ("http://example.org/a//b///c/", "org,example)/a/b/c"),
        ("http://example.org/x?jsessionid=0123456789abcdef0123456789abcdef&page=2", "org,example)/x?page=2"),
        ("http://example.org/shop?PHPSESSID=0123456789abcdef0123456789abcdef", "org,example)/shop"),
        ("http://example.org/(s(abcdefghijklmnopqrstuvwx))/page.aspx?x=1", "org,example)/page.aspx?x=1"),
        ("http://example.org/theme.css?v=2022.1", "org,example)/theme.css?v=2022.1"),
        ("http://example.org/100%", "org,example)/100%25"),
        ("http://example.org/a%20b%2Bc", "org,example)/a%20b+c"),
        ("http://sub.example.co.uk/p;params?a=b", "uk,co,example,sub)/p;params?a=b"),
        ("http://example.org/?", "org,example)/"),
        ("http://wwwexample.org/", "org,wwwexample)/"),
        ("http://www.example.org/..", "org,example)/.."),
        ("https://example.org/%E2%82%AC/x?q=%E2%82%AC", "org,example)/%e2%82%ac/x?q=%e2%82%ac"),
        ("http://example.org/a?c=3&b=2&a=1&b=1", "org,example)/a?a=1&b=1&b=2&c=3"),
    ]

    @Test(arguments: golden)
    func keyMatchesTheSurtPackage(url: String, expected: String) {
        #expect(SURT.key(url) == expected)
    }
}
