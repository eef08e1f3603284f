/// File name extensions for the media types a mirror meets, so that a browser opening the
/// folder from disk (where the extension is the only type information) shows each file right.
public enum MediaTypeExtensions {
    /// Fitting extensions per media type, the one to add first.
    static let table: [String: [String]] = [
        "text/html": ["html", "htm"],
        "application/xhtml+xml": ["xhtml", "html", "htm"],
        "text/css": ["css"],
        "text/javascript": ["js", "mjs"],
        "application/javascript": ["js", "mjs"],
        "application/x-javascript": ["js", "mjs"],
        "application/json": ["json", "map"],
        "application/ld+json": ["jsonld", "json"],
        "application/manifest+json": ["webmanifest", "json"],
        "application/xml": ["xml"],
        "text/xml": ["xml"],
        "application/rss+xml": ["rss", "xml"],
        "application/atom+xml": ["atom", "xml"],
        "text/plain": ["txt", "text"],
        "text/csv": ["csv"],
        "text/vtt": ["vtt"],
        "text/markdown": ["md", "markdown"],
        "image/png": ["png"],
        "image/jpeg": ["jpg", "jpeg", "jpe"],
        "image/gif": ["gif"],
        "image/svg+xml": ["svg"],
        "image/webp": ["webp"],
        "image/avif": ["avif"],
        "image/x-icon": ["ico"],
        "image/vnd.microsoft.icon": ["ico"],
        "image/bmp": ["bmp"],
        "image/tiff": ["tif", "tiff"],
        "font/woff": ["woff"],
        "font/woff2": ["woff2"],
        "font/ttf": ["ttf"],
        "font/otf": ["otf"],
        "application/font-woff": ["woff"],
        "application/vnd.ms-fontobject": ["eot"],
        "application/pdf": ["pdf"],
        "application/zip": ["zip"],
        "application/gzip": ["gz", "tgz"],
        "application/wasm": ["wasm"],
        "audio/mpeg": ["mp3"],
        "audio/ogg": ["ogg", "oga"],
        "audio/wav": ["wav"],
        "video/mp4": ["mp4", "m4v"],
        "video/webm": ["webm"],
    ]

    /// Every extension in the table. A name ending in one of these is taken as a file name,
    /// which is why folder names never end in one (see `PathMapper`).
    static let known: Set<String> = Set(table.values.joined())

    /// The fitting extensions for a `Content-Type` value (parameters and case ignored),
    /// or nil when the type is missing or not in the table.
    static func extensions(for contentType: String?) -> [String]? {
        guard let contentType else { return nil }
        let essence = Substring(contentType.utf8.prefix { $0 != UInt8(ascii: ";") })
        return table[essence.trimmingSpaces().lowercased()]
    }

    /// The media type a file name's extension stands for (the first type listing it), for files
    /// whose response had no type; nil for an unknown extension.
    public static func type(forFileName name: Substring) -> String? {
        guard let dot = name.lastIndex(of: "."), !name[name.index(after: dot)...].contains("/") else { return nil }
        return typeByExtension[name[name.index(after: dot)...].lowercased()]
    }

    private static let typeByExtension: [String: String] = {
        var types: [String: String] = [:]
        for type in table.keys.sorted() { for ext in table[type]! where types[ext] == nil { types[ext] = type } }
        // Where several types list an extension, the registered one.
        types["js"] = "text/javascript"
        types["mjs"] = "text/javascript"
        types["json"] = "application/json"
        types["xml"] = "application/xml"
        types["html"] = "text/html"
        types["htm"] = "text/html"
        types["ico"] = "image/x-icon"
        types["woff"] = "font/woff"
        return types
    }()
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var slice = self
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return slice
    }
}
