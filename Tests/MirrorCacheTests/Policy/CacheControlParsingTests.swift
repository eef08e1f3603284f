import MirrorCache
import NIOHTTP1
import Testing

/// RFC 9111 §5.2: parsing Cache-Control (and §5.4 Pragma).
@Suite("Policy: §5.2 Cache-Control parsing")
struct PolicyCacheControlParsingTests {
    typealias F = PolicyFixture

    func value(_ control: CacheControl, _ name: String) -> String?? { control.directives[name] }

    // MARK: Quoted strings

    @Test func quotedValuesKeepTheirCommas() {
        let control = CacheControl("private=\"Set-Cookie, Authorization\", max-age=60")
        #expect(value(control, "private") == .some("Set-Cookie, Authorization"))
        #expect(control.maxAge == 60)
        #expect(control.isPrivate)
        #expect(control.directives.count == 2)
        #expect(!control.has("authorization\""))
    }

    /// Directives are cut at bytes: a mark after a value made one `Character` with the `,`, so
    /// `private` and `no-store` went unseen and a shared cache kept what it must not.
    @Test func aMarkBeforeACommaHidesNoDirective() {
        #expect(CacheControl("max-age=600\u{600}, private").isPrivate)
        #expect(CacheControl("public\u{600}, no-store").noStore)
        #expect(CacheControl("max-age=\u{301}60, no-store").noStore)
        #expect(value(CacheControl("private=\"a\u{301}\\\"b\", no-store"), "private") == .some("a\u{301}\"b"))
    }

    @Test func noCacheWithFieldNamesStillCounts() {
        let control = CacheControl("no-cache=\"a, b\", no-store")
        #expect(control.noCache)
        #expect(control.noStore)
        #expect(value(control, "no-cache") == .some("a, b"))
    }

    @Test func quotedNumbersAreRead() {
        #expect(CacheControl("max-age=\"30\"").maxAge == 30)
        #expect(CacheControl("s-maxage=\"5\", stale-if-error=\"7\"").sharedMaxAge == 5)
        #expect(CacheControl("s-maxage=\"5\", stale-if-error=\"7\"").staleIfError == 7)
    }

