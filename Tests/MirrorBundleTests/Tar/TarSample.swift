import MirrorBundle
import MirrorTestSupport

/// A tree of directories and files to write with `TarWriter` and expect back from readers.
struct TarSample {
    var directories: [String]
    var files: [(path: String, contents: [UInt8])]

    /// Small, empty and (unless `bigFileSize` is 0) large files, directories, a 300-byte path,
    /// a 150-byte name and non-ASCII names.
    static func standard(bigFileSize: Int = 3 << 20, seed: UInt64 = 1) -> TarSample {
        var random = SeededGenerator(seed: seed)
        let component = String(repeating: "segment-", count: 6)  // 48 bytes
        let longDirectory = (0..<6).map { "\($0)-\(component)" }.joined(separator: "/")
        var files: [(String, [UInt8])] = [
            ("index.html", Array("<!doctype html><title>Home</title>\n".utf8)),
            ("empty.txt", []),
            ("assets/style.css", Array("body { color: #333 }\n".utf8)),
            ("\(longDirectory)/page.html", Array("deep\n".utf8)),
            (String(repeating: "n", count: 150) + ".html", Array("long name\n".utf8)),
            ("café/naïve — 日本語.html", Array("ünïcödé\n".utf8)),
            ("Straße/ß.txt", [0, 1, 2, 255]),
            ("blocks/exactly-512.bin", (0..<512).map { _ in UInt8.random(in: 0...255, using: &random) }),
        ]
        if bigFileSize > 0 {
            files.append(("assets/big.bin", (0..<bigFileSize).map { _ in UInt8.random(in: 0...255, using: &random) }))
        }
        return TarSample(directories: ["assets", "café", "docs", "docs/empty-folder"], files: files)
    }

    /// The archive `TarWriter` makes: directories first, then files streamed in `chunkSize` pieces.
    func archive(chunkSize: Int = 64 << 10) throws -> [UInt8] {
        var writer = TarWriter()
        var output: [UInt8] = []
        for directory in directories {
            try writer.appendDirectory(path: directory, to: &output)
        }
        for (path, contents) in files {
            try writer.appendFileHeader(path: path, size: Int64(contents.count), to: &output)
            var start = 0
            while start < contents.count {
                let end = min(contents.count, start + chunkSize)
                try contents[start..<end].withUnsafeBytes { try writer.appendFileData($0, to: &output) }
                start = end
            }
            try writer.endFile(to: &output)
        }
        writer.finish(to: &output)
        return output
    }

    /// File contents by path.
    var fileMap: [String: [UInt8]] {
        Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0.contents) })
    }

    /// The entries a reader reports for `archive()`, in order.
    var entries: [TarEntry] {
        directories.map { TarEntry(path: $0, kind: .directory, size: 0) }
            + files.map { TarEntry(path: $0.path, kind: .file, size: Int64($0.contents.count)) }
    }
}
