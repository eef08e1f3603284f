import MirrorSite
import Testing

/// Golden cases of `PathRegistry`: who keeps the preferred name, who shares it, who gets a
/// suffix (`~` + 4 hex digits of SHA-256 of the URL, or of `folder <preferred path>`).
@Suite("Unique file names, golden cases")
struct PathRegistryTests {
    /// Assigns `url`'s preferred path with a body named `body`; returns the path given.
    static func assign(
        _ registry: inout PathRegistry, _ url: String, _ type: String? = "text/html", body: String,
        mapper: PathMapper = PathMapper()
    ) -> String {
        registry.assign(url: url, preferred: mapper.path(for: url, contentType: type)!, sha256: body).string
    }

    @Test func spellingsOfOneFileShareItWhenTheirBodiesAgree() {
        var registry = PathRegistry()
        #expect(Self.assign(&registry, "http://h/", body: "home") == "h/index.html")
        #expect(Self.assign(&registry, "http://h/index.html", body: "home") == "h/index.html")
        #expect(Self.assign(&registry, "https://h/index", body: "home") == "h/index.html")
        #expect(Self.assign(&registry, "http://h/dir/", body: "dir") == "h/dir/index.html")
        #expect(Self.assign(&registry, "http://h/dir/index.html", body: "dir") == "h/dir/index.html")
        #expect(Self.assign(&registry, "http://h/photo", "image/jpeg", body: "jpeg") == "h/photo.jpg")
        #expect(Self.assign(&registry, "http://h/photo.jpg", "image/jpeg", body: "jpeg") == "h/photo.jpg")
        // Equal once folded is not the same file, and an unknown body is never shared.
        #expect(Self.assign(&registry, "http://h/Index.html", body: "home") == "h/Index~224a.html")
        #expect(Self.assign(&registry, "http://h/x.html", body: "") == "h/x.html")
        #expect(Self.assign(&registry, "http://h/x", body: "") == "h/x~86ca.html")
    }

    @Test func differentBodiesGiveTheLaterURLASuffix() {
        var registry = PathRegistry()
        #expect(Self.assign(&registry, "http://h/", body: "home") == "h/index.html")
        #expect(Self.assign(&registry, "http://h/index.html", body: "other") == "h/index~93d9.html")
        #expect(Self.assign(&registry, "http://h/docs.html", body: "a") == "h/docs.html")
        #expect(Self.assign(&registry, "http://h/docs", body: "b") == "h/docs~66e9.html")
        #expect(Self.assign(&registry, "http://h/docs/", body: "c") == "h/docs/index.html")
        // A third spelling with the second one's body shares the second one's file.
        #expect(Self.assign(&registry, "http://h/index", body: "other") == "h/index~93d9.html")
    }

    @Test func onlyNamesEqualOnceFoldedGetASuffix() {
        var registry = PathRegistry()
        #expect(Self.assign(&registry, "http://h/genindex-A.html", body: "1") == "h/genindex-A.html")
        #expect(Self.assign(&registry, "http://h/genindex-B.html", body: "2") == "h/genindex-B.html")
        #expect(Self.assign(&registry, "http://h/A.html", body: "3") == "h/A.html")
        #expect(Self.assign(&registry, "http://h/a.html", body: "4") == "h/a~8310.html")
        #expect(Self.assign(&registry, "http://h/a.HTML", body: "5") == "h/a~9480.HTML")
        #expect(Self.assign(&registry, "http://h/sub/a.html", body: "6") == "h/sub/a.html")
        // Unicode: precomposed and decomposed ä, ß and ss, the Kelvin sign and k.
        #expect(Self.assign(&registry, "http://h/%C3%A4.html", body: "7") == "h/ä.html")
        #expect(Self.assign(&registry, "http://h/a%CC%88.html", body: "8") == "h/a\u{308}~667c.html")
        #expect(Self.assign(&registry, "http://h/stra%C3%9Fe.html", body: "9") == "h/straße.html")
        #expect(Self.assign(&registry, "http://h/strasse.html", body: "10") == "h/strasse~e5c3.html")
        #expect(Self.assign(&registry, "http://h/%E2%84%AA.html", body: "11") == "h/\u{212A}.html")
        #expect(Self.assign(&registry, "http://h/k.html", body: "12") == "h/k~8e4b.html")
        // Folders: the later one is renamed once, and everything in it follows.
        #expect(Self.assign(&registry, "http://h/Docs/x.html", body: "13") == "h/Docs/x.html")
        #expect(Self.assign(&registry, "http://h/docs/y.html", body: "14") == "h/docs~6095/y.html")
        #expect(Self.assign(&registry, "http://h/docs/z.html", body: "15") == "h/docs~6095/z.html")
        #expect(Self.assign(&registry, "http://h/Docs/z.html", body: "16") == "h/Docs/z.html")
    }

