import Foundation
import MirrorCompression

/// The web archive formats `mirror cache import` reads, told apart by their first bytes.
public enum ArchiveFormat: Sendable {
    /// A WARC, plain or gzip-compressed.
    case warc
    /// A WACZ package (a ZIP holding WARCs under `archive/`).
    case wacz

    /// The format of the file at `path`; nil when it is neither (a bundle, say) or unreadable.
    public static func detect(_ path: String) -> ArchiveFormat? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let prefix = try? handle.read(upToCount: 64 << 10).map(Array.init) else { return nil }
        if prefix.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return .wacz }
        var text = prefix
        if prefix.starts(with: [0x1F, 0x8B]), let decoder = try? GzipDecoder() {
            text = []
            try? decoder.decompress(prefix, into: &text)
        }
        return text.starts(with: Array("WARC/".utf8)) ? .warc : nil
    }
}
