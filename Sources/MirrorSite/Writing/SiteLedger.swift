/// Where a `SiteWriter` keeps, durably, what the folder holds: the resources and redirects it
/// saved and which files were rewritten against which link targets. The writer holds none of
/// the resources itself (at 100,000 URLs they were 42 MB, the largest thing a crawl held): it
/// reads one back when it needs it, and the manifest file is written from the ledger, in
/// slices, when a crawl finishes. A crawl killed before that (`kill -9`) is finished right by
/// the next one, because the ledger knows every file saved before the kill.
///
/// The writer records a resource only after its file is in place, and an implementation must
/// keep records in order: whatever survives a crash is a prefix of what was recorded. Reads
/// see every record made so far, committed or not.
public protocol SiteLedger: Sendable {
    /// The resource recorded last for `url`; nil when there is none.
    func resource(of url: String) throws -> SiteManifest.Resource?
    /// Up to `limit` resources, of the URLs after `url` (from the first when nil), in the order
    /// of the URLs' UTF-8 bytes.
    func resources(after url: String?, limit: Int) throws -> [(url: String, resource: SiteManifest.Resource)]
    /// Every redirect recorded, by URL.
    func redirects() throws -> [String: SiteManifest.Redirect]
    /// A response's file is in place (new, changed, or rewritten).
    func saved(_ url: String, _ resource: SiteManifest.Resource) throws
    /// A URL redirected.
    func redirected(_ url: String, _ redirect: SiteManifest.Redirect) throws
    /// Makes every record so far durable (before the manifest is written from them).
    func flush() throws
}

extension SiteLedger {
    /// The resources in the order of their URLs' bytes, a slice per call (as
    /// `ManifestJSONWriter.object(slices:)` takes them), then empty slices.
    public func resourceSlices() -> () throws -> [(url: String, resource: SiteManifest.Resource)] {
        var after: String?
        var finished = false
        return {
            guard !finished else { return [] }
            let slice = try resources(after: after, limit: ManifestJSONWriter.sliceSize)
            after = slice.last?.url
            finished = slice.isEmpty
            return slice
        }
    }

    /// Hands the resources to `body` in slices, in the order of their URLs' bytes.
    func forEachResourceSlice(_ body: ([(url: String, resource: SiteManifest.Resource)]) throws -> Void) throws {
        let next = resourceSlices()
        while case let slice = try next(), !slice.isEmpty { try body(slice) }
    }
}
