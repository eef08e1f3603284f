import Crypto
public import Foundation
import MirrorCore
import NIOHTTP1

/// Serves a folder of files the way a plain static web server does.
///
/// - `/a/` serves `a/index.html`; `/a` on a folder redirects (301) to `/a/`,
///   unless the folder holds a `.self` file, which is then served for `/a`
///   (so a page `/docs` can live next to a folder `/docs/`).
/// - A `_redirects` file at the root lists `FROM TO [STATUS]` lines.
/// - Every file gets a strong ETag (from its bytes) and a Last-Modified (its mtime).
public struct FixtureSite: Sendable {
    public let root: URL
    private let redirects: [String: (location: String, status: Int)]

    public init(root: URL) {
        self.root = root
        var redirects: [String: (String, Int)] = [:]
        if let text = try? String(contentsOf: root.appendingPathComponent("_redirects"), encoding: .utf8) {
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                if fields.count >= 2 { redirects[fields[0]] = (fields[1], fields.count > 2 ? Int(fields[2]) ?? 301 : 301) }
            }
        }
        self.redirects = redirects
    }

    /// The fixture sites shipped in the repository, under `fixtures/sites/NAME`.
    public static func named(_ name: String) -> FixtureSite {
        FixtureSite(root: repositoryRoot.appendingPathComponent("fixtures/sites/\(name)"))
    }

    /// The checkout this file was compiled from.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The response for `request`, or nil when no file matches.
    func response(for request: TestRequest) -> TestResponse? {
        let rawPath = request.path
        if let redirect = redirects[rawPath] { return .redirect(to: redirect.location, status: redirect.status) }
        guard let path = rawPath.removingPercentEncoding, !path.split(separator: "/").contains("..") else { return nil }
        var isFolder: ObjCBool = false
        let target = root.appendingPathComponent(String(path.drop { $0 == "/" }))
        guard FileManager.default.fileExists(atPath: target.path, isDirectory: &isFolder) else { return nil }
        let file: URL
        if isFolder.boolValue {
            if path.hasSuffix("/") || path.isEmpty {
                file = target.appendingPathComponent("index.html")
            } else if FileManager.default.fileExists(atPath: target.appendingPathComponent(".self").path) {
                file = target.appendingPathComponent(".self")
            } else {
                return .redirect(to: rawPath + "/", status: 301)
            }
        } else {
            file = target
        }
        guard file.lastPathComponent != "_redirects", let body = try? Data(contentsOf: file) else { return nil }
        let modified = (try? file.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? Date()
        let digest = SHA256.hash(data: body).prefix(8).map { String(format: "%02x", $0) }.joined()
        let headers = HTTPHeaders([
            ("Content-Type", Self.contentType(of: file)),
            ("ETag", "\"\(digest)\""),
            ("Last-Modified", HTTPDate.format(Int64(modified.timeIntervalSince1970))),
        ])
        return TestResponse(headers: headers, body: Array(body))
    }

    static func contentType(of file: URL) -> String {
        if file.lastPathComponent == ".self" { return "text/html; charset=utf-8" }
        switch file.pathExtension.lowercased() {
        case "html", "htm": return "text/html; charset=utf-8"
        case "css": return "text/css"
        case "js", "mjs": return "text/javascript"
        case "json": return "application/json"
        case "xml": return "application/xml"
        case "gz": return "application/gzip"
        case "txt": return "text/plain; charset=utf-8"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "svg": return "image/svg+xml"
        case "webp": return "image/webp"
        case "ico": return "image/x-icon"
        case "woff2": return "font/woff2"
        case "woff": return "font/woff"
        case "pdf": return "application/pdf"
        default: return "application/octet-stream"
        }
    }
}
