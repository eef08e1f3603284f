/// Writes a reproducible POSIX pax archive: ustar headers, plus a pax 'x' header for a path
/// over 100 bytes or with non-ASCII bytes, or a size of 8 GiB or more.
///
/// Every entry gets mtime 0, uid and gid 0, no user or group name, mode 0644 (files) or 0755
/// (directories), so the same calls always give the same bytes. Output is appended to a
/// buffer the caller owns and may drain between calls; file data is copied into it once.
///
/// ```swift
/// var writer = TarWriter()
/// var out: [UInt8] = []
/// try writer.appendFileHeader(path: "a/b.html", size: 5, to: &out)
/// try chunk.withUnsafeBytes { try writer.appendFileData($0, to: &out) }
/// try writer.endFile(to: &out)
/// writer.finish(to: &out)
/// ```
public struct TarWriter: Sendable {
    /// GNU tar's default record: the finished archive is a multiple of this many bytes.
    static let recordSize: Int64 = 10240

    private var registry = TarPathRegistry()
    private var written: Int64 = 0
    private var openFile: (path: String, size: Int64, written: Int64)?

    public init() {}

    /// Appends a directory entry.
    /// - Throws: `TarError.unsafePath`, `.duplicate`, `.caseConflict` or `.fileUsedAsDirectory`.
    public mutating func appendDirectory(path: String, to output: inout [UInt8]) throws(TarError) {
        precondition(openFile == nil, "TarWriter: endFile() the current file first")
        let path = try checked(path, isDirectory: true)
        appendHeaders(path: path + "/", type: UInt8(ascii: "5"), permissions: 0o755, size: 0, to: &output)
    }

    /// Appends a file's header; then give exactly `size` bytes to `appendFileData` and call `endFile`.
    /// - Throws: as `appendDirectory`.
    public mutating func appendFileHeader(path: String, size: Int64, to output: inout [UInt8]) throws(TarError) {
        precondition(openFile == nil, "TarWriter: endFile() the current file first")
        precondition(size >= 0, "TarWriter: negative file size")
        let path = try checked(path, isDirectory: false)
        appendHeaders(path: path, type: UInt8(ascii: "0"), permissions: 0o644, size: size, to: &output)
        openFile = (path, size, 0)
    }

    /// Appends the next bytes of the current file.
    /// - Throws: `TarError.sizeMismatch` when they go past the size declared in the header.
    public mutating func appendFileData(_ chunk: UnsafeRawBufferPointer, to output: inout [UInt8]) throws(TarError) {
        try appendData(chunk.assumingMemoryBound(to: UInt8.self), to: &output)
    }

    /// Ends the current file, padding it to a whole block.
    /// - Throws: `TarError.sizeMismatch` when fewer bytes came than the header declared.
    public mutating func endFile(to output: inout [UInt8]) throws(TarError) {
        guard let file = openFile else { preconditionFailure("TarWriter: appendFileHeader() first") }
        guard file.written == file.size else {
            throw .sizeMismatch(path: file.path, declared: file.size, written: file.written)
        }
        openFile = nil
        appendZeros(TarHeader.padding(for: file.size), to: &output)
    }

    /// Appends a whole small file (a manifest, say).
    public mutating func appendFile(path: String, contents: [UInt8], to output: inout [UInt8]) throws(TarError) {
        try appendFileHeader(path: path, size: Int64(contents.count), to: &output)
        try appendData(contents, to: &output)
        try endFile(to: &output)
    }

    /// Appends the end-of-archive marker (two zero blocks), padded to a 10240-byte record like GNU tar.
    public mutating func finish(to output: inout [UInt8]) {
        precondition(openFile == nil, "TarWriter: endFile() the current file first")
        let end = written + 2 * Int64(TarHeader.blockSize)
        appendZeros(Int(2 * Int64(TarHeader.blockSize) + (Self.recordSize - end % Self.recordSize) % Self.recordSize), to: &output)
    }

    private mutating func appendData(_ data: some Collection<UInt8>, to output: inout [UInt8]) throws(TarError) {
        guard var file = openFile else { preconditionFailure("TarWriter: appendFileHeader() first") }
        file.written += Int64(data.count)
        guard file.written <= file.size else {
            throw .sizeMismatch(path: file.path, declared: file.size, written: file.written)
        }
        openFile = file
        output.append(contentsOf: data)
        written += Int64(data.count)
    }

    private mutating func checked(_ path: String, isDirectory: Bool) throws(TarError) -> String {
        guard let normalized = try TarPath.normalize(Array(path.utf8), isDirectory: isDirectory) else {
            throw .unsafePath(path: path, problem: .empty)
        }
        try registry.register(normalized, isDirectory: isDirectory)
        return normalized
    }

    /// The entry's header, preceded by a pax header when ustar cannot hold its path or size.
    private mutating func appendHeaders(path: String, type: UInt8, permissions: Int64, size: Int64, to output: inout [UInt8]) {
        let name = Array(path.utf8)
        let longPath = name.count > TarHeader.nameField.count || name.contains { $0 >= 0x80 }
        let largeSize = size > TarHeader.maxOctalSize
        if longPath || largeSize {
            var records: [UInt8] = []
            if longPath { records += TarPax.record("path", name) }
            if largeSize { records += TarPax.record("size", Array(String(size).utf8)) }
            appendHeader(
                name: Self.paxHeaderName(for: name), type: UInt8(ascii: "x"), permissions: 0o644,
                size: Int64(records.count), to: &output)
            output.append(contentsOf: records)
            written += Int64(records.count)
            appendZeros(TarHeader.padding(for: Int64(records.count)), to: &output)
        }
        appendHeader(
            name: Self.truncated(name, to: TarHeader.nameField.count), type: type, permissions: permissions,
            size: size, to: &output)
    }

    private mutating func appendHeader(name: [UInt8], type: UInt8, permissions: Int64, size: Int64, to output: inout [UInt8]) {
        TarHeader.append(name: name, type: type, permissions: permissions, size: size, to: &output)
        written += Int64(TarHeader.blockSize)
    }

    private mutating func appendZeros(_ count: Int, to output: inout [UInt8]) {
        output.append(contentsOf: repeatElement(0, count: count))
        written += Int64(count)
    }

    /// "PaxHeaders/" and the last component in ASCII, so the name alone is deterministic.
    private static func paxHeaderName(for name: [UInt8]) -> [UInt8] {
        let last = name.split(separator: 0x2F).last ?? []
        let ascii = last.map { $0 < 0x80 ? $0 : UInt8(ascii: "_") }
        return Array(("PaxHeaders/" + String(decoding: ascii, as: UTF8.self)).utf8.prefix(TarHeader.nameField.count))
    }

    /// At most `limit` bytes, cut at a UTF-8 character boundary.
    private static func truncated(_ name: [UInt8], to limit: Int) -> [UInt8] {
        guard name.count > limit else { return name }
        var end = limit
        while end > 0, name[end] & 0xC0 == 0x80 { end -= 1 }
        return Array(name[..<end])
    }
}
