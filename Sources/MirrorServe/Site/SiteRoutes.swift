import MirrorCore
public import MirrorSite

/// Finds what a request asks for in a mirror, by the paths the site used and by the folder's.
///
/// - `/_/HOST[:PORT]/PATH?QUERY` is the URL `http(s)://HOST[:PORT]/PATH?QUERY` of any crawled host.
/// - A request whose `Host` header names a crawled host (a hosts-file entry or a proxy setting
///   pointing that host at the server) asks for that host's URLs: `/PATH?QUERY`.
/// - Otherwise `/PATH?QUERY` is first a URL of the first seed's host, so the site's own links and
///   paths work; `/` is the start page (the first seed), or, when the seeds are on several hosts,
///   a page that links each of them and the search page.
/// - Then `/PATH` is a path in that host's folder (`/library/os@v=2.html` is the file
///   `127.0.0.1_8000/library/os@v=2.html`), and then a path in the mirror's folder:
///   `/127.0.0.1_8000/library/os.html`, `/index.html`. A rewritten page links by relative paths
///   in the folder, which a browser resolves against the address it opened the page by: to
///   files of the page's host they arrive as paths in the host's folder (a file whose name is
///   not its URL's path, such as one with a query, is only found there), to other hosts' files
///   as paths in the mirror's folder.
/// - A folder without its slash, or a URL that the crawl only saw with one, redirects (301) to
///   it with the slash; a redirect the crawl saw is answered with its status and a location on
///   this server. Anything else is not found.
///
/// Only the files the manifest lists are ever named, so a path cannot lead out of the mirror.
public struct SiteRoutes: Sendable {
    private let manifest: SiteManifest
    /// Schemes seen per crawled authority (`host` or `host:port`), the start's scheme first.
    private let schemes: [String: [String]]
    private let start: URLParts?
    /// Every file that may be served, with a URL whose record describes it.
    private let files: [String: SiteManifest.Resource?]
    private let folders: Set<String>
    /// The folder of each crawled authority's files (`127.0.0.1_8000` for `127.0.0.1:8000`).
    private let hostFolders: [String: String]
    /// The seeds, when they are on more than one host (`/` is then `.startPage`).
    private let seedsOnSeveralHosts: [String]?

    public init(manifest: SiteManifest) {
        self.manifest = manifest
        let start = manifest.seeds?.first.flatMap(URLParts.init)
        self.start = start
        let seeds = manifest.seeds ?? []
        seedsOnSeveralHosts = Set(seeds.compactMap { URLParts($0)?.authority }).count > 1 ? seeds : nil
        var schemes: [String: [String]] = [:]
        for url in Array(manifest.resources.keys) + Array(manifest.redirects.keys) {
            guard let parts = URLParts(url) else { continue }
            if !(schemes[parts.authority]?.contains(parts.scheme) ?? false) { schemes[parts.authority, default: []].append(parts.scheme) }
        }
        for (authority, list) in schemes {
            schemes[authority] = list.sorted { lhs, rhs in
                // The start's scheme, then https, then http.
                (lhs == start?.scheme ? 0 : lhs == "https" ? 1 : 2, lhs) < (rhs == start?.scheme ? 0 : rhs == "https" ? 1 : 2, rhs)
            }
        }
        self.schemes = schemes
        var hostFolders: [String: String] = [:]
        for (url, resource) in manifest.resources {
            guard let authority = URLParts(url)?.authority, hostFolders[authority] == nil,
                let slash = resource.path.firstIndex(of: "/")
            else { continue }
            hostFolders[authority] = String(resource.path[..<slash])
        }
        self.hostFolders = hostFolders
        var files: [String: SiteManifest.Resource?] = [:]
        for url in manifest.resources.keys.sorted() {
            let resource = manifest.resources[url]!
            if files[resource.path] == nil { files[resource.path] = resource }
        }
        if manifest.index != nil, files["index.html"] == nil { files["index.html"] = .some(nil) }
        self.files = files
        var folders = Set<String>()
        for path in files.keys {
            var folder = Substring(path)
            while let slash = folder.lastIndex(of: "/") {
                folder = folder[..<slash]
                guard folders.insert(String(folder)).inserted else { break }
            }
        }
        self.folders = folders
    }

