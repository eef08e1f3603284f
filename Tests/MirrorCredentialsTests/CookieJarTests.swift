import MirrorCore
import MirrorCredentials
import MirrorLock
import Testing

@Suite("Cookie jar")
struct CookieJarTests {
    /// A clock the test moves by hand.
    final class Clock: Sendable {
        private let seconds: Locked<Double>

        init(_ seconds: Double = 1_700_000_000) {
            self.seconds = Locked(seconds)
        }

        var now: Double { seconds.withLock { $0 } }

        func advance(by interval: Double) {
            seconds.withLock { $0 += interval }
        }
    }

    let clock = Clock()
    let jar: CookieJar

    init() throws {
        let clock = clock
        let publicSuffixes: PublicSuffixList = try #require(PublicSuffixList.system())
        jar = CookieJar(publicSuffixes: publicSuffixes, now: { clock.now })
    }

    static func url(_ text: String) -> URLParts {
        URLParts(text)!
    }

    /// The one change of one Set-Cookie value.
    func receive(_ value: String, from address: String) -> CookieJar.Change {
        jar.receive([value], from: Self.url(address))[0]
    }

    func header(_ address: String) -> String? {
        jar.cookieHeader(for: Self.url(address))
    }

    func isRefused(_ change: CookieJar.Change) -> Bool {
        if case .refused = change { return true }
        return false
    }

    @Test func rfcExamples() {
        let changes = jar.receive(
            ["SID=31d4d96e407aad42; Path=/; Secure; HttpOnly", "lang=en-US; Path=/; Domain=example.com"],
            from: Self.url("https://www.example.com/"))
        #expect(changes.allSatisfy { if case .stored = $0 { true } else { false } })
        #expect(header("https://www.example.com/") == "SID=31d4d96e407aad42; lang=en-US")
        #expect(header("https://docs.example.com/") == "lang=en-US")
        #expect(header("http://www.example.com/") == "lang=en-US")
        #expect(header("https://example.org/") == nil)
    }

    @Test func rfcExampleOfExpiryAndDeletion() throws {
        clock.advance(by: 1_622_995_200 - clock.now)  // 2021-06-06, before the example's date
        guard case .stored(let lang) = receive("lang=en-US; Expires=Wed, 09 Jun 2021 10:18:14 GMT", from: "http://example.com/") else {
            Issue.record("not stored")
            return
        }
        #expect(lang.expires == 1_623_233_894 && lang.hostOnly && lang.path == "/")
        #expect(header("http://example.com/") == "lang=en-US")
        let deletion = receive("lang=; Expires=Sun, 06 Nov 1994 08:49:37 GMT", from: "http://example.com/")
        guard case .deleted(let deleted) = deletion else {
            Issue.record("\(deletion)")
            return
        }
        #expect(deleted.value == "en-US" && deleted.creation == lang.creation && !deleted.given)
        #expect(header("http://example.com/") == nil)
    }

    @Test func domainCookiesForPublicSuffixesAreRefused() {
        let coUK = receive("a=1; Domain=co.uk", from: "https://www.example.co.uk/")
        #expect(coUK == .refused(reason: "cookie \"a\" is for Domain=co.uk, a public suffix shared by unrelated sites"))
        #expect(isRefused(receive("b=1; Domain=.github.io", from: "https://me.github.io/")))
        guard case .stored(let ok) = receive("c=1; Domain=example.co.uk", from: "https://www.example.co.uk/") else {
            Issue.record("not stored")
            return
        }
        #expect(!ok.hostOnly && ok.domain == "example.co.uk")
        #expect(header("https://shop.example.co.uk/") == "c=1")
        #expect(header("https://other.co.uk/") == nil)
    }

    @Test func domainEqualToAPublicSuffixHostIsHostOnly() {
        guard case .stored(let cookie) = receive("a=1; Domain=github.io", from: "https://github.io/") else {
            Issue.record("not stored")
            return
        }
        #expect(cookie.hostOnly)
        #expect(header("https://me.github.io/") == nil)
    }

    @Test func withoutAListOnlyTheHostItselfIsTaken() {
        let jar = CookieJar(publicSuffixes: nil, now: { 1_700_000_000 })
        #expect(isRefused(jar.receive(["a=1; Domain=example.com"], from: Self.url("https://www.example.com/"))[0]))
        guard case .stored(let cookie) = jar.receive(["b=1; Domain=www.example.com"], from: Self.url("https://www.example.com/"))[0] else {
            Issue.record("not stored")
            return
        }
        #expect(cookie.hostOnly)
    }

    @Test func domainMustCoverTheHost() {
        #expect(isRefused(receive("a=1; Domain=other.com", from: "https://example.com/")))
        #expect(isRefused(receive("a=1; Domain=ample.com", from: "https://example.com/")))
        #expect(isRefused(receive("a=1; Domain=www.example.com", from: "https://example.com/")))
    }

