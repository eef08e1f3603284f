import Crypto
import Foundation
import MirrorCore
import MirrorSite
import MirrorTestSupport

/// A mirror folder written directly — files of chosen sizes and a manifest listing them — for
/// tests that need to control a bundle's layout and size (a crawl decides its own).
struct SyntheticMirror {
    let folder: String
    /// Every file but the manifest, by path.
    let files: [String: [UInt8]]

    /// Writes `files` and a manifest listing each as a saved URL.
    init(folder: String, files: [String: [UInt8]]) throws {
        self.folder = folder
        self.files = files
        var manifest = SiteManifest()
        let record = ResponseRecord(headers: [:], requestTime: 0, responseTime: 0, varyKey: "")
        for (path, bytes) in files {
            let file = URL(fileURLWithPath: folder + "/" + path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: file)
            manifest.resources["http://example.test/" + path] = SiteManifest.Resource(
                path: path, status: 200, contentType: "text/html", size: bytes.count, sha256: Hex.string(SHA256.hash(data: bytes)),
                etag: nil, lastModified: nil, record: record)
        }
        try FileManager.default.createDirectory(atPath: folder + "/.mirror", withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(manifest).write(to: URL(fileURLWithPath: folder + "/.mirror/manifest.json"))
    }

    /// `count` bytes of text made of words, numbers and markup: it compresses about as HTML does
    /// (3–4×), so deflate makes blocks and back-references as on real pages.
    static func text(count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        let words = [
            "<p>", "</p>", "<a href=\"", "\">", "</a>", "the", "module", "function", "returns", "class",
            "import", "os.path", "value", "None", "\n", "<div class=\"section\">", "</div>", "of", "a", "and",
        ]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 32)
        while bytes.count < count {
            if Int.random(in: 0..<8, using: &random) == 0 {
                bytes += Array(String(UInt32.random(in: 0...UInt32.max, using: &random), radix: 36).utf8)
            } else {
                bytes += Array(words[Int.random(in: 0..<words.count, using: &random)].utf8)
            }
            bytes.append(0x20)
        }
        return Array(bytes.prefix(count))
    }
}
