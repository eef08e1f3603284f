extension SiteManifest {
    /// The manifest as `.mirror/manifest.json` holds it — pretty-printed JSON, keys sorted —
    /// handed to `write` in pieces of about a megabyte (`ManifestJSONWriter`).
    func writeJSON(_ write: ([UInt8]) throws -> Void) throws {
        try Self.writeJSON(
            index: index, search: { search }, redirects: redirects, resources: ManifestJSONWriter.slices(of: resources),
            seeds: seeds, version: version, write)
    }

    /// A manifest of these values as `.mirror/manifest.json` holds it, its
    /// resources handed over in slices by `nextSlice` (`ManifestJSONWriter.object(slices:)`), so
    /// that a `SiteWriter` writes them from its ledger without holding them all. Encoding the
    /// whole manifest at once held a tree of every value and the whole text, hundreds of
    /// megabytes at 100,000 URLs; this holds one slice and about a megabyte of text. `search`
    /// is asked for once the resources are written: a crawl makes the index meanwhile.
    static func writeJSON(
        index: FileDigest?, search: () throws -> FileDigest?, redirects: [String: Redirect],
        resources nextSlice: () throws -> [(String, Resource)],
        seeds: [String]?, version: Int = currentVersion, _ write: ([UInt8]) throws -> Void
    ) throws {
        var json = ManifestJSONWriter()
        var manifest = ManifestJSONWriter.ObjectWriter(indent: 0)
        if let index {
            manifest.key("index", &json)
            json.fileDigest(index, indent: 2)
        }
        manifest.key("redirects", &json)
        try json.dictionary(redirects, indent: 2, flushing: write) { $0.redirect($1, indent: $2) }
        manifest.key("resources", &json)
        try json.object(indent: 2, flushing: write, slices: nextSlice) { $0.resource($1, indent: $2) }
        if let search = try search() {
            manifest.key("search", &json)
            json.fileDigest(search, indent: 2)
        }
        if let seeds {
            manifest.key("seeds", &json)
            json.array(seeds, indent: 2) { json, seed, _ in json.string(seed) }
        }
        manifest.key("version", &json)
        json.number(version)
        manifest.end(&json)
        try write(json.bytes)
    }
}
