import MirrorSite
import Testing

@Suite("Relative paths between files of the offline folder")
struct RelativePathTests {
    @Test(arguments: [
        ("h/a/b.html", "h/a/c.html", "c.html"),
        ("h/a/b.html", "h/x.css", "../x.css"),
        ("h/a/b.html", "h/a/b.html", "b.html"),
        ("h/index.html", "h/a/b/c.png", "a/b/c.png"),
        ("h/a/b/c.html", "h/x/y.html", "../../x/y.html"),
        ("h/a/b.html", "other_8080/index.html", "../../other_8080/index.html"),
        ("h/a/b.html", "h/a/b/index.html", "b/index.html"),
        ("h/a/index.html", "h/a", "../a"),
        ("h/a//b.html", "h/a/c.html", "../c.html"),
        // Two spellings of é are two folders on disk.
        ("h/\u{E9}/a.html", "h/e\u{301}/b.html", "../e\u{301}/b.html"),
    ])
    func relative(from: String, to: String, expected: String) {
        #expect(LocalPath.relativePath(from: from, to: to) == expected)
    }
}
