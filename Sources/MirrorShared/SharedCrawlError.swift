/// Why a shared crawl cannot go on.
public enum SharedCrawlError: Error, CustomStringConvertible {
    /// The `--shared` address is not `postgres://USER[:PASSWORD]@HOST[:PORT]/DB`.
    case badAddress(String)
    /// The database could not be reached for as long as the worker waits.
    case unreachable(address: String, reason: String)
    /// The crawl of that name was started with another value of an option that all its workers share.
    case optionsDiffer(crawl: String, option: String, crawlValue: String, workerValue: String)
    /// The database holds a newer schema than this version of mirror knows.
    case newerSchema(found: Int, known: Int)
    /// A body the shared store names is missing or damaged.
    case damagedBody(digest: String)
    /// No worker recorded a rendering of this page (its browser failed).
    case notRendered(url: String)

    public var description: String {
        switch self {
        case .badAddress(let address):
            return "not a PostgreSQL address: \(address) (want postgres://USER[:PASSWORD]@HOST[:PORT]/DB)"
        case .unreachable(let address, let reason):
            return "the shared crawl's database \(address) cannot be reached: \(reason)"
        case .optionsDiffer(let crawl, let option, let crawlValue, let workerValue):
            return "the shared crawl \(crawl) runs with \(option) \(crawlValue), this worker was given \(workerValue): "
                + "give every worker the same \(option), or another --crawl-name"
        case .newerSchema(let found, let known):
            return "the database holds mirror's shared-crawl schema version \(found); this mirror knows up to \(known): upgrade it"
        case .damagedBody(let digest):
            return "the shared store's body \(digest) is missing or damaged"
        case .notRendered(let url):
            return "no worker of the shared crawl loaded \(url) in its browser"
        }
    }
}
