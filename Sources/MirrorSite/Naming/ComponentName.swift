/// One path component being built: its body, the extension that ends it, and what to hash.
///
/// `finalText(maxBytes:)` applies the rules that need the whole name: Windows reserved
/// names, leading and trailing dots and spaces, and the hash (`~` + 8 hex digits, inserted
/// before the suffix) for names that are too long or ambiguous. Names equal on a case- or
/// normalization-insensitive disk are not this type's business: `PathRegistry` tells them apart.
struct ComponentName {
    /// The readable part: URL text rendered into units.
    var body: [NameUnit]
    /// What ends a file name and is kept when a long one is cut: `.ext`, or nothing.
    var suffix: String
    /// Folders escape a trailing dot of a known extension (see `PathMapper`); files do not.
    var isFolder: Bool
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
        var body = fixingEdges(body)
        var shortBody = shortBody.map(fixingEdges)
        if Self.isReserved(body) {
            body[0] = body[0].escapedForm
            if shortBody?.isEmpty == false { shortBody![0] = shortBody![0].escapedForm }
        }
        let full = body.text + suffix
        if !needsHash, full.utf8.count <= maxBytes {
            return full
        }
        let tail = "~" + ShortHash.of(key) + suffix
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

    /// Escapes a leading dot or space (hidden files, names Windows trims), a trailing one when
    /// no extension follows, and for folders the dot of a file extension (see `PathMapper`).
    private func fixingEdges(_ units: [NameUnit]) -> [NameUnit] {
        var units = units
        func isEdgy(_ byte: UInt8) -> Bool { byte == UInt8(ascii: ".") || byte == UInt8(ascii: " ") }
        if let first = units.first?.asciiLiteral, isEdgy(first) { units[0] = units[0].escapedForm }
        guard suffix.isEmpty, let last = units.last?.asciiLiteral else { return units }
        if isEdgy(last) {
            units[units.count - 1] = units[units.count - 1].escapedForm
        } else if isFolder, let dot = units.lastIndex(of: .literal(".")), dot > 0 {
            let tail = units[(dot + 1)...].compactMap(\.asciiLiteral)
            if tail.count == units.count - dot - 1,
                MediaTypeExtensions.known.contains(String(decoding: tail, as: UTF8.self).lowercased())
            {
                units[dot] = units[dot].escapedForm
            }
        }
        return units
    }

    /// Whether the part before the first dot is a reserved device name.
    private static func isReserved(_ units: [NameUnit]) -> Bool {
        let base = units.prefix { $0 != .literal(".") }
        guard !base.isEmpty, base.count <= 7 else { return false }
        // Every reserved name starts with one of these letters: most names are told apart here.
        if let first = base.first?.asciiLiteral, !"aAcClLnNpP".utf8.contains(first) { return false }
        var text = base.text
        while text.hasSuffix(" ") { text.removeLast() }
        return reservedNames.contains(text.lowercased())
    }
}
