/// Judges whether the link of an `a` or `area` `href` ends a session: when its URL, `title`,
/// `aria-label`, `alt` (an `area`'s) or text (an `a`'s, as libxml2 reports it, up to
/// `anchorTextLimit` bytes) reads as "log out" (`LogoutWords`). `HTMLReferenceLocator` hands it
/// each such tag and the text that follows, and marks the links it returns.
struct SessionEndReader {
    /// Where the link of an `a` or `area` is, while the document is parsed.
    enum Link {
        /// `references[index]` of the locator.
        case reference(Int)
        /// `unplaced.links[index]` of the locator.
        case unplaced(Int)
    }

    /// The link of the `a` whose text is being read, if any; the text so far, its white space
    /// collapsed (storage reused from one `a` to the next).
    private var anchor: Link?
    private var anchorText: [UInt8] = []
    /// How much of an `a`'s text is read: "log out" links say so in a few words.
    static let anchorTextLimit = 200

    /// Whether the text of an `a` is being read.
    var isReading: Bool { anchor != nil }

    /// `link`, the `href` of the `a` or `area` just reported with `attributes`, when these read
    /// as "log out"; else nil, and for an `a` its text is read from now on.
    mutating func start(_ link: Link, isAnchor: Bool, attributes: UnsafeBufferPointer<HTMLAttributeBytes>) -> Link? {
        for attribute in attributes where !attribute.value.isEmpty {
            let name = attribute.name
            guard name.spells("href") || name.spells("title") || name.spells("aria-label") || !isAnchor && name.spells("alt")
            else { continue }
            if LogoutWords.matches(attribute.value) { return link }
        }
        guard isAnchor else { return nil }
        anchor = link
        if anchorText.capacity < Self.anchorTextLimit { anchorText.reserveCapacity(Self.anchorTextLimit) }
        return nil
    }

    /// Adds text of the open `a`, its white space collapsed; once `anchorTextLimit` bytes are
    /// read, the `a` is judged (`end`).
    mutating func read(_ text: UnsafeBufferPointer<UInt8>) -> Link? {
        for byte in text {
            if ExtractedLink.isASCIIWhitespace(byte) {
                if let last = anchorText.last, last != 0x20 { anchorText.append(0x20) }
            } else {
                anchorText.append(byte)
            }
            if anchorText.count >= Self.anchorTextLimit { return end() }
        }
        return nil
    }

    /// Judges the text of the open `a`, and stops reading it: its link when the text reads as
    /// "log out".
    mutating func end() -> Link? {
        guard let link = anchor else { return nil }
        anchor = nil
        let endsSession = anchorText.withUnsafeBufferPointer { LogoutWords.matches($0) }
        anchorText.removeAll(keepingCapacity: true)
        return endsSession ? link : nil
    }
}
