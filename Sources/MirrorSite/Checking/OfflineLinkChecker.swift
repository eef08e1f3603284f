import Foundation
import MirrorCore
import MirrorHTML

/// Checks that a mirrored folder browses offline from `file://`: reads every HTML page and style
/// sheet outside `.mirror/`, finds each link the crawler would follow with the crawler's own
/// extractors (libxml2 for HTML, the CSS tokenizer for `url()` and `@import`), resolves it as a
/// browser does from that file (after `<base href>`), and sorts it (`OfflineLinkReport`).
///
/// `file://` rules: the query and fragment name no file; `%`-escapes are decoded; `/x` names the
/// root of the disk and `//host/x` another machine, so both are broken, as is a link above the
/// folder (it works only where the folder happens to be) or to a folder (a browser shows a
/// listing, not its `index.html`). Absolute http(s) links work online: they are counted, not
/// broken. `file:` links are not checked; fragment-only links and `mailto:`, `javascript:`,
/// `data:`, … are not links to the extractors either.
///
/// A page's charset comes from its bytes (BOM, `<meta charset>`), as a browser reading the file
/// finds it: there are no HTTP headers on disk.
public struct OfflineLinkChecker: Sendable {
    /// The folder checked; links above it are broken.
    public let folder: String
    /// When set, only absolute links under this URL count as unconverted, the others as external.
    public let origin: String?
    /// How many broken links the report lists.
    public let exampleLimit: Int

    public init(folder: String, origin: String? = nil, exampleLimit: Int = 10) {
        self.folder = folder
        self.origin = origin.map { URLParts($0)?.normalized ?? $0 }
        self.exampleLimit = exampleLimit
    }

