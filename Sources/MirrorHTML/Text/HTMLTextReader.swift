/// Collects a page's `HTMLText` as libxml2 reports it, element by element. It runs inside the
/// crawl's parse of every page, so it works on bytes: an element's name is classified through a
/// number packed from its bytes, and only the attributes that can mark navigation are read.
final class HTMLTextReader: HTMLEventHandler {
    /// What an element is to the text.
    private struct Role: OptionSet {
        let rawValue: UInt8
        /// Its text is not the page's (scripts, styles, navigation…).
        static let leftOut = Role(rawValue: 1)
        /// Its edges do not separate words (`walk<b>ing</b>`).
        static let inline = Role(rawValue: 2)
        static let heading = Role(rawValue: 4)
        static let title = Role(rawValue: 8)
    }

    /// (Not `header`: an article's often holds its `h1`; a site's banner has its role.)
    private static let elementRoles: RoleTable = {
        var roles = RoleTable()
        for name in ["script", "style", "noscript", "template", "nav", "footer", "aside", "select", "svg", "head"] {
            roles.insert(.leftOut, for: key(Array(name.utf8)))
        }
        for name in [
            "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "i", "kbd", "mark", "q", "s", "samp",
            "small", "span", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr", "font",
        ] {
            roles.insert(.inline, for: key(Array(name.utf8)))
        }
        for name in ["h1", "h2", "h3", "h4", "h5", "h6"] { roles.insert(.heading, for: key(Array(name.utf8))) }
        roles.insert(.title, for: key(Array("title".utf8)))
        return roles
    }()

    /// The roles of element names by key: open addressing in a small power-of-two table, looked
    /// up for every element of every page, where a `Dictionary` hashes each key with SipHash.
    private struct RoleTable {
        private var keys = [UInt64](repeating: 0, count: 128)
        private var roles = [Role](repeating: [], count: 128)

        private static func slot(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 57) }

        mutating func insert(_ role: Role, for key: UInt64) {
            var slot = Self.slot(key)
            while keys[slot] != 0 && keys[slot] != key { slot = (slot + 1) & 127 }
            keys[slot] = key
            roles[slot].insert(role)
        }

