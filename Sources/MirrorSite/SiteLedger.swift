/// Where a `SiteWriter` keeps, durably, what the folder holds: the resources and redirects it
/// saved and which files were rewritten against which link targets. The manifest file is
/// written from it when a crawl finishes; a crawl killed before that (`kill -9`) is finished
/// right by the next one, because the ledger knows every file saved before the kill.
///
/// The writer records a resource only after its file is in place, and an implementation must
/// keep records in order: whatever survives a crash is a prefix of what was recorded.
public protocol SiteLedger: Sendable {
    /// What earlier runs recorded for this folder; nil when the ledger is new.
    func savedSite() throws -> SiteManifest?
    /// A response's file is in place (new, changed, or rewritten).
    func saved(_ url: String, _ resource: SiteManifest.Resource) throws
    /// A URL redirected.
    func redirected(_ url: String, _ redirect: SiteManifest.Redirect) throws
    /// Makes every record so far durable (before the manifest is written from them).
    func flush() throws
}