    @Test func hostOnlyAndDomainCookies() {
        _ = jar.receive(["host=1", "domain=2; Domain=Example.com"], from: Self.url("https://example.com/"))
        #expect(header("https://example.com/") == "host=1; domain=2")
        #expect(header("https://sub.example.com/") == "domain=2")
        #expect(header("https://notexample.com/") == nil)
    }

    /// Hosts compare by bytes, as the crawl's URLs do: `==` took `café` spelled with a combining
    /// accent for the host of a host-only cookie set by `café` spelled with `é`.
    @Test func hostsCompareByBytes() {
        _ = receive("a=1", from: "https://caf\u{E9}.example/")
        #expect(header("https://caf\u{E9}.example/") == "a=1")
        #expect(header("https://cafe\u{301}.example/") == nil)
        #expect(Cookie(name: "a", value: "1", domain: "example.com", hostOnly: false, creation: 0).domainMatches("x\u{600}.example.com"))
    }

    @Test func ipAddressesGetHostOnlyCookies() {
        guard case .stored(let cookie) = receive("a=1; Domain=127.0.0.1", from: "http://127.0.0.1:8080/") else {
            Issue.record("not stored")
            return
        }
        #expect(cookie.hostOnly)
        #expect(isRefused(receive("b=1; Domain=0.0.1", from: "http://127.0.0.1:8080/")))
        #expect(header("http://127.0.0.1:9090/") == "a=1")  // cookies do not care for ports
        #expect(header("http://27.0.0.1/") == nil)
    }

    @Test func pathMatching() {
        _ = receive("a=1; Path=/docs", from: "https://example.com/")
        for path in ["/docs", "/docs/", "/docs/a", "/docs/a/b?q=1"] {
            #expect(header("https://example.com\(path)") == "a=1", "\(path)")
        }
        for path in ["/docsx", "/doc", "/", "", "/Docs"] {
            #expect(header("https://example.com\(path)") == nil, "\(path)")
        }
    }

    @Test func defaultPathIsTheRequestsFolder() {
        guard case .stored(let cookie) = receive("a=1", from: "https://example.com/docs/page.html?x=1") else {
            Issue.record("not stored")
            return
        }
        #expect(cookie.path == "/docs")
        guard case .stored(let top) = receive("b=1; Path=relative", from: "https://example.com/page.html") else {
            Issue.record("not stored")
            return
        }
        #expect(top.path == "/")
    }

    @Test func secureCookiesNeedHTTPSOrLoopback() {
        let refused = receive("a=1; Secure", from: "http://example.com/")
        #expect(refused == .refused(reason: "cookie \"a\" is Secure but came over http"))
        for address in ["http://127.0.0.1:8080/", "http://localhost/", "http://[::1]:8080/", "https://example.com/"] {
            if case .stored = receive("s=1; Secure", from: address) {} else { Issue.record("\(address) refused") }
            #expect(header(address) == "s=1", "\(address)")
        }
        #expect(header("http://example.com/") == nil)
    }

    @Test func httpMayNotReplaceOrDeleteASecureCookie() {
        _ = receive("sid=1; Secure", from: "https://example.com/")
        #expect(isRefused(receive("sid=2", from: "http://example.com/")))
        #expect(isRefused(receive("sid=; Max-Age=0", from: "http://www.example.com/")))
        #expect(header("https://example.com/") == "sid=1")
        if case .replaced = receive("sid=3; Secure", from: "https://example.com/") {} else { Issue.record("not replaced") }
    }

    @Test func prefixes() {
        #expect(isRefused(receive("__Secure-a=1", from: "https://example.com/")))
        #expect(!isRefused(receive("__Secure-a=1; Secure", from: "https://example.com/")))
        #expect(!isRefused(receive("__Host-b=1; Secure; Path=/", from: "https://example.com/")))
        #expect(isRefused(receive("__Host-c=1; Secure", from: "https://example.com/docs/")))
        #expect(isRefused(receive("__Host-d=1; Secure; Path=/; Domain=example.com", from: "https://example.com/")))
        #expect(isRefused(receive("__host-e=1; Path=/", from: "https://example.com/")))
        // By bytes: a mark after the `-` makes one `Character` with it, which hid the prefix.
        #expect(isRefused(receive("__Host-\u{301}f=1; Secure; Path=/; Domain=example.com", from: "https://example.com/")))
        #expect(isRefused(receive("__Secure-\u{301}g=1", from: "https://example.com/")))
    }

    @Test func maxAgeExpiry() {
        _ = receive("a=1; Max-Age=60", from: "https://example.com/")
        clock.advance(by: 59)
        #expect(header("https://example.com/") == "a=1")
        clock.advance(by: 1)
        #expect(header("https://example.com/") == nil)
        #expect(jar.cookies.isEmpty)
    }

