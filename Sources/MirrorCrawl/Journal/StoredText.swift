import MirrorCore
import MirrorHTML

/// A page's text for the search index in the journal's compact form: title, headings (one per
/// line), names and body, each a length-prefixed UTF-8 string (`PackedBytes`).
enum StoredText {
    static func encode(_ text: HTMLText) -> [UInt8] {
        var bytes = PackedBytes(capacity: text.title.utf8.count + text.body.utf8.count + 64)
        bytes.append(text.title)
        bytes.append(text.headings.joined(separator: "\n"))
        bytes.append(text.names)
        bytes.append(text.body)
        return bytes.bytes
    }

    /// The text of `encode`'s bytes; nil when they are not in that form.
    static func decode(_ encoded: [UInt8]) -> HTMLText? {
        var bytes = PackedBytes(reading: encoded)
        guard let title = bytes.readString(), let headings = bytes.readString(), let names = bytes.readString(),
            let body = bytes.readString(), bytes.isAtEnd
        else { return nil }
        return HTMLText(title: title, headings: headings.split(separator: "\n").map(String.init), names: names, body: body)
    }
}