    @Test func escapedQuotesDoNotEndAQuotedString() {
        // RFC 9110 §5.6.4: quoted-string allows quoted-pair (\"), which does not end the string.
        let control = CacheControl(#"ext="a\"b, c", max-age=5"#)
        #expect(control.maxAge == 5)
        #expect(value(control, "ext") == .some(#"a"b, c"#))
        #expect(control.directives.count == 2)
        #expect(!control.has("c\""))
    }

    @Test func unknownExtensionsAreKept() {
        let control = CacheControl("community=\"UCI\", x-custom, max-age=1")
        #expect(value(control, "community") == .some("UCI"))
        #expect(control.has("x-custom"))
        #expect(value(control, "x-custom") == .some(nil))
        #expect(control.maxAge == 1)
    }

    // MARK: Case, whitespace, empty elements

    @Test func directiveNamesAreCaseInsensitive() {
        let control = CacheControl("MAX-AGE=5, No-Store, Public, S-MaxAge=7, Must-Revalidate, ONLY-IF-CACHED")
        #expect(control.maxAge == 5)
        #expect(control.sharedMaxAge == 7)
        #expect(control.noStore && control.isPublic && control.mustRevalidate && control.onlyIfCached)
    }

    @Test func valuesKeepTheirCase() {
        #expect(value(CacheControl("private=\"Set-Cookie\""), "private") == .some("Set-Cookie"))
    }

    @Test func whitespaceAndEmptyElementsAreTolerated() {
        let control = CacheControl(" ,, max-age = 30 ,\tno-store\t,, ")
        #expect(control.maxAge == 30)
        #expect(control.noStore)
        #expect(control.directives.count == 2)
    }

    @Test func anEmptyHeaderHasNoDirectives() {
        #expect(CacheControl("").directives.isEmpty)
        #expect(CacheControl(HTTPHeaders()).directives.isEmpty)
        #expect(CacheControl(F.headers([("Cache-Control", "")])).maxAge == nil)
    }

    // MARK: Duplicates and several field lines

    @Test func theFirstOccurrenceWins() {
        #expect(CacheControl("max-age=10, max-age=20").maxAge == 10)
        #expect(CacheControl("max-age=10, MAX-AGE=20").maxAge == 10)
        #expect(CacheControl("private, private=\"x\"").directives["private"] == .some(nil))
    }

    @Test func severalFieldLinesAreCombined() {
        let control = CacheControl(F.headers([("Cache-Control", "no-cache"), ("cache-control", "max-age=5, public")]))
        #expect(control.noCache)
        #expect(control.maxAge == 5)
        #expect(control.isPublic)
    }

    @Test func theFirstOccurrenceWinsAcrossFieldLines() {
        let control = CacheControl(F.headers([("Cache-Control", "max-age=10"), ("Cache-Control", "max-age=20")]))
        #expect(control.maxAge == 10)
    }

    @Test func oneLineEqualsTheSameDirectivesOnSeveralLines() {
        let joined = CacheControl(F.headers([("Cache-Control", "max-age=5, no-cache, private=\"a, b\"")]))
        let split = CacheControl(
            F.headers([
                ("Cache-Control", "max-age=5"), ("Cache-Control", "no-cache"),
                ("Cache-Control", "private=\"a, b\""),
            ]))
        #expect(joined == split)
    }

    // MARK: delta-seconds (§1.2.2)

    @Test(arguments: ["abc", "-1", "1.5", "", " ", "5s", "+5", "0x10", "1e3", "٣"])
    func invalidNumbersReadAsZero(text: String) {
        #expect(CacheControl("max-age=\(text)").maxAge == 0)
        #expect(CacheControl("min-fresh=\(text)").minFresh == 0)
        #expect(CacheControl("stale-if-error=\(text)").staleIfError == 0)
    }

    @Test func aDirectiveWithoutItsNumberReadsAsZero() {
        #expect(CacheControl("max-age").maxAge == 0)
        #expect(CacheControl("s-maxage").sharedMaxAge == 0)
    }

    @Test func absentDirectivesAreNil() {
        let control = CacheControl("public")
        #expect(control.maxAge == nil)
        #expect(control.sharedMaxAge == nil)
        #expect(control.minFresh == nil)
        #expect(control.maxStale == nil)
        #expect(control.staleIfError == nil)
        #expect(control.seconds("public") == 0)
    }

    @Test(arguments: [
        ("0", 0), ("007", 7), ("86400", 86400), ("2147483647", 2_147_483_647),
        ("99999999999999999999", 2_147_483_647),
    ])
    func validNumbers(text: String, expected: Int) {
        #expect(CacheControl("max-age=\(text)").maxAge == expected)
    }

    // MARK: max-stale

    @Test func maxStaleWithoutAValueMeansAnyStaleness() {
        #expect(CacheControl("max-stale").maxStale == Int.max)
        #expect(CacheControl("MAX-STALE, no-cache").maxStale == Int.max)
    }

    @Test func maxStaleWithAValue() {
        #expect(CacheControl("max-stale=30").maxStale == 30)
        #expect(CacheControl("max-stale=\"30\"").maxStale == 30)
        #expect(CacheControl("max-stale=abc").maxStale == 0)
    }

    // MARK: Pragma (§5.4)

    @Test func pragmaNoCacheCountsInRequestsWithoutCacheControl() {
        #expect(CacheControl(F.headers([("Pragma", "no-cache")]), isRequest: true).noCache)
        #expect(CacheControl(F.headers([("Pragma", "NO-CACHE")]), isRequest: true).noCache)
    }

    @Test func pragmaIsIgnoredInResponsesAndBesideCacheControl() {
        #expect(!CacheControl(F.headers([("Pragma", "no-cache")])).noCache)
        #expect(!CacheControl(F.headers([("Pragma", "no-cache"), ("Cache-Control", "max-age=5")]), isRequest: true).noCache)
        #expect(!CacheControl(F.headers([("Pragma", "x-other")]), isRequest: true).noCache)
    }

    // MARK: Strings and headers agree

    @Test func stringAndHeaderInitializersAgree() {
        let text = "public, max-age=60, stale-if-error=\"30\""
        #expect(CacheControl(text) == CacheControl(F.headers([("Cache-Control", text)])))
    }
}
