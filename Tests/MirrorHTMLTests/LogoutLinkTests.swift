import Testing

@testable import MirrorHTML

@Suite struct LogoutLinkTests {
    @Test(arguments: [
        "/accounts/logout/", "/users/sign_out", "wp-login.php?action=logout", "Log out", "Sign Out", "sign-off",
        "/session/logOut", "LOGOUT", "logoff", "SignOff", "Log\u{A0}out", "  log\n\tout  ", "/x/signout?next=/",
        "Please sign out", "LogOut",
    ])
    func matchesLogoutWords(_ text: String) {
        #expect(LogoutWords.matches(text))
        #expect(LogoutWords.matches(text[...]))
        #expect(Array(text.utf8).withUnsafeBufferPointer { LogoutWords.matches($0) })
    }

    @Test(arguments: [
        "/catalog/output", "Catalog outline", "/blog/outreach", "login", "signup", "/logo.png", "Design outline", "",
        "/", "log", "out", "sign in", "blog out", "logouts", "xlogout", "log2out", "/catalogue/sign/outline", "Logo ut",
        "Überlogin", "outlog", "login outage",
    ])
    func doesNotMatchOtherWords(_ text: String) {
        #expect(!LogoutWords.matches(text))
        #expect(!LogoutWords.matches(text[...]))
    }

    @Test func nonASCIIBytesSeparateWordsAndNeverCrash() {
        #expect(LogoutWords.matches("Ausloggen · log·out"))
        #expect(LogoutWords.matches("logout\u{1F600}"))
        #expect(LogoutWords.matches("\u{00E9}logout"))
        #expect(!LogoutWords.matches("\u{00E9}\u{00E9}\u{00E9}"))
        // Invalid UTF-8 and Latin-1 bytes are separators too.
        let bytes: [UInt8] = [0xFF, 0x6C, 0x6F, 0x67, 0xE9, 0x6F, 0x75, 0x74, 0x80]
        #expect(bytes.withUnsafeBufferPointer { LogoutWords.matches($0) })
        let noise = (0...255).map { UInt8($0) } + (0...255).map { UInt8(255 - $0) }
        #expect(!noise.withUnsafeBufferPointer { LogoutWords.matches($0) })
    }

    @Test func longWordsAreNotTruncatedIntoMatches() {
        // Only the first eight bytes of a word are kept: a longer word never matches.
        #expect(!LogoutWords.matches("logoutlogout"))
        #expect(!LogoutWords.matches("signoffs-and-more"))
        #expect(!LogoutWords.matches("loglogloglog out"))
        #expect(LogoutWords.matches("averyveryverylongword logout"))
    }

    // MARK: The crawler's path

    private static let page = """
        <html><head><title>Account</title><link rel="stylesheet" href="/s.css"></head><body>
        <nav><a href="/docs/">Docs</a> <a href="/catalog/output">Output</a> <a href="/a">Login</a></nav>
        <p>Hello <a href="/logout">x</a>, or <a href="/session/destroy">Log out</a>.</p>
        <p><a href="/s"><span>Sign</span> <b>out</b></a> <a href="/x" title="Sign off"><img src="/i.png" alt=""></a></p>
        <map name="m"><area href="/y" alt="Logout"><area href="/w" alt="World"></map>
        <p><a href="/t" aria-label="log off">⏻</a><a href="/signup">Sign up</a> <a href="/design">Design outline</a></p>
        <p>Last: <a href="/z">log out
        """

    /// What the crawler's path gives for `html`: the located references, then the links (and the
    /// locator, for the text).
    private func links(
        _ html: String, readingText: Bool
    ) -> (links: [ExtractedLink], locator: HTMLReferenceLocator, references: [HTMLReference]) {
        let locator = HTMLReferenceLocator(charset: "utf-8")
        locator.feed(Array(html.utf8))
        let references = locator.finish(readingText: readingText)
        return (locator.links.links, locator, references)
    }

