import Testing

@testable import MirrorCrawl

/// Material for MkDocs' instant navigation taken out of a copy's `__config`, and nothing else.
@Suite("Switches for file://")
struct FileSchemeSwitchesTests {
    static func page(_ config: String) -> [UInt8] {
        Array(
            "<html><body><p>\"navigation.instant\"</p><script id=\"__config\" type=\"application/json\">\(config)</script></body></html>"
                .utf8)
    }

    @Test(arguments: [
        // As mkdocs writes it: first, middle, last, alone, with its refinements.
        (
            "{\"base\": \".\", \"features\": [\"navigation.instant\", \"navigation.tabs\"], \"search\": \"w.js\"}",
            "{\"base\": \".\", \"features\": [\"navigation.tabs\"], \"search\": \"w.js\"}"
        ),
        (
            "{\"features\": [\"navigation.tabs\", \"navigation.instant\", \"search.suggest\"]}",
            "{\"features\": [\"navigation.tabs\", \"search.suggest\"]}"
        ),
        ("{\"features\": [\"navigation.tabs\", \"navigation.instant\"]}", "{\"features\": [\"navigation.tabs\"]}"),
        ("{\"features\": [\"navigation.instant\"]}", "{\"features\": []}"),
        (
            "{\"features\":[\"navigation.instant\",\"navigation.instant.prefetch\",\"navigation.instant.progress\",\"toc.follow\"]}",
            "{\"features\":[\"toc.follow\"]}"
        ),
    ])
    func instantNavigationIsTakenOut(config: String, expected: String) {
        #expect(
            String(decoding: FileSchemeSwitches.apply(to: Self.page(config)), as: UTF8.self)
                == String(decoding: Self.page(expected), as: UTF8.self))
    }

    @Test(arguments: [
        "{\"features\": [\"navigation.tabs\", \"navigation.instantly\"]}",  // another feature's name
        "{\"features\": []}",
        "{\"base\": \".\"}",
    ])
    func anyOtherConfigIsLeftAsItIs(config: String) {
        #expect(FileSchemeSwitches.apply(to: Self.page(config)) == Self.page(config))
    }

    @Test func pagesWithoutMaterialsConfigAreLeftAsTheyAre() {
        let page = Array("<script>const features = [\"navigation.instant\"];</script><script id=\"__config\">".utf8)
        #expect(FileSchemeSwitches.apply(to: page) == page)
    }
}