    /// Reads the folder and sorts every link.
    /// - Throws: `SiteError.unreadable` when the folder or one of its files cannot be read.
    public func check() throws -> OfflineLinkReport {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw SiteError.unreadable(path: folder, message: "no such folder")
        }
        var report = OfflineLinkReport()
        var disk = Disk(folder: folder)
        for path in try documents() {
            // FileReading, not Foundation's reader, which leaks a page of memory per empty file.
            guard let bytes = try? FileReading.contents(of: folder + "/" + path) else {
                throw SiteError.unreadable(path: folder + "/" + path, message: "cannot read the file")
            }
            var components = path.split(separator: "/").map(String.init)
            let page = Base.file(folder: Array(components.dropLast()), name: components.removeLast())
            let links: [ExtractedLink]
            var base = page
            if path.lowercased().hasSuffix(".css") {
                report.cssFiles += 1
                links = CSSLinkExtractor.links(in: String(decoding: bytes, as: UTF8.self))
            } else {
                report.htmlFiles += 1
                let found = HTMLLinkExtractor.links(
                    in: bytes, charset: CharsetSniffer.charset(contentType: nil, prefix: Array(bytes.prefix(1024))))
                links = found.links
                if let href = found.baseHref { base = Self.base(href, of: page) }
            }
            for link in links {
                switch Self.destination(of: link.reference, from: base) {
                case .ignored:
                    continue
                case .web(let url):
                    if origin.map(url.hasPrefix) ?? true { report.unconverted += 1 } else { report.external += 1 }
                case .external:
                    report.external += 1
                case .file(let folder, let name):
                    if let reason = disk.problem(folder: folder, name: name) {
                        report.add(OfflineLinkReport.BrokenLink(file: path, link: link.reference, reason: reason), limit: exampleLimit)
                    } else {
                        report.local += 1
                    }
                case .broken(let reason):
                    report.add(OfflineLinkReport.BrokenLink(file: path, link: link.reference, reason: reason), limit: exampleLimit)
                }
                report.links += 1
            }
        }
        return report
    }

    /// The HTML and CSS files of the folder outside `.mirror/`, relative to it, in byte order.
    private func documents() throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else {
            throw SiteError.unreadable(path: folder, message: "cannot list the folder")
        }
        var paths: [String] = []
        while let path = walker.nextObject() as? String {
            if path == ".mirror" {
                walker.skipDescendants()
                continue
            }
            guard walker.fileAttributes?[.type] as? FileAttributeType == .typeRegular else { continue }
            let name = path.lowercased()
            if [".html", ".htm", ".xhtml", ".css"].contains(where: name.hasSuffix) { paths.append(path) }
        }
        return paths.sorted { $0.bytesPrecede($1) }
    }

    /// What relative links resolve against.
    private enum Base {
        /// A file of the folder (`name`), or a folder itself (`name` nil); components decoded.
        case file(folder: [String], name: String?)
        /// A `<base href>` on the web.
        case web(URLParts)
        /// A `<base href>` that is itself broken: so is every relative link.
        case broken(OfflineLinkReport.Reason)
    }

    /// Where a link leads.
    private enum Destination {
        /// A file of the folder; `name` empty when the link names a folder.
        case file(folder: [String], name: String)
        /// A normalized absolute http(s) URL.
        case web(String)
        /// Another scheme.
        case external
        /// Not checked (`file:`).
        case ignored
        case broken(OfflineLinkReport.Reason)
    }

    /// The base of `page` once its `<base href>` is applied; `page` itself when that names no
    /// place (`file:`, other schemes).
    private static func base(_ href: String, of page: Base) -> Base {
        switch destination(of: href, from: page) {
        case .file(let folder, let name): return .file(folder: folder, name: name.isEmpty ? nil : name)
        case .web(let url): return URLParts(url).map(Base.web) ?? page
        case .broken(let reason): return .broken(reason)
        case .external, .ignored: return page
        }
    }

    /// Where `reference` (trimmed, as the extractors give it) leads from `base`, resolved as a
    /// browser resolves it (tabs and line breaks dropped, `\` read as `/`).
    private static func destination(of reference: String, from base: Base) -> Destination {
        let cleaned = String(String.UnicodeScalarView(reference.unicodeScalars.filter { !URLParts.isTabOrLineBreak($0) }))
            .replacingOccurrences(of: "\\", with: "/")
        if let scheme = URLParts.scheme(of: cleaned) {
            switch scheme {
            case "file": return .ignored
            case "http", "https": return URLParts(cleaned).map { .web($0.normalized) } ?? .external
            default: return .external
            }
        }
        switch base {
        case .web(let url):
            return url.resolve(cleaned).map { .web($0.normalized) } ?? .external
        case .broken(let reason):
            return .broken(reason)
        case .file(let folder, let name):
            if cleaned.hasPrefix("//") { return .broken(.protocolRelative) }
            var path = Substring(cleaned)
            if let hash = path.firstIndex(of: "#") { path = path[..<hash] }
            if let question = path.firstIndex(of: "?") { path = path[..<question] }
            if path.isEmpty { return .file(folder: folder, name: name ?? "") }
            if path.hasPrefix("/") { return .broken(.rootRelative) }
            return walk(path, from: folder)
        }
    }

    /// The file `path` (relative, `%`-escaped) names from `folder`: dot segments applied after
    /// decoding (as browsers read `%2E%2E`), empty segments skipped as the file system does.
    private static func walk(_ path: Substring, from folder: [String]) -> Destination {
        var components = folder
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map { PercentEncoding.decode(String($0)) }
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case "..":
                guard !components.isEmpty else { return .broken(.outsideFolder) }
                components.removeLast()
                if isLast { return .file(folder: components, name: "") }
            case ".", "":
                if isLast { return .file(folder: components, name: "") }
            default:
                if isLast { return .file(folder: components, name: segment) }
                components.append(segment)
            }
        }
        return .file(folder: components, name: "")
    }

    /// What the folder holds, each path looked up once.
    private struct Disk {
        let folder: String
        private var kinds: [String: OfflineLinkReport.Reason?] = [:]

        init(folder: String) { self.folder = folder }

        /// Why the file `name` in `folder` (components of the checked folder) cannot be opened;
        /// nil when it can.
        mutating func problem(folder components: [String], name: String) -> OfflineLinkReport.Reason? {
            guard !name.isEmpty else { return .folder }
            // A decoded `%2F` or `%00` names no file.
            guard !name.contains("/"), !name.contains("\0") else { return .missingFile }
            let path = (components + [name]).joined(separator: "/")
            return kinds.memoized(path) {
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder) else { return .missingFile }
                return isFolder.boolValue ? .folder : nil
            }
        }
    }
}

extension OfflineLinkReport {
    /// Counts a broken link, keeping it as an example while there are fewer than `limit`.
    fileprivate mutating func add(_ link: BrokenLink, limit: Int) {
        broken += 1
        if examples.count < limit { examples.append(link) }
    }
}
