import MirrorLock

/// The names given to the folder's URLs (`PathRegistry`), rebuilt from the ledger's resources
/// when needed, as `PathMapper` is deterministic. Also where the finished folder's links lead
/// (`LinkTargets`).
final class SiteNames: Sendable {
    private let mapper: PathMapper
    private let ledger: any SiteLedger
    /// Nil once the finish has rewritten the links (`letGo`): writing the manifest does not use
    /// it, and it is the largest thing a crawl holds then (at 100,000 URLs, about 20 MB). A use after
    /// that rebuilds it.
    private let registry: Locked<PathRegistry?>

    init(mapper: PathMapper, ledger: any SiteLedger) throws {
        self.mapper = mapper
        self.ledger = ledger
        registry = Locked(try Self.registry(of: ledger, mapper: mapper))
    }

    /// `body`'s use of the registry, rebuilt first if it was let go.
    func withRegistry<Value>(_ body: (inout PathRegistry) throws -> Value) throws -> Value {
        try registry.withLock { registry in
            if registry == nil { registry = try SiteError.fromLedger { try Self.registry(of: ledger, mapper: mapper) } }
            return try body(&registry!)
        }
    }

    /// Forgets the name of `url`, if the registry is held (a save that failed).
    func forget(_ url: String) {
        registry.withLock { $0?.forget(url) }
    }

    /// Lets the registry go until its next use.
    func letGo() {
        registry.withLock { $0 = nil }
    }

    /// The registry of the names the ledger's resources were given.
    private static func registry(of ledger: any SiteLedger, mapper: PathMapper) throws -> PathRegistry {
        var saved: [PathRegistry.Assignment] = []
        try ledger.forEachResourceSlice { slice in
            for (url, resource) in slice {
                saved.append(
                    PathRegistry.Assignment(
                        url: url, preferred: mapper.path(for: url, contentType: resource.contentType)?.string ?? "",
                        path: resource.path, sha256: resource.sha256))
            }
        }
        saved.sort { $0.path.bytesPrecede($1.path) }
        return PathRegistry(assignments: saved, maxSegmentBytes: mapper.maxSegmentBytes)
    }
}
