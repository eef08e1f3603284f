import Crypto
import Foundation
import MirrorCore

/// The folder's `index.html`: a page that opens the first seed's file.
struct StartPage {
    let bytes: [UInt8]

    /// The page for `seed`, whose file is at `path` in the folder.
    init(seed: String, path: String) {
        let escaped = path.split(separator: "/").map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? String($0) }
            .joined(separator: "/")
        bytes = Array(
            """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=\(escaped)">
            <title>mirror of \(seed)</title></head>
            <body><p><a href="\(escaped)">\(seed)</a></p></body></html>

            """.utf8)
    }

    /// Writes the page to `directory`; returns its digest for the manifest.
    func write(to directory: String, with files: AtomicFiles) throws -> SiteManifest.FileDigest {
        try files.writeAtomically(bytes, to: directory + "/index.html")
        return SiteManifest.FileDigest(sha256: Hex.string(SHA256.hash(data: bytes)), size: bytes.count)
    }
}
