import Crypto
import Dispatch
import MirrorCore
import MirrorHTML

/// Rewrites the links of the folder's HTML and CSS files against where they lead now
/// (`LinkTargets`), each file from its original body (the file in place while it holds it, else
/// the one kept in `.mirror/originals`), so an interrupted rewrite is simply redone.
struct FolderRewriter: Sendable {
    let directory: String
    let ledger: any SiteLedger
    let files: AtomicFiles

    /// Rewrites, on every core, each HTML and CSS file not rewritten against `targets` (each
    /// file is independent; a file several URLs share is rewritten once, as the page of the
    /// first of them), and records what was rewritten. The ledger's resources are read in slices:
    /// only one slice is held at a time.
    func rewriteLinks(_ targets: LinkTargets, knownReferences: SiteWriter.KnownReferences?) throws {
        let digest = targets.digest
        try SiteError.fromLedger {
            try ledger.forEachResourceSlice { slice in
                var groups: [[(url: String, resource: SiteManifest.Resource)]] = []
                for (url, resource) in slice where resource.kind != nil {
                    guard let group = try group(of: url, resource, registry: targets.registry),
                        group.contains(where: { $0.resource.rewrittenFor != digest })
                    else { continue }
                    groups.append(group)
                }
                try rewriteFiles(groups, targets: targets, digest: digest, knownReferences: knownReferences)
            }
        }
    }

    /// The URLs whose file is `url`'s, with their resources, `url` first; nil when `url` is not
    /// the first of them in the order of URL bytes (the file is rewritten as that one's page).
    private func group(
        of url: String, _ resource: SiteManifest.Resource, registry: PathRegistry
    ) throws -> [(url: String, resource: SiteManifest.Resource)]? {
        let sharers = registry.urls(at: resource.path)
        guard sharers.count > 1, sharers.contains(url) else { return [(url, resource)] }
        var group = [(url: url, resource: resource)]
        for sharer in sharers where sharer != url {
            guard let shared = try ledger.resource(of: sharer), shared.path == resource.path, shared.kind != nil else { continue }
            if sharer.bytesPrecede(url) { return nil }
            group.append((sharer, shared))
        }
        return group
    }

    /// Rewrites the file of each group, and records its URLs' resources as rewritten once it is
    /// in place.
    private func rewriteFiles(
        _ groups: [[(url: String, resource: SiteManifest.Resource)]], targets: LinkTargets, digest: String,
        knownReferences: SiteWriter.KnownReferences?
    ) throws {
        // A run of files at a time, whose known references are read at once.
        let failures = groups.flatMapRunsOnEveryCore(of: 8) { files -> [SiteError] in
            let known = knownReferences?(files.map { $0[0] })
            return zip(files, known ?? Array(repeating: nil, count: files.count)).compactMap { group, references in
                let (first, resource) = group[0]
                do {
                    let file = try rewrite(url: first, resource: resource, targets: targets, references: references)
                    for (url, saved) in group {
                        var updated = saved
                        updated.setRewritten(for: digest, file: file)
                        try SiteError.fromLedger { try ledger.saved(url, updated) }
                    }
                    return nil
                } catch let error as SiteError {
                    return error
                } catch {
                    return .io(path: resource.path, message: "\(error)")
                }
            }
        }
        if let failure = failures.first { throw failure }
    }

    /// Rewrites one file (an HTML page with its known `references`, or nil to locate them);
    /// returns the digest of the file it should be, or nil when that is the original body. A
    /// file that already is what it should be stays as it is. The original body is kept as
    /// `.mirror/originals/<sha256>`: the file as saved (a hard link to the cache's body, so no
    /// copy), moved there as the rewritten file takes its place. The source is the original
    /// body: the file in place while it still holds it, else the kept original, so an
    /// interrupted rewrite is simply redone.
    private func rewrite(
        url: String, resource: SiteManifest.Resource, targets: LinkTargets, references: [HTMLReference]?
    ) throws -> SiteManifest.FileDigest? {
        let path = directory + "/" + resource.path
        let originalPath = directory + "/" + SiteManifest.originalPath(sha256: resource.sha256)
        guard let kind = resource.kind else { return nil }
        let inPlace: [UInt8]?
        let original: [UInt8]?
        do throws(FileSystemError) {
            inPlace = try FileReading.contents(of: path)
            // Checking the file in place first spares a first rewrite a look in `.mirror/originals`:
            // one large folder, whose lock the other cores' renames into it hold.
            original = if let inPlace, Self.holdsOriginal(inPlace, of: resource) { nil } else { try FileReading.contents(of: originalPath) }
        } catch {
            throw SiteError.io(error)
        }
        let hasOriginal = original != nil
        guard let bytes = original ?? inPlace else { return nil }
        let rewriter = LinkRewriter()
        let rewritten: [UInt8]
        switch kind {
        case .html:
            let charset = CharsetSniffer.charset(contentType: resource.contentType, prefix: Array(bytes.prefix(1024)))
            rewritten = rewriter.rewriteHTML(
                bytes, charset: charset, pageURL: url, pagePath: resource.path, references: references,
                target: targets.path(for:))
        case .css:
            rewritten = rewriter.rewriteCSS(bytes, fileURL: url, filePath: resource.path, target: targets.path(for:))
        }
        let file =
            rewritten == bytes ? nil : SiteManifest.FileDigest(sha256: Hex.string(SHA256.hash(data: rewritten)), size: rewritten.count)
        // The file in place may hold these bytes already (the folder's link targets changed, not
        // this file's): it stays, rather than becoming a new file with a new modification time.
        if inPlace == rewritten { return file }
        if !hasOriginal {
            if try files.replace(rewritten, at: path, keepingOldAt: originalPath) { return file }
            try files.writeAtomically(bytes, to: originalPath)
        }
        try files.replace(rewritten, at: path)
        return file
    }

    /// Whether `bytes` are the resource's original body: its size and SHA-256.
    private static func holdsOriginal(_ bytes: [UInt8], of resource: SiteManifest.Resource) -> Bool {
        bytes.count == resource.size && Hex.string(SHA256.hash(data: bytes)) == resource.sha256
    }
}