    /// The route of a request target (origin form) with the request's `Host` header.
    public func resolve(target: String, host: String?) -> SiteRoute {
        var target = Substring(target)
        if let hash = target.firstIndex(of: "#") { target = target[..<hash] }
        let path = target.firstIndex(of: "?").map { target[..<$0] } ?? target
        let query = target.firstIndex(of: "?").map { target[target.index(after: $0)...] }
        guard path.hasPrefix("/") else { return .badRequest("The request target must be a path starting with /.") }
        if path.utf8.contains(UInt8(ascii: "\\"))
            || (path.utf8.contains(UInt8(ascii: "%"))
                && PercentEncoding.decode(String(path)).utf8.contains(where: { $0 == 0 || $0 == UInt8(ascii: "\\") }))
        {
            return .badRequest("The path holds a NUL or a backslash, which no saved URL has.")
        }
        if path.hasPrefix("/_/") {
            let rest = path.dropFirst(3)
            let authority = String(rest.prefix { $0 != "/" }).lowercased()
            let remainder = rest.dropFirst(authority.count)
            if schemes[authority] != nil {
                let path = remainder.isEmpty ? "/" : remainder
                return original(authority: authority, path: path, query: query, prefix: "/_/" + authority)
                    ?? hostFolder(authority, path: path, query: query)
                    ?? .notFound(url: url(authority: authority, path: path, query: query))
            }
            return folder(path: "/" + rest, query: query) ?? .notFound(url: nil)
        }
        if let host = host?.lowercased(), schemes[host] != nil {
            return original(authority: host, path: path, query: query, prefix: "")
                ?? hostFolder(host, path: path, query: query)
                ?? folder(path: path, query: query)
                ?? .notFound(url: url(authority: host, path: path, query: query))
        }
        if path == "/", query == nil, let seeds = seedsOnSeveralHosts { return .startPage(seeds: seeds) }
        if let start {
            if let route = original(authority: start.authority, path: path, query: query, prefix: "") { return route }
            if path == "/", query == nil, let seed = manifest.seeds?.first {
                return .redirect(status: 302, location: served(seed))
            }
            if let route = hostFolder(start.authority, path: path, query: query) { return route }
        }
        return folder(path: path, query: query)
            ?? .notFound(url: start.map { url(authority: $0.authority, path: path, query: query) })
    }

    /// A URL of a crawled host, or a redirect to it with the slash the crawl saw.
    private func original(authority: String, path: Substring, query: Substring?, prefix: String) -> SiteRoute? {
        for scheme in schemes[authority] ?? [] {
            let asked = "\(scheme)://\(authority)\(path)\(Self.suffix(query))"
            // Targets usually come as the crawl normalized them: look them up before normalizing.
            if let resource = manifest.resources[asked] { return .file(path: resource.path, resource: resource) }
            guard let url = URLNormalizer.normalize(asked) else { continue }
            if let resource = manifest.resources[url] { return .file(path: resource.path, resource: resource) }
            if let redirect = manifest.redirects[url] { return .redirect(status: redirect.status, location: served(redirect.location)) }
            if !path.hasSuffix("/"), let slashed = URLNormalizer.normalize("\(scheme)://\(authority)\(path)/"),
                manifest.resources[slashed] != nil || manifest.redirects[slashed] != nil
            {
                return .redirect(status: 301, location: "\(prefix)\(path)/\(Self.suffix(query))")
            }
        }
        return nil
    }

    /// A file of `authority`'s folder by its path there. Only files: a rewritten link names a
    /// file, and a URL the crawl saw with a slash is redirected by `original` already.
    private func hostFolder(_ authority: String, path: Substring, query: Substring?) -> SiteRoute? {
        guard let name = hostFolders[authority], path != "/",
            case .file(let file, let resource)? = folder(path: "/\(name)\(path)"[...], query: query)
        else { return nil }
        return .file(path: file, resource: resource)
    }

    /// A file of the folder, `index.html` of a folder asked for with its slash, or a redirect
    /// adding the slash.
    private func folder(path: Substring, query: Substring?) -> SiteRoute? {
        // Only escapes and dot segments (a "." right after a "/") need work.
        let bytes = path.utf8
        let plain =
            !bytes.contains(UInt8(ascii: "%"))
            && !zip(bytes, bytes.dropFirst()).contains { $0 == UInt8(ascii: "/") && $1 == UInt8(ascii: ".") }
        let decoded = plain ? String(path) : URLParts.removeDotSegments(PercentEncoding.decode(String(path)))
        var relative = String(decoded.dropFirst())
        if relative.isEmpty || relative.hasSuffix("/") { relative += "index.html" }
        if let resource = files[relative] { return .file(path: relative, resource: resource) }
        if folders.contains(relative) { return .redirect(status: 301, location: "\(path)/\(Self.suffix(query))") }
        return nil
    }

    /// Whether `authority` is one of the crawled hosts (whose pages are under `/_/authority/`).
    func hasHost(_ authority: String) -> Bool { schemes[authority] != nil }

    /// Where this server answers for `url`: its path on the start's host, else under `/_/`.
    func served(_ url: String) -> String {
        guard let parts = URLParts(url) else { return "/" }
        let normalized = parts.normalized
        let pathAndQuery = String(Substring(normalized.utf8.dropFirst(parts.origin.utf8.count)))
        return parts.origin == start?.origin ? pathAndQuery : "/_/\(parts.authority)\(pathAndQuery)"
    }

    private func url(authority: String, path: Substring, query: Substring?) -> String {
        "\(schemes[authority]?.first ?? start?.scheme ?? "http")://\(authority)\(path)\(Self.suffix(query))"
    }

    /// `?QUERY`, or nothing for a target without a query.
    private static func suffix(_ query: Substring?) -> String {
        query.map { "?\($0)" } ?? ""
    }
}