    @Test(arguments: [false, true])
    func marksExactlyTheLogoutLinks(readingText: Bool) {
        let found = links(Self.page, readingText: readingText).links
        #expect(
            found.map(\.reference) == [
                "/s.css", "/docs/", "/catalog/output", "/a", "/logout", "/session/destroy", "/s", "/x", "/i.png", "/y", "/w", "/t",
                "/signup", "/design", "/z",
            ])
        #expect(found.filter(\.endsSession).map(\.reference) == ["/logout", "/session/destroy", "/s", "/x", "/y", "/t", "/z"])
        #expect(
            found.filter(\.endsSession).allSatisfy {
                $0.kind == .navigation && ($0.source == "a[href]" || $0.source == "area[href]")
            })
    }

    @Test(arguments: [false, true])
    func referencesAndTextAreUnchanged(readingText: Bool) {
        // The same page with every "log out" word spelt otherwise: the references, their ranges,
        // values, kinds and sources, and the page's text, are those of the page without any.
        let neutral = Self.page
            .replacing("/logout", with: "/lagout").replacing("Log out", with: "Lag out")
            .replacing("Sign</span> <b>out", with: "Sigh</span> <b>out").replacing("Sign off", with: "Sigh off")
            .replacing("\"Logout\"", with: "\"Lagout\"").replacing("log off", with: "lag off")
            .replacing("log out", with: "lag out")
        #expect(neutral.utf8.count == Self.page.utf8.count)
        let marked = links(Self.page, readingText: readingText)
        let plain = links(neutral, readingText: readingText)
        #expect(plain.links.allSatisfy { !$0.endsSession })
        #expect(plain.references.allSatisfy { !$0.endsSession })
        #expect(marked.references.map(\.range) == plain.references.map(\.range))
        #expect(marked.references.map(\.source) == plain.references.map(\.source))
        #expect(marked.references.map(\.kind) == plain.references.map(\.kind))
        #expect(marked.references.map(\.role) == plain.references.map(\.role))
        #expect(marked.references.map(\.inAttribute) == plain.references.map(\.inAttribute))
        #expect(
            marked.references.map(\.value) == [
                "/s.css", "/docs/", "/catalog/output", "/a", "/logout", "/session/destroy", "/s", "/x", "/i.png", "/y", "/w", "/t",
                "/signup", "/design", "/z",
            ])
        #expect(plain.references.map(\.value) == marked.references.map { $0.value.replacing("/logout", with: "/lagout") })
        #expect(marked.links.map(\.reference) == marked.references.map(\.value))
        // Each range still holds its reference as written.
        let bytes = Array(Self.page.utf8)
        #expect(marked.references.allSatisfy { String(decoding: bytes[$0.range], as: UTF8.self) == $0.value })
        if readingText {
            #expect(marked.locator.text?.body.utf8.count == plain.locator.text?.body.utf8.count)
            #expect(marked.locator.text?.title == "Account")
            #expect(marked.locator.text?.body.contains("Sign out") == true)
            #expect(marked.locator.text?.body.contains("Last: log out") == true)
        } else {
            #expect(marked.locator.text == nil)
        }
    }

    @Test func textReadWithAndWithoutTheSearchIndexIsTheSame() {
        let page = Self.page + "<p>More <a href=/after>after</a> text <b>bold</b> and <i>more</i>.</p>"
        let withText = links(page, readingText: true)
        let without = links(page, readingText: false)
        #expect(withText.links == without.links)
        #expect(withText.references == without.references)
    }

    @Test func theFlagIsOnlyOnAnchorAndAreaHrefs() {
        let html = """
            <img src="/logout.png"><link rel="next" href="/logout"><script src="/sign-out.js"></script>
            <form action="/logout"><button>Log out</button></form><a style="background:url(/log-out.png)" href="/ok">ok</a>
            <iframe src="/logout"></iframe><meta http-equiv="refresh" content="0; url=/logout">
            """
        for readingText in [false, true] {
            let found = links(html, readingText: readingText).links
            #expect(found.map(\.reference).contains("/logout"))
            #expect(found.allSatisfy { !$0.endsSession })
        }
    }

    @Test func anchorTextEndsAtTheNextAnchorAndIsCapped() {
        // Unclosed anchors: the text of one ends where the next starts.
        let html =
            #"<p><a href="/one">Catalog<a href="/two">out</a> <a href="/three">"#
            + String(repeating: "word ", count: 60) + "log out</a>"
        for readingText in [false, true] {
            let found = links(html, readingText: readingText).links
            #expect(found.map(\.reference) == ["/one", "/two", "/three"])
            #expect(found.allSatisfy { !$0.endsSession })
        }
        // Nested inline elements and character references are read as libxml2 reads the text.
        let nested = #"<a href="/n"><em><span>Log</span>&nbsp;</em><strong>Out</strong></a><a href="/m">Sign&#45;off</a>"#
        #expect(links(nested, readingText: false).links.map(\.endsSession) == [true, true])
    }

    @Test func unplacedAndTranscodedLinksAreMarkedToo() {
        // A tag libxml2 reads out of another attribute's value is not found in the bytes: its
        // link is still followed, and marked.
        let unplaced = #"<img x&="y src=b.png"><a href=/q>x</a><a href="/out" title="Log out">bye</a>"#
        let found = links(unplaced, readingText: false).links
        #expect(found.filter(\.endsSession).map(\.reference) == ["/out"])
        // UTF-16: the links come from the document's UTF-8 transcoding.
        let html = #"<a href="/bye">Sign out</a><a href="/hi">Hello</a>"#
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in html.utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let locator = HTMLReferenceLocator(charset: "utf-16le")
        locator.feed(utf16)
        _ = locator.finish()
        #expect(locator.links.links.map(\.endsSession) == [true, false])
    }

    @Test func linkExtractorCarriesTheFlag() {
        let found = HTMLLinkExtractor.links(in: Array(Self.page.utf8)).links
        #expect(found.filter(\.endsSession).map(\.reference) == ["/logout", "/session/destroy", "/s", "/x", "/y", "/t", "/z"])
    }

    @Test func extractedLinkEqualityIncludesTheFlag() {
        let link = ExtractedLink(reference: "/logout", kind: .navigation, source: "a[href]")
        var marked = link
        marked.endsSession = true
        #expect(!link.endsSession)
        #expect(link != marked)
        #expect(Set([link, marked]).count == 2)
    }

    /// Found by the `html-links` fuzz target: an unknown entity reaches the handler as two text
    /// callbacks in a row (`&`, then its name) after one check of the callback. When the first
    /// fills the `a`'s text to its limit, the parser stops hearing text; a callback set to nil
    /// there made the second a call to address zero.
    @Test func anAnchorsTextFilledByAnEntityStopsTheTextSafely() {
        let text = String(repeating: "a", count: SessionEndReader.anchorTextLimit - 1)
        let html = Array("<p><a href=\"x.html\">\(text)&zz;more</a> <a href=\"y.html\">log out</a>".utf8)
        let links = HTMLLinkExtractor.links(in: html).links
        #expect(links.map(\.reference) == ["x.html", "y.html"])
        #expect(links.map(\.endsSession) == [false, true])
    }
}