        subscript(key: UInt64) -> Role {
            var slot = Self.slot(key)
            while keys[slot] != 0 {
                if keys[slot] == key { return roles[slot] }
                slot = (slot + 1) & 127
            }
            return []
        }
    }
    private static let leftOutRoles: Set<String> = ["navigation", "banner", "search", "contentinfo", "menu", "menubar"]
    /// Words of a class or id (split at spaces, `-` and `_`) that mark site navigation.
    private static let navigationWords: [[UInt8]] = [
        "nav", "navbar", "navigation", "sidebar", "sphinxsidebar", "menu",
        "breadcrumb", "breadcrumbs", "related", "footer",
    ].map { Array($0.utf8) }
    /// The first letters of `navigationWords` (b, f, m, n, r, s), a bit each by the letter's low five
    /// bits. A constant, not computed from the words: a computed static pays its lazy
    /// initialization's check at each read, here at every word of a class or id (`init` asserts
    /// that it matches the words).
    private static let navigationInitials: UInt32 = 1 << 2 | 1 << 6 | 1 << 13 | 1 << 14 | 1 << 18 | 1 << 19

    let wantsText = true
    let wantsTextThroughout = true
    /// `elementRoles`, held by each reader: reading the static at every element would pay its lazy
    /// initialization's check each time.
    private let roles = HTMLTextReader.elementRoles
    private let limit: Int
    // The state below is touched by every callback of the crawl's parse of every page, and only
    // by the one parse that owns this reader: the runtime's exclusivity checks are left out.
    /// Open elements: each name's key, and its role (`leftOut` when its attributes mark it so).
    @exclusivity(unchecked) private var open: [(key: UInt64, role: Role)] = []
    @exclusivity(unchecked) private var leftOutDepth = 0
    @exclusivity(unchecked) private var titleText: [UInt8] = []
    @exclusivity(unchecked) private var heading: [UInt8] = []
    @exclusivity(unchecked) private var headingTexts: [String] = []
    @exclusivity(unchecked) private var names: [UInt8] = []
    /// The body's text, its white space collapsed as it comes.
    private let body: CollapsedText
    @exclusivity(unchecked) private var inTitle = 0
    @exclusivity(unchecked) private var inHeading = 0

    /// Whether heading text goes to `headings` (else it stays in the body).
    private let separatingHeadings: Bool

    init(limit: Int, separatingHeadings: Bool = true) {
        self.limit = limit
        body = CollapsedText(limit: limit)
        self.separatingHeadings = separatingHeadings
        assert(Self.navigationInitials == Self.navigationWords.reduce(0) { $0 | 1 << UInt32($1[0] & 31) })
    }

    /// A number standing for an element name: its first 8 bytes, mixed with the rest's.
    private static func key(_ name: some Collection<UInt8>) -> UInt64 {
        var key: UInt64 = 0
        var shift: UInt64 = 0
        for byte in name {
            if shift < 64 {
                key |= UInt64(byte) << shift
                shift += 8
            } else {
                key = (key ^ UInt64(byte)) &* 0x100_0000_01b3
            }
        }
        return key
    }

    func startElement(_ name: UnsafeBufferPointer<UInt8>, attributes: UnsafeBufferPointer<HTMLAttributeBytes>) {
        let key = Self.key(name)
        var role = roles[key]
        if leftOutDepth == 0 && !role.contains(.leftOut) && attributes.contains(where: Self.marksNavigation) { role.insert(.leftOut) }
        open.append((key, role))
        if role.contains(.leftOut) { leftOutDepth += 1 }
        if leftOutDepth == 0 && names.count < limit / 16 { noteNames(attributes, anchor: name.spells("a")) }
        if role.contains(.title) { inTitle += 1 }
        if role.contains(.heading) && separatingHeadings { inHeading += 1 }
        separate(role)
    }

    func endElement(_ name: UnsafeBufferPointer<UInt8>) {
        let key = Self.key(name)
        if let last = open.last, last.key == key {
            close(last.role)
            open.removeLast()
            return
        }
        // libxml2 closes what the markup left open; an end tag with no open element is dropped.
        guard let index = open.lastIndex(where: { $0.key == key }) else { return }
        for element in open[index...].reversed() { close(element.role) }
        open.removeSubrange(index...)
    }

    /// Leaves an element of `role`.
    private func close(_ role: Role) {
        if role.contains(.leftOut) { leftOutDepth -= 1 }
        if role.contains(.title) { inTitle -= 1 }
        if role.contains(.heading) && separatingHeadings {
            inHeading -= 1
            if inHeading == 0 { finishHeading() }
        }
        separate(role)
    }

    func characters(_ text: UnsafeBufferPointer<UInt8>) {
        if inTitle > 0 {
            if titleText.count < 1024 { titleText.append(contentsOf: text) }
        } else if leftOutDepth == 0 {
            if inHeading > 0 {
                heading.append(contentsOf: text)
            } else {
                body.append(text)
            }
        }
    }

    /// The element's `id`, and its `name` when it is an `a`.
    private func noteNames(_ attributes: UnsafeBufferPointer<HTMLAttributeBytes>, anchor: Bool) {
        for attribute in attributes
        where !attribute.value.isEmpty && (attribute.name.spells("id") || anchor && attribute.name.spells("name")) {
            if !names.isEmpty { names.append(0x20) }
            names.append(contentsOf: attribute.value)
        }
    }

    /// A block element's edge separates words; an inline one's does not.
    private func separate(_ role: Role) {
        guard !role.contains(.inline) else { return }
        if inHeading > 0 { heading.append(0x20) } else if leftOutDepth == 0 { body.separate() }
    }

    private func finishHeading() {
        let text = Self.collapsed(heading)
        if !text.isEmpty && leftOutDepth == 0 { headingTexts.append(text) }
        heading.removeAll(keepingCapacity: true)
    }

    func text() -> HTMLText {
        if !heading.isEmpty { finishHeading() }
        return HTMLText(
            title: Self.collapsed(titleText), headings: headingTexts, names: Self.collapsed(names),
            body: body.string)
    }

    private static func marksNavigation(_ attribute: HTMLAttributeBytes) -> Bool {
        let name = attribute.name
        if name.spells("class") || name.spells("id") { return namesNavigation(attribute.value) }
        if name.spells("hidden") { return true }
        if name.spells("aria-hidden") { return attribute.value.string.lowercased() == "true" }
        if name.spells("role") { return leftOutRoles.contains(attribute.value.string.lowercased()) }
        return false
    }

    /// Whether a class or id value has a word of `navigationWords` (ASCII case ignored).
    private static func namesNavigation(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 0
        for end in 0...value.count {
            if end < value.count {
                switch value[end] {
                case 0x20, 0x09, 0x0A, 0x0C, 0x0D, 0x2D, 0x5F: break
                default: continue
                }
            }
            defer { start = end + 1 }
            let length = end - start
            // Every word of `navigationWords` starts with one of these letters.
            guard length >= 3 && length <= 13, navigationInitials & (1 << UInt32((value[start] | 0x20) & 31)) != 0 else { continue }
            for word in navigationWords where word.count == length {
                var same = true
                for offset in 0..<length where value[start + offset] | 0x20 != word[offset] {
                    same = false
                    break
                }
                if same { return true }
            }
        }
        return false
    }

    /// `bytes` with runs of HTML's white space made one space, trimmed.
    private static func collapsed(_ bytes: [UInt8]) -> String {
        let text = CollapsedText(capacity: bytes.count + 1)
        bytes.withUnsafeBufferPointer { text.append($0) }
        return text.string
    }
}
