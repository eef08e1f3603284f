/// The URLs of a `srcset` attribute, following the HTML spec's "parse a srcset attribute".
///
/// A candidate's URL is everything up to the next whitespace, so a comma inside it belongs to
/// the URL (`img/a,1.png 1x` → `img/a,1.png`); only trailing commas end a candidate early.
/// Descriptors are skipped, not validated: a candidate a browser would drop for a malformed
/// descriptor still names a file worth keeping.
enum SrcsetParser {
    /// Where each candidate's URL is in `bytes`, in order.
    static func urlRanges(in bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var urls: [Range<Int>] = []
        var position = 0
        let end = bytes.count
        while true {
            // Splitting loop: skip whitespace and commas between candidates.
            while position < end, isWhitespace(bytes[position]) || bytes[position] == UInt8(ascii: ",") {
                position += 1
            }
            guard position < end else { return urls }
            let start = position
            while position < end, !isWhitespace(bytes[position]) { position += 1 }
            var urlEnd = position
            if bytes[urlEnd - 1] == UInt8(ascii: ",") {
                // "url," ends the candidate; it has no descriptors.
                while urlEnd > start, bytes[urlEnd - 1] == UInt8(ascii: ",") { urlEnd -= 1 }
            } else {
                // Descriptors run to the next comma outside parentheses.
                var inParentheses = false
                while position < end {
                    let byte = bytes[position]
                    position += 1
                    if byte == UInt8(ascii: "(") {
                        inParentheses = true
                    } else if byte == UInt8(ascii: ")") {
                        inParentheses = false
                    } else if byte == UInt8(ascii: ","), !inParentheses {
                        break
                    }
                }
            }
            if urlEnd > start { urls.append(start..<urlEnd) }
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { ExtractedLink.isASCIIWhitespace(byte) }
}
