import CHeap
import Foundation
import MirrorCore
public import MirrorHTML

/// Writes the offline folder while the crawl runs, and finishes it: opens the folder with what
/// its ledger says it holds, hands each response to `ResponseSaver`, and at the end has the
/// links rewritten (`FolderRewriter`) and writes `index.html` (`StartPage`) and the manifest.
///
/// It holds the names given (`SiteNames`) and the redirects, not the resources: those are in
/// the ledger, which the finishing reads back in slices (`SiteLedger`).
///
/// Crash safety: a file is in place before its record, records survive as a prefix, and
/// rewriting starts from the kept original (`.mirror/originals`). So after `kill -9` at any
/// moment the next crawl into the folder knows every file the ledger recorded and finishes
/// the folder exactly as an uninterrupted crawl would; files saved but not yet recorded are
/// simply saved again.
public final class SiteWriter: Sendable {
    public let directory: String
    private let names: SiteNames
    private let saver: ResponseSaver
    private let ledger: any SiteLedger
    private let files: AtomicFiles

    /// Opens `directory` (created if needed) with what the ledger, or else an existing
    /// manifest, says it holds. Temporary files of a killed run are removed.
    public init(directory: String, mapper: PathMapper = PathMapper(), ledger: any SiteLedger) throws {
        self.directory = directory
        self.ledger = ledger
        let temporary = directory + "/.mirror/tmp"
        files = AtomicFiles(temporaryFolder: temporary)
        try? FileManager.default.removeItem(atPath: temporary)
        try FileManager.default.createDirectory(atPath: directory + "/" + SiteManifest.originalsFolder, withIntermediateDirectories: true)
        do { try files.temporary.create() } catch { throw SiteError.io(error) }
        var saved = try ledger.redirects()
        // A folder from before the ledger, or an unpacked bundle: adopt its manifest.
        if saved.isEmpty, try ledger.resources(after: nil, limit: 1).isEmpty,
            let adopted = FileManager.default.contents(atPath: directory + "/" + SiteManifest.path)
                .flatMap({ try? JSONDecoder().decode(SiteManifest.self, from: $0) })
        {
            for (url, resource) in adopted.resources { try ledger.saved(url, resource) }
            for (url, redirect) in adopted.redirects { try ledger.redirected(url, redirect) }
            try ledger.flush()
            saved = adopted.redirects
        }
        names = try SiteNames(mapper: mapper, ledger: ledger)
        saver = ResponseSaver(directory: directory, mapper: mapper, names: names, ledger: ledger, files: files, redirects: saved)
    }

    /// The references of each HTML page saved from a URL as a resource (given a run of them at
    /// a time, in the byte order of their URLs), as `HTMLReferenceLocator` found them in its
    /// original bytes, when the caller kept them from its own parse (the crawler does, in its
    /// journal; nil for a page it did not): then finishing parses no page a second time.
    public typealias KnownReferences =
        @Sendable (_ pages: [(url: String, resource: SiteManifest.Resource)]) -> [[HTMLReference]?]

    /// Saves a response under its path (`PathMapper`'s name, made unique by `PathRegistry`);
    /// returns that path, relative to the folder.
    @discardableResult
    public func write(url: String, response: some SavedResponse) async throws -> String {
        try await saver.write(url: url, response: response)
    }

    /// Records that `from` redirected to `to` with `response` (links to `from` will point at `to`'s file).
    public func redirect(from: String, to: String, response: some SavedResponse) throws {
        try saver.redirect(from: from, to: to, response: response)
    }

    /// Rewrites the links of every HTML and CSS file not rewritten against the current targets
    /// (their originals are kept), then writes `index.html` (opening the first seed's file) and
    /// the manifest, from the ledger. A link to a saved URL becomes a relative path; a link to
    /// anything else becomes absolute. Kept originals no file needs are removed last: a kill
    /// before that leaves them for the next finish.
    /// - Parameter searchIndex: makes the folder's search index from the ledger's resources, and
    ///   returns its digest for the manifest.
    public func finish(
        seeds: [String], knownReferences: KnownReferences? = nil,
        searchIndex: (@Sendable (_ ledger: any SiteLedger) throws -> SiteManifest.FileDigest)? = nil
    ) throws {
        try rejoinSpellings()
        // The registry lives in this scope only, and is let go after it.
        let seedPath = try { () throws -> String? in
            let targets = LinkTargets(registry: try names.withRegistry { $0 }, redirects: saver.redirects)
            try FolderRewriter(directory: directory, ledger: ledger, files: files).rewriteLinks(targets, knownReferences: knownReferences)
            return seeds.first.flatMap(targets.path(for:))
        }()
        names.letGo()
        try SiteError.fromLedger { try ledger.flush() }
        var index: SiteManifest.FileDigest?
        if let seed = seeds.first, let path = seedPath {
            index = try StartPage(seed: seed, path: path).write(to: directory, with: files)
        }
        // The index is made once the registry (about 20 MB at 100,000 URLs) is gone and its pages are
        // back with the system: glibc keeps the free pages below an arena's top, which the
        // threads making the index may not allocate from.
        if searchIndex != nil { mirror_release_free_heap() }
        // The index is made on a thread of its own while the manifest's resources are written
        // (each reads the ledger on one core); the manifest names the index after them. It is
        // waited for on every path: it reads the ledger, which the caller closes after this.
        let indexing = searchIndex.map { make in BackgroundResult { [ledger] in try make(ledger) } }
        defer { _ = try? indexing?.value() }
        var used = UsedOriginals()
        let next = ledger.resourceSlices()
        try files.writeAtomically(to: directory + "/" + SiteManifest.path) { write in
            try SiteManifest.writeJSON(
                index: index, search: { try indexing?.value() }, redirects: saver.redirects,
                resources: {
                    let slice = try SiteError.fromLedger { try next() }
                    for (_, resource) in slice where resource.file != nil { used.note(resource.digest) }
                    return slice.map { ($0.url, $0.resource) }
                }, seeds: seeds, write)
        }
        used.sort()
        removeUnusedOriginals(used)
    }

    /// Puts spellings of one file that a re-crawl had parted back in it (`PathRegistry.rejoin`).
    /// Each file left is deleted before its URLs are recorded at the file they join: a kill in
    /// between leaves records naming a deleted file, which the next crawl's finish moves alike.
    private func rejoinSpellings() throws {
        for move in try names.withRegistry({ $0.rejoin() }) {
            try? PosixFile.remove(directory + "/" + move.left)
            guard let sharer = try SiteError.fromLedger({ try ledger.resource(of: move.sharer) }) else { continue }
            for url in move.urls {
                guard var moved = try SiteError.fromLedger({ try ledger.resource(of: url) }) else { continue }
                moved.share(sharer)
                try SiteError.fromLedger { try ledger.saved(url, moved) }
            }
        }
    }

    /// Removes kept originals that no file needs any more (their page changed since).
    private func removeUnusedOriginals(_ used: UsedOriginals) {
        let folder = directory + "/" + SiteManifest.originalsFolder
        FolderListing.forEachName(in: folder) { name in
            if !used.contains(name) { try? PosixFile.remove(folder + "/" + name) }
        }
    }
}
