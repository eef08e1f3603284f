import Testing

@testable import MirrorSite

/// A media type's essence ends at its first `;` byte: cut on `Character`s, a Greek question mark
/// (U+037E, canonically `;`) ended it too, and `text/html\u{37E}x` was saved and indexed as HTML.
@Suite("Media type essences")
struct MediaTypeEssenceTests {
    @Test func theEssenceEndsAtTheFirstSemicolonByte() {
        #expect(MediaTypeExtensions.extensions(for: "Text/HTML ; charset=utf-8") == MediaTypeExtensions.extensions(for: "text/html"))
        #expect(MediaTypeExtensions.extensions(for: "text/html") != nil)
        #expect(MediaTypeExtensions.extensions(for: "text/html\u{37E}x") == nil)
    }
}
