import Testing

@testable import MirrorSearch

/// The parts of titles that name the site are left out of the indexed title, per folder.
@Suite("Site names in page titles")
struct SiteTitlesTests {
    @Test func titlesAreCutAtTheirSeparators() {
        #expect(
            SiteTitles.parts(of: "os — Miscellaneous interfaces — Python 3.11 documentation")
                == ["os", "Miscellaneous interfaces", "Python 3.11 documentation"])
        #expect(SiteTitles.parts(of: "Doxygen: Grouping") == ["Doxygen", "Grouping"])
        #expect(SiteTitles.parts(of: "C++ | a-b ::x") == ["C++", "a-b ::x"])
        #expect(SiteTitles.parts(of: "Plain") == ["Plain"])
    }

    @Test func aPartOfHalfTheTitlesOfAFolderIsLeftOut() {
        var titles = SiteTitles()
        for name in ["Grouping", "Markdown", "FAQ"] { titles.note("Doxygen: \(name)", path: "site/\(name).html") }
        titles.note("Doxygen", path: "site/index.html")
        for name in ["C1 Class Reference", "Class List"] { titles.note("Grouping: \(name)", path: "site/examples/group/\(name).html") }
        titles.note("Grouping: Files", path: "site/examples/group/files.html")
        #expect(titles.indexed("Doxygen: Grouping", path: "site/Grouping.html") == "Grouping")
        #expect(titles.indexed("Doxygen", path: "site/index.html") == "Doxygen", "a title of the site's name alone stays")
        #expect(titles.indexed("Grouping: C1 Class Reference", path: "site/examples/group/C1.html") == "C1 Class Reference")
        // Too few pages in a folder to tell: titles stay whole.
        titles.note("Doxygen: Other", path: "elsewhere/other.html")
        #expect(titles.indexed("Doxygen: Other", path: "elsewhere/other.html") == "Doxygen: Other")
    }

    /// Parts are counted by their hash; two spellings of one String (composed and decomposed
    /// `é`) are still the same part, as Strings are equal.
    @Test func canonicallyEquivalentPartsAreOnePart() {
        var titles = SiteTitles()
        titles.note("Caf\u{E9} — Menu", path: "site/menu.html")
        titles.note("Cafe\u{301} — Hours", path: "site/hours.html")
        titles.note("Caf\u{E9} — Map", path: "site/map.html")
        #expect(titles.indexed("Cafe\u{301} — Hours", path: "site/hours.html") == "Hours")
        #expect(titles.indexed("Caf\u{E9} — Map", path: "site/map.html") == "Map")
    }
}
