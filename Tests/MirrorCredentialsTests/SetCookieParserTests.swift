import MirrorCredentials
import Testing

@Suite("Set-Cookie parsing")
struct SetCookieParserTests {
    /// 2021-06-06 16:00:00 UTC, a few days before the RFC's example dates.
    static let now: Double = 1_622_995_200
    /// Wed, 09 Jun 2021 10:18:14 GMT, the date of RFC 6265's examples.
    static let rfcDate: Double = 1_623_233_894

    func parse(_ value: String) throws -> SetCookie {
        try SetCookieParser.parse(value, now: Self.now)
    }

    @Test func rfcExample() throws {
        let cookie = try parse("SID=31d4d96e407aad42; Path=/; Domain=example.com")
        #expect(cookie == SetCookie(name: "SID", value: "31d4d96e407aad42", domain: "example.com", path: "/"))
        let secure = try parse("SID=31d4d96e407aad42; Path=/; Secure; HttpOnly")
        #expect(secure.secure && secure.httpOnly && secure.domain == nil)
    }

    /// Cut by bytes: a `Character` index after `=` passed over a mark joined to it, and prefix
    /// tests on `Character`s did not see a `/` or `.` followed by a mark.
    @Test func aMarkAfterADelimiterStaysInWhatFollows() throws {
        let cookie = try parse("sid=\u{301}abc; Path=/\u{301}x; Domain=.\u{301}example.com; Max-Age=\u{301}0")
        #expect(cookie.value.unicodeScalars.elementsEqual("\u{301}abc".unicodeScalars))
        #expect(cookie.path.map { Array($0.utf8) } == Array("/\u{301}x".utf8))
        #expect(cookie.domain.map { Array($0.utf8) } == Array("\u{301}example.com".utf8))
        #expect(cookie.expires == nil, "Max-Age with a mark is no number: ignored, not 0")
        #expect(try parse("sid\u{600}=1").name.unicodeScalars.elementsEqual("sid\u{600}".unicodeScalars))
    }

    @Test func spacesAroundNameValueAndAttributesAreDropped() throws {
        let cookie = try parse("  lang = en-US ;  Domain = .Example.COM ; path=/docs ; SAMESITE=Lax; secure ")
        #expect(cookie == SetCookie(name: "lang", value: "en-US", domain: "example.com", path: "/docs", secure: true, sameSite: "Lax"))
    }

    @Test func valueMayHoldEqualsSigns() throws {
        #expect(try parse("token=a=b==; Path=/").value == "a=b==")
    }

    @Test func expiresInEveryFormServersSend() throws {
        for date in [
            "Wed, 09 Jun 2021 10:18:14 GMT", "Wed, 09-Jun-21 10:18:14 GMT", "Wednesday, 09-Jun-2021 10:18:14 GMT",
            "Wed Jun  9 10:18:14 2021", "9 jun 2021 10:18:14", "Wed, 09 JUNE 2021 10:18:14 UTC",
        ] {
            #expect(try parse("lang=en-US; Expires=\(date)").expires == Self.rfcDate, "\(date)")
        }
    }

    @Test func invalidDatesAreIgnored() throws {
        for date in ["Wed, 31 Feb 2021 10:18:14 GMT", "Wed, 09 Jun 1600 10:18:14 GMT", "Wed, 09 Jun 2021 24:00:00 GMT", "tomorrow", ""] {
            #expect(try parse("lang=en-US; Expires=\(date)").expires == nil, "\(date)")
        }
    }

    @Test func maxAgeWinsOverExpiresInEitherOrder() throws {
        #expect(try parse("a=1; Max-Age=60; Expires=Wed, 09 Jun 2021 10:18:14 GMT").expires == Self.now + 60)
        #expect(try parse("a=1; Expires=Wed, 09 Jun 2021 10:18:14 GMT; Max-Age=60").expires == Self.now + 60)
        // A malformed Max-Age is ignored, so Expires applies.
        #expect(try parse("a=1; Max-Age=6O; Expires=Wed, 09 Jun 2021 10:18:14 GMT").expires == Self.rfcDate)
    }

    @Test func maxAgeZeroOrLessExpiresAtOnce() throws {
        for maxAge in ["0", "-1", "-99999999999999999999"] {
            let expires = try #require(try parse("a=1; Max-Age=\(maxAge)").expires)
            #expect(expires <= Self.now, "\(maxAge)")
        }
    }

    @Test func lifetimeIsCappedAt400Days() throws {
        let cap = Self.now + 400 * 86_400
        #expect(try parse("a=1; Max-Age=999999999999999999999").expires == cap)
        #expect(try parse("a=1; Expires=Fri, 01 Jan 2100 00:00:00 GMT").expires == cap)
    }

    @Test func pathWithoutLeadingSlashMeansTheDefault() throws {
        #expect(try parse("a=1; Path=docs").path == nil)
        #expect(try parse("a=1; Path=/docs; Path=").path == nil)
        #expect(try parse("a=1; Path=docs; Path=/docs").path == "/docs")
    }

    @Test func emptyDomainAndUnknownAttributesAreIgnored() throws {
        let cookie = try parse("a=1; Domain=example.com; Domain=; Priority=High; Partitioned")
        #expect(cookie == SetCookie(name: "a", value: "1", domain: "example.com"))
    }

    @Test func namelessCookiesAreRefused() {
        #expect(throws: CookieRefusal.self) { try parse("justavalue") }
        #expect(throws: CookieRefusal.self) { try parse("=justavalue; Path=/") }
        #expect(throws: CookieRefusal.self) { try parse("") }
    }

    @Test func controlCharactersAreRefusedWithoutQuotingTheValue() throws {
        for value in ["sid=secret\u{1}value", "sid=secret\rvalue", "sid=secret\nvalue; Path=/", "sid=secret\u{7F}"] {
            let error = try #require(throws: CookieRefusal.self) { try parse(value) }
            #expect(!error.reason.contains("secret"))
        }
        #expect(try parse("sid=tab\tinside").value == "tab\tinside")
    }

    @Test func nameAndValueAreLimitedTo4096Bytes() throws {
        let fits = "n=" + String(repeating: "v", count: 4095)
        #expect(try parse(fits).value.utf8.count == 4095)
        let error = try #require(throws: CookieRefusal.self) { try parse(fits + "v") }
        #expect(error.reason.contains("4096") && !error.reason.contains("vvv"))
    }
}