    @Test func filesAndFoldersNeverShareAName() {
        var fileFirst = PathRegistry()
        #expect(Self.assign(&fileFirst, "http://h/a", nil, body: "1") == "h/a")
        #expect(Self.assign(&fileFirst, "http://h/a/b.html", body: "2") == "h/a~2329/b.html")
        #expect(Self.assign(&fileFirst, "http://h/a/c/", body: "3") == "h/a~2329/c/index.html")
        var folderFirst = PathRegistry()
        #expect(Self.assign(&folderFirst, "http://h/a/b.html", body: "2") == "h/a/b.html")
        #expect(Self.assign(&folderFirst, "http://h/a", nil, body: "1") == "h/a~c43f")
        #expect(Self.assign(&folderFirst, "http://h/A", nil, body: "4") == "h/A~d946")
    }

    @Test func aURLKeepsItsPathAndNewcomersGetTheSuffix() {
        var registry = PathRegistry()
        #expect(Self.assign(&registry, "http://h/A.html", body: "1") == "h/A.html")
        #expect(Self.assign(&registry, "http://h/a.html", body: "2") == "h/a~8310.html")
        // The same URLs again, in another order and with new bodies: nothing moves.
        #expect(Self.assign(&registry, "http://h/a.html", body: "2b") == "h/a~8310.html")
        #expect(Self.assign(&registry, "http://h/A.html", body: "1b") == "h/A.html")
        // Rebuilt from what was saved, as a resumed or incremental crawl does.
        var rebuilt = PathRegistry(assignments: registry.assignments.reversed())
        #expect(rebuilt.assignments == registry.assignments)
        #expect(Self.assign(&rebuilt, "http://h/a.html", body: "2b") == "h/a~8310.html")
        #expect(Self.assign(&rebuilt, "http://h/a.HTML", body: "3") == "h/a~9480.HTML")
        #expect(Self.assign(&rebuilt, "http://h/A.html", body: "1b") == "h/A.html")
    }

    @Test func aURLMovesOnlyWhenItsFileCannotStay() {
        var registry = PathRegistry()
        #expect(Self.assign(&registry, "http://h/", body: "home") == "h/index.html")
        #expect(Self.assign(&registry, "http://h/index.html", body: "home") == "h/index.html")
        // One of two sharers changes: it leaves, the other keeps the file.
        #expect(Self.assign(&registry, "http://h/index.html", body: "new") == "h/index~93d9.html")
        #expect(Self.assign(&registry, "http://h/", body: "new") == "h/index.html")
        // Both have the new body now: the spellings share one file again, as in a new folder.
        let rejoined = registry.rejoin()
        #expect(rejoined.map(\.urls) == [["http://h/index.html"]] && rejoined.map(\.left) == ["h/index~93d9.html"])
        #expect(rejoined.map(\.joined) == ["h/index.html"] && rejoined.map(\.sharer) == ["http://h/"])
        #expect(Self.assign(&registry, "http://h/index.html", body: "new") == "h/index.html")
        #expect(registry.urls(at: LocalPath(components: ["h", "index.html"])).count == 2)
        #expect(registry.rejoin().isEmpty)
        // Different bodies stay apart.
        #expect(Self.assign(&registry, "http://h/index.html", body: "newer") == "h/index~93d9.html")
        #expect(registry.rejoin().isEmpty)
        // A new content type is a new preferred path; the old name is free for others.
        #expect(Self.assign(&registry, "http://h/x", body: "page") == "h/x.html")
        #expect(Self.assign(&registry, "http://h/x", "text/css", body: "style") == "h/x.css")
        #expect(Self.assign(&registry, "http://h/x.html", body: "other") == "h/x.html")
    }

