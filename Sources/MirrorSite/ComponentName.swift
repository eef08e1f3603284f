/// One path component being built: its body, the suffix that ends it, and what to hash.
///
/// `finalText(maxBytes:)` applies the rules that need the whole name: Windows reserved
/// names, leading and trailing dots and spaces, and the hash (`~` + 8 hex digits, inserted
/// before the suffix) for names that are too long, not case-safe, or ambiguous.
struct ComponentName {
    /// The readable part: URL text rendered into units.
    var body: [NameUnit]
    /// What ends the name: `.ext`, `~.ext` or `~` for files, nothing for folders.
    var suffix: String
    /// The suffix used after a hash (the hash already tells an added extension apart).
    var hashedSuffix: String
    /// An injective description of the URL part this name stands for; the hash is taken of it.
    var key: String
    /// Set when the body alone does not tell the URL apart (see `NameRenderer`) or a long
    /// query was dropped from `shortBody`.
    var needsHash = false
    /// What to show before the hash instead of `body` (a long query left out).
    var shortBody: [NameUnit]?

    /// Windows refuses these as the part of a name before its first dot, in any case.
    static let reservedNames: Set<String> = {
        var names: Set<String> = ["con", "prn", "aux", "nul", "conin$", "conout$", "clock$"]
        for suffix in Array("0123456789").map(String.init) + ["¹", "²", "³"] {
            names.insert("com" + suffix)
            names.insert("lpt" + suffix)
        }
        return names
    }()

    func finalText(maxBytes: Int) -> String {
        var body = Self.fixingEdges(body, suffix: suffix)
        var shortBody = shortBody.map { Self.fixingEdges($0, suffix: suffix) }
        if Self.isReserved(body, suffix: suffix) {
            body[0] = body[0].escapedForm
            if shortBody?.isEmpty == false { shortBody![0] = shortBody![0].escapedForm }
        }
        let full = body.text + suffix
        if !needsHash, full.utf8.count <= maxBytes, Self.isCaseSafe(body), !suffix.contains(where: \.isUppercase) {
            return full
        }
        let tail = "~" + ShortHash.of(key) + hashedSuffix
        var visible = shortBody ?? body
        var budget = maxBytes - tail.utf8.count
        var kept = 0
        for unit in visible {
            budget -= unit.byteCount
            if budget < 0 { break }
            kept += 1
        }
        visible.removeSubrange(kept...)
        return visible.text + tail
    }

    /// Escapes a leading dot or space (hidden files, names Windows trims), and for folders a
    /// trailing dot or space and the dot of a file extension (see `PathMapper`).
    private static func fixingEdges(_ units: [NameUnit], suffix: String) -> [NameUnit] {
        var units = units
        let edgy: Set<UInt8> = [UInt8(ascii: "."), UInt8(ascii: " ")]
        if let first = units.first?.asciiLiteral, edgy.contains(first) { units[0] = units[0].escapedForm }
        guard suffix.isEmpty, let last = units.last?.asciiLiteral else { return units }
        if edgy.contains(last) {
            units[units.count - 1] = units[units.count - 1].escapedForm
        } else if let dot = units.lastIndex(of: .literal(".")), dot > 0 {
            let tail = units[(dot + 1)...].compactMap(\.asciiLiteral)
            if tail.count == units.count - dot - 1,
               MediaTypeExtensions.known.contains(String(decoding: tail, as: UTF8.self).lowercased()) {
                units[dot] = units[dot].escapedForm
            }
        }
        return units
    }

    /// Whether the part before the first dot is a reserved device name (a suffix starting
    /// with `~` ends that part when the body has no dot).
    private static func isReserved(_ units: [NameUnit], suffix: String) -> Bool {
        let base = units.prefix { $0 != .literal(".") }
        guard !base.isEmpty, base.count < units.count || !suffix.hasPrefix("~") else { return false }
        guard base.count <= 7 else { return false }
        var text = base.text
        while text.hasSuffix(" ") { text.removeLast() }
        return reservedNames.contains(text.lowercased())
    }

    /// True when no other name can equal this one on a case-insensitive or
    /// normalization-insensitive disk (APFS, NTFS): every character is its own case fold,
    /// its own NFKC form, not a mark or conjoining jamo (which compose with what precedes),
    /// and the only lower-case form of its upper case.
    static func isCaseSafe(_ units: [NameUnit]) -> Bool {
        units.allSatisfy { unit in
            guard case .literal(let scalar) = unit else { return true }
            if scalar.isASCII { return !("A"..."Z").contains(scalar) }
            let properties = scalar.properties
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: return false
            default: break
            }
            let jamo: [ClosedRange<UInt32>] = [0x1100...0x11FF, 0xA960...0xA97F, 0xD7B0...0xD7FF]
            if jamo.contains(where: { $0.contains(scalar.value) }) || properties.changesWhenNFKCCaseFolded {
                return false
            }
            return Array(properties.uppercaseMapping.lowercased().unicodeScalars) == [scalar]
        }
    }
}
