import Foundation
import MirrorSite

/// Checks a bundle's entries against its manifest as they stream by: every file must be
/// listed with the same size and SHA-256, and every listed file must be there. Entries that
/// come before the manifest (in archives made by other tools) are checked when it arrives.
struct ManifestCheck {
    static let manifestPath = SiteManifest.path
    /// A manifest is metadata: anything larger is not one of ours.
    static let manifestLimit = 256 << 20

    private(set) var manifest: SiteManifest?
    private var expected: [String: SiteManifest.FileDigest] = [:]
    private var found: Set<String> = []
    private var early: [(String, SiteManifest.FileDigest)] = []

    /// Reads the manifest's bytes.
    mutating func read(manifest bytes: [UInt8]) throws {
        let manifest = try Self.decode(bytes)
        self.manifest = manifest
        expected = manifest.files
        for (path, digest) in early { try check(path, digest) }
        early = []
    }

    static func decode(_ bytes: [UInt8]) throws -> SiteManifest {
        do {
            return try SiteManifest.decode(bytes)
        } catch {
            throw BundleError.notABundle(error.description)
        }
    }

    /// A file entry's header, before its data: once the manifest is known (a mirror bundle
    /// starts with it), a file it does not list or lists with another size is refused at once,
    /// so a lying entry is neither read nor written.
    func begin(_ path: String, size: Int64) throws {
        guard manifest != nil else { return }
        guard let wanted = expected[path] else { throw BundleError.unlistedFile(path: path) }
        guard Int64(wanted.size) == size else {
            throw BundleError.sizeMismatch(path: path, manifestSize: wanted.size, entrySize: size)
        }
    }

    /// A file entry's path and digest.
    mutating func file(_ path: String, _ digest: SiteManifest.FileDigest) throws {
        if manifest == nil { early.append((path, digest)) } else { try check(path, digest) }
    }

    private mutating func check(_ path: String, _ digest: SiteManifest.FileDigest) throws {
        guard let wanted = expected[path] else { throw BundleError.unlistedFile(path: path) }
        guard wanted == digest else { throw BundleError.digestMismatch(path: path) }
        found.insert(path)
    }

    /// The manifest, once every listed file was seen.
    func finish() throws -> SiteManifest {
        guard let manifest else { throw BundleError.notABundle("it has no \(Self.manifestPath)") }
        if let missing = expected.keys.filter({ !found.contains($0) }).min() { throw BundleError.missingFile(path: missing) }
        return manifest
    }
}