    @Test func aSuffixedNameStaysWithinTheLimitAndKeepsItsExtension() {
        let mapper = PathMapper(maxSegmentBytes: 40)
        var registry = PathRegistry(maxSegmentBytes: 40)
        let stem = String(repeating: "a", count: 29) + "%3Cbbb"
        let upper = Self.assign(&registry, "http://h/" + stem.uppercased() + ".html", body: "1", mapper: mapper)
        #expect(upper == "h/" + stem.uppercased() + ".html")
        let lower = Self.assign(&registry, "http://h/" + stem + ".html", body: "2", mapper: mapper)
        let name = String(lower.dropFirst(2))
        #expect(name.utf8.count <= 40)
        #expect(name.hasPrefix(String(repeating: "a", count: 29) + "~"), "half an escape left: \(name)")
        #expect(name.hasSuffix(".html"))
    }

    @Test func unsafeOrConflictingSavedAssignmentsAreLeftOut() {
        let saved = [
            PathRegistry.Assignment(url: "http://h/a.html", preferred: "h/a.html", path: "h/a.html", sha256: "1"),
            PathRegistry.Assignment(url: "http://h/A.html", preferred: "h/A.html", path: "h/A.html", sha256: "2"),
            PathRegistry.Assignment(url: "http://h/up", preferred: "h/up", path: "h/../../up", sha256: "3"),
            PathRegistry.Assignment(url: "http://h/b", preferred: "h/b", path: "h/x/b", sha256: "4"),
            PathRegistry.Assignment(url: "http://h/a", preferred: "h/a.html", path: "h/a.html", sha256: "5"),
        ]
        var registry = PathRegistry(assignments: saved)
        #expect(registry.assignments.map(\.url) == ["http://h/a.html"])
        #expect(Self.assign(&registry, "http://h/A.html", body: "2") == "h/A~ace6.html")
        #expect(Self.assign(&registry, "http://h/up", nil, body: "3") == "h/up")
    }

    /// The scalars of a path, as a disk that compares bytes sees it (`String`s compare
    /// canonically: `ä` and `a` + U+0308 are equal).
    static func scalars(_ path: String?) -> [Unicode.Scalar]? { path.map { Array($0.unicodeScalars) } }

    /// Found by the `url-naming` fuzz target: two URLs spelling one file `ä` and `a` + U+0308,
    /// with one body, share it; the second got its own spelling, a file never written on a disk
    /// that compares bytes. It gets the first one's.
    @Test func canonicallyEquivalentSpellingsShareTheHoldersBytes() {
        var registry = PathRegistry()
        #expect(Self.scalars(Self.assign(&registry, "http://h/%C3%A4.html", body: "same")) == Self.scalars("h/\u{E4}.html"))
        #expect(Self.scalars(Self.assign(&registry, "http://h/a%CC%88.html", body: "same")) == Self.scalars("h/\u{E4}.html"))
    }

    /// Found by the `url-naming` fuzz target: a file in a folder another URL spelled otherwise
    /// (`ä`, `a` + U+0308) is at its preferred path canonically but not in bytes; `rejoin` found
    /// it there, moved it onto itself and trapped. A rejoin joins the sharer's very spelling.
    @Test func rejoinJoinsTheSharersSpellingAndNeverItself() {
        var registry = PathRegistry()
        _ = Self.assign(&registry, "http://h/%C3%A4/a.html", body: "one")
        _ = Self.assign(&registry, "http://h/a%CC%88/b.html", body: "two")
        #expect(registry.rejoin().isEmpty)
        #expect(Self.scalars(registry.path(of: "http://h/a%CC%88/b.html")) == Self.scalars("h/\u{E4}/b.html"))

        _ = Self.assign(&registry, "http://h/%C3%A4/x.html", body: "one")
        #expect(Self.assign(&registry, "http://h/a%CC%88/x.html", body: "two") != "h/\u{E4}/x.html")
        _ = Self.assign(&registry, "http://h/a%CC%88/x.html", body: "one")
        let moves = registry.rejoin()
        #expect(moves.map { Self.scalars($0.joined) } == [Self.scalars("h/\u{E4}/x.html")])
        #expect(Self.scalars(registry.path(of: "http://h/a%CC%88/x.html")) == Self.scalars("h/\u{E4}/x.html"))
    }
}
