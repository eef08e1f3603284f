extension SiteManifest {
    /// The manifest as `.mirror/manifest.json` holds it — pretty-printed JSON, keys sorted —
    /// handed to `write` in pieces of about a megabyte (`ManifestJSONWriter`). Encoding the
    /// whole manifest at once held a tree of every value and the whole text, hundreds of
    /// megabytes at 100,000 URLs; this holds one piece.
    func writeJSON(_ write: ([UInt8]) throws -> Void) throws {
        var json = ManifestJSONWriter()
        var manifest = ManifestJSONWriter.ObjectWriter(indent: 0)
        if let index { manifest.key("index", &json); json.fileDigest(index, indent: 2) }
        manifest.key("redirects", &json)
        try json.dictionary(redirects, indent: 2, flushing: write) { $0.redirect($1, indent: $2) }
        manifest.key("resources", &json)
        try json.dictionary(resources, indent: 2, flushing: write) { $0.resource($1, indent: $2) }
        if let seeds {
            manifest.key("seeds", &json)
            json.array(seeds, indent: 2) { json, seed, _ in json.string(seed) }
        }
        manifest.key("version", &json); json.number(version)
        manifest.end(&json)
        try write(json.bytes)
    }
}