    @Test func expiredOnArrivalChangesNothing() {
        let change = receive("a=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT", from: "https://example.com/")
        guard case .expiredOnArrival(let cookie) = change else {
            Issue.record("\(change)")
            return
        }
        #expect(cookie.name == "a")
        #expect(jar.cookies.isEmpty)
    }

    @Test func deletingAGivenCookieSaysSo() {
        let given = Cookie(name: "sid", value: "s3cret", domain: ".example.com", hostOnly: false, creation: clock.now, given: true)
        #expect(jar.add([given]) == [.stored(given)])
        // A different host-only flag is another cookie (RFC 6265bis): nothing to delete.
        if case .expiredOnArrival = receive("sid=; Max-Age=0", from: "https://example.com/") {} else { Issue.record("deleted") }
        #expect(receive("sid=; Max-Age=0; Domain=example.com", from: "https://www.example.com/") == .deleted(given))
        #expect(jar.cookies.isEmpty)
    }

    @Test func replacingKeepsCreationAndGiven() {
        let given = Cookie(name: "sid", value: "old", domain: "example.com", creation: clock.now, given: true)
        jar.add([given])
        clock.advance(by: 10)
        guard case .replaced(let old, let new) = receive("sid=new; HttpOnly", from: "https://example.com/") else {
            Issue.record("not replaced")
            return
        }
        #expect(old == given)
        #expect(new.value == "new" && new.httpOnly && new.creation == given.creation && new.given && new.lastAccess == clock.now)
        #expect(jar.cookies == [new])
    }

    @Test func headerOrderIsLongerPathsThenEarlierCreation() {
        for value in ["a=1; Path=/", "b=2; Path=/docs", "c=3; Path=/", "d=4; Path=/docs/api"] {
            _ = receive(value, from: "https://example.com/")
            clock.advance(by: 1)
        }
        #expect(header("https://example.com/docs/api/x") == "d=4; b=2; a=1; c=3")
        _ = receive("a=9; Path=/", from: "https://example.com/")  // keeps a's place
        #expect(header("https://example.com/docs/") == "b=2; a=9; c=3")
    }

    @Test func perDomainLimitEvictsTheLeastRecentlyUsed() {
        _ = receive("zero=0; Path=/zero", from: "https://example.com/")
        for number in 1..<50 {
            clock.advance(by: 1)
            _ = receive("c\(number)=1; Path=/p", from: "https://example.com/")
        }
        clock.advance(by: 1)
        #expect(header("https://example.com/zero") == "zero=0")  // now the most recently used
        _ = receive("last=1; Path=/p", from: "https://example.com/")
        let names = jar.cookies.map(\.name)
        #expect(names.count == 50)
        #expect(names.contains("zero") && names.contains("last") && !names.contains("c1"))
    }

    @Test func addRefusesDomainCookiesForPublicSuffixes() {
        let changes = jar.add([
            Cookie(name: "a", value: "1", domain: ".co.uk", hostOnly: false, creation: clock.now, given: true),
            Cookie(name: "b", value: "1", domain: "github.io", hostOnly: true, creation: clock.now, given: true),
        ])
        #expect(isRefused(changes[0]) && !isRefused(changes[1]))
        #expect(jar.cookies.map(\.name) == ["b"])
    }

    @Test func refusalsNeverQuoteTheValue() {
        for value in ["sid=TOPSECRET; Secure", "sid=TOPSECRET; Domain=co.uk", "sid=TOPSECRET\u{0}", "__Host-sid=TOPSECRET"] {
            guard case .refused(let reason) = receive(value, from: "http://www.example.co.uk/") else {
                Issue.record("\(value) taken")
                continue
            }
            #expect(!reason.contains("TOPSECRET"))
        }
    }

    @Test func removeExpiredKeepsTheRestInOrder() {
        _ = jar.receive(["b=1; Max-Age=10", "a=1", "c=1; Max-Age=100"], from: Self.url("https://b.example/"))
        _ = jar.receive(["z=1"], from: Self.url("https://a.example/"))
        clock.advance(by: 20)
        jar.removeExpired()
        #expect(jar.cookies.map(\.name) == ["z", "a", "c"])
        #expect(jar.cookies.allSatisfy { !$0.description.contains("=") })
    }

    /// Found by the `cookies` fuzz target: the host `.h.example` made a host-only cookie for
    /// `h.example` (a stored domain drops its leading dot), a host it does not match.
    @Test func aHostStartingWithADotSetsNoCookie() {
        #expect(isRefused(receive("x=1", from: "http://.h.example/")))
        #expect(isRefused(receive("y=2; Domain=h.example", from: "http://.h.example/")))
        #expect(header("http://h.example/") == nil)
    }
}
