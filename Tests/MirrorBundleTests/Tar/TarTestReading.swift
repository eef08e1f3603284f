import MirrorBundle
import Testing

/// Feeds archives to a `TarReader` in chosen chunk sizes and checks the order of its events.
enum TarTestReading {
    /// Reads an archive fed in chunks whose sizes `nextChunkSize` chooses.
    static func read(_ archive: [UInt8], limits: TarLimits = .default, nextChunkSize: () -> Int) throws -> TarContents {
        var reader = TarReader(limits: limits)
        var contents = TarContents()
        var open: (entry: TarEntry, data: [UInt8])?
        try archive.withUnsafeBytes { bytes in
            var start = 0
            while start < bytes.count {
                let end = start + min(bytes.count - start, max(1, nextChunkSize()))
                try reader.feed(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) { event in
                    switch event {
                    case .begin(let entry):
                        #expect(open == nil, "begin inside an entry")
                        open = (entry, [])
                        contents.entries.append(entry)
                    case .data(let chunk):
                        #expect(open?.entry.kind == .file && !chunk.isEmpty, "data outside a file")
                        open?.data.append(contentsOf: chunk)
                    case .end(let entry):
                        #expect(open?.entry == entry, "end of another entry")
                        #expect(Int64(open?.data.count ?? -1) == entry.size, "data of the wrong size")
                        if entry.kind == .file { contents.files[entry.path] = open?.data }
                        open = nil
                    }
                }
                start = end
            }
        }
        try reader.finish()
        #expect(open == nil, "entry never ended")
        return contents
    }

    /// Reads an archive fed in chunks of `chunkSize` bytes.
    static func read(_ archive: [UInt8], limits: TarLimits = .default, chunkSize: Int = 1 << 20) throws -> TarContents {
        try read(archive, limits: limits) { chunkSize }
    }

    /// The error the reader refuses an archive with, the same whether it is fed whole or byte by byte;
    /// nil when it is accepted.
    static func refusal(
        _ archive: [UInt8], limits: TarLimits = .default,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> TarError? {
        func attempt(_ chunkSize: Int) -> TarError? {
            do {
                _ = try read(archive, limits: limits, chunkSize: chunkSize)
                return nil
            } catch {
                return error as? TarError
            }
        }
        let whole = attempt(archive.count)
        #expect(whole == attempt(1), "fed byte by byte, the archive gives another result", sourceLocation: sourceLocation)
        return whole
    }
}
