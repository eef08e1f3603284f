/// What a tool's page needs changed to run from `file://`, where the tool's own offline mode
/// expects it. Material for MkDocs with instant navigation never draws its sidebars, header
/// shadow or table of contents from `file://`: the navigation it turns off there completes the
/// stream its components wait for before the document is ready (its offline plugin's
/// documentation asks for instant navigation to be off). The copy of such a page has the
/// feature taken out of its `__config`; over http nothing else changes but that links load
/// whole pages.
enum FileSchemeSwitches {
    /// `html` with Material's instant navigation (and its `navigation.instant.*` refinements)
    /// taken out of the features of its `<script id="__config">`; `html` itself when it has none.
    static func apply(to html: [UInt8]) -> [UInt8] {
        guard let open = html.firstRange(of: Array("<script id=\"__config\" type=\"application/json\">".utf8)),
            let close = html[open.upperBound...].firstRange(of: Array("</script>".utf8))
        else { return html }
        let config = Array(html[open.upperBound..<close.lowerBound])
        guard let key = config.firstRange(of: Array("\"features\":".utf8)),
            let list = config[key.upperBound...].firstIndex(where: { $0 != UInt8(ascii: " ") }), config[list] == UInt8(ascii: "["),
            let end = config[list...].firstIndex(of: UInt8(ascii: "]"))
        else { return html }
        let space = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") }
        let entries = config[(list + 1)..<end].split(separator: UInt8(ascii: ","))
            .map { Array($0.drop(while: space).reversed().drop(while: space).reversed()) }
        let kept = entries.filter { entry in
            let name = String(decoding: entry, as: UTF8.self)
            return name != "\"navigation.instant\"" && !name.hasPrefix("\"navigation.instant.")
        }
        guard kept.count < entries.count else { return html }
        let rewritten = Array(config[...list]) + Array(kept.joined(separator: Array(", ".utf8))) + Array(config[end...])
        return Array(html[..<open.upperBound]) + rewritten + Array(html[close.lowerBound...])
    }
}
