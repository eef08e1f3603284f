/// What `OfflineLinkChecker` found in a folder: how many links of each sort, and the first
/// broken ones.
public struct OfflineLinkReport: Sendable, Equatable, Codable {
    /// Why a link does not work from `file://`.
    public enum Reason: String, Sendable, Equatable, Codable, CustomStringConvertible {
        /// It resolves to a file of the folder that does not exist.
        case missingFile = "missing-file"
        /// It resolves above the folder (`../../x`): it works only where the folder happens to be.
        case outsideFolder = "outside-folder"
        /// `/x`: from `file://` it names a file at the root of the disk.
        case rootRelative = "root-relative"
        /// `//host/x`: from `file://` it names a file on another machine.
        case protocolRelative = "protocol-relative"
        /// It names a folder: `file://` shows a listing, not the folder's `index.html`.
        case folder

        public var description: String {
            switch self {
            case .missingFile: return "no such file"
            case .outsideFolder: return "leads outside the folder"
            case .rootRelative: return "root-relative: from file:// it names the root of the disk"
            case .protocolRelative: return "protocol-relative: from file:// it names another machine"
            case .folder: return "a folder: file:// shows a listing, not its index.html"
            }
        }
    }

    /// One broken link: the file it is written in (relative to the folder), the link as written
    /// (after `<base href>` when the page has one), and why it is broken.
    public struct BrokenLink: Sendable, Equatable, Codable {
        public let file: String
        public let link: String
        public let reason: Reason

        public init(file: String, link: String, reason: Reason) {
            self.file = file
            self.link = link
            self.reason = reason
        }
    }

    /// HTML pages read.
    public var htmlFiles = 0
    /// Style sheets read.
    public var cssFiles = 0
    /// Links checked: every link the crawler would follow (`HTMLLinkExtractor`,
    /// `CSSLinkExtractor`), apart from `file:` URLs.
    public var links = 0
    /// Links to a file of the folder that exists.
    public var local = 0
    /// Links that do not work offline.
    public var broken = 0
    /// Absolute http(s) links (only those of the origin, when one was given): not broken, they
    /// work online, but they were not turned into local files.
    public var unconverted = 0
    /// Other absolute links: other origins (when one was given) and other schemes.
    public var external = 0
    /// The first broken links, in the order of the files' paths.
    public var examples: [BrokenLink] = []

    public init() {}

    /// Files read.
    public var files: Int { htmlFiles + cssFiles }
}
