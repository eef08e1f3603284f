import Crypto
import MirrorCore
import MirrorSite

/// Where each gzip member of a bundle starts and where each file's bytes lie in the tar stream,
/// so that a reader opens the few files it wants (the manifest, the search index, the pages of
/// some results) without inflating the rest. `mirror pack` writes it after the archive as gzip
/// members that hold nothing but an extra field (RFC 1952 FEXTRA): subfields "MS" carry the
/// table, and a last member of fixed size carries subfield "MT", where the table starts, how
/// long it is and its SHA-256. They decompress to nothing, so gzip and tar pass over them; the
/// same bundle always gives the same table. Checking a bundle checks its table too (`check`).
///
/// Each member's SHA-256 is in the table, so a reader checks every member it inflates, and each
/// file's, as in the manifest, so a reader that wants a few files need not read the manifest: a
/// file read whole is checked against it too (`SeekableBundle`). A table that does not hold
/// together is ignored.
struct BundleSeekTable: Equatable {
    /// A gzip member: where it starts in the bundle (its header), where its bytes start in the
    /// tar stream, and the SHA-256 of its compressed bytes, header to trailer.
    struct Member: Equatable {
        let start: Int
        let tarOffset: Int
        let sha256: [UInt8]
    }

    var members: [Member] = []
    /// Each regular file's bytes in the tar stream and their SHA-256, in the order they were written.
    var files: [(path: String, range: Range<Int>, sha256: [UInt8])] = []
    /// Where the archive ends and the table starts: the end of the last member.
    var archiveEnd = 0

    static func == (left: BundleSeekTable, right: BundleSeekTable) -> Bool {
        left.members == right.members && left.archiveEnd == right.archiveEnd
            && left.files.elementsEqual(right.files) { $0.path == $1.path && $0.range == $1.range && $0.sha256 == $1.sha256 }
    }

    /// The bytes of member `index` in the bundle.
    func compressedRange(ofMember index: Int) -> Range<Int> {
        members[index].start..<(index + 1 < members.count ? members[index + 1].start : archiveEnd)
    }

    private static let form = "mirror seek table 1"
    /// The fixed size of the last member: header 10, XLEN 2, subfield header 4, data 48 (where,
    /// how long, SHA-256), empty deflate block 2, CRC-32 and size 8.
    static let trailerSize = 74
    /// Subfield data per member (XLEN is 16 bits).
    private static let dataPerMember = 65_000
    /// A longer table (about 600,000 files) is not read.
    private static let largestTable = 64 << 20

    /// The table's gzip members, to follow the archive (at `archiveEnd`).
    func encoded() -> [UInt8] {
        var table = PackedBytes(capacity: members.count * 40 + files.count * 64)
        table.append(Self.form)
        table.append(members.count)
        var previous = (start: 0, tarOffset: 0)
        for member in members {
            table.append(member.start - previous.start)
            table.append(member.tarOffset - previous.tarOffset)
            for byte in member.sha256 { table.append(byte: byte) }
            previous = (member.start, member.tarOffset)
        }
        table.append(files.count)
        for file in files {
            table.append(file.path)
            table.append(file.range.lowerBound)
            table.append(file.range.count)
            for byte in file.sha256 { table.append(byte: byte) }
        }
        var bytes: [UInt8] = []
        for start in stride(from: 0, to: table.bytes.count, by: Self.dataPerMember) {
            bytes += Self.member(id: "MS", data: table.bytes[start..<min(start + Self.dataPerMember, table.bytes.count)])
        }
        var trailer: [UInt8] = []
        for value in [archiveEnd, bytes.count] { trailer += (0..<8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        trailer += SHA256.hash(data: table.bytes)
        return bytes + Self.member(id: "MT", data: trailer[...])
    }

    /// The length of the gzip header `member` starts with (RFC 1952: the fixed 10 bytes, then
    /// the extra field, name, comment and header CRC its flags announce).
    static func headerLength(_ member: [UInt8]) -> Int {
        guard member.count > 10 else { return member.count }
        let flags = member[3]
        var length = 10
        if flags & 0x04 != 0, length + 2 <= member.count { length += 2 + Int(member[length]) + Int(member[length + 1]) << 8 }
        for flag in [UInt8(0x08), 0x10] where flags & flag != 0 {
            while length < member.count && member[length] != 0 { length += 1 }
            length += 1
        }
        if flags & 0x02 != 0 { length += 2 }
        return min(length, member.count)
    }

    /// A gzip member holding nothing, with one extra subfield.
    private static func member(id: String, data: ArraySlice<UInt8>) -> [UInt8] {
        let extra = data.count + 4
        return [0x1F, 0x8B, 8, 0x04, 0, 0, 0, 0, 0, 0xFF, UInt8(extra & 0xFF), UInt8(extra >> 8)] + Array(id.utf8)
            + [UInt8(data.count & 0xFF), UInt8(data.count >> 8)] + data + [0x03, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]
    }

    /// The table at the end of `input`; nil when it ends otherwise (another tool's bundle) or
    /// the table does not hold together.
    static func read(_ input: InputFile) -> BundleSeekTable? {
        guard input.size >= trailerSize, let trailer = input.bytes(at: input.size - trailerSize, count: trailerSize),
            let location = subfield(trailer[...], id: "MT"), location.data.count == 48, location.rest.isEmpty
        else { return nil }
        let offset = number(location.data.prefix(8))
        let length = number(location.data.dropFirst(8).prefix(8))
        guard offset >= 0, length > 0, length <= largestTable, offset + length == input.size - trailerSize,
            var members = input.bytes(at: offset, count: length)?[...]
        else { return nil }
        var table: [UInt8] = []
        while !members.isEmpty {
            guard let part = subfield(members, id: "MS") else { return nil }
            table += part.data
            members = part.rest
        }
        guard Array(SHA256.hash(data: table)) == Array(location.data.suffix(32)) else { return nil }
        return decode(table, archiveEnd: offset)
    }

    /// Deflate's largest ratio of output to input (zlib's FAQ gives 1032:1): a member inflates to
    /// at most this many times its own bytes.
    static let largestInflation = 1032

    /// The table in `encoded`, when it holds together: members in order from the start of the
    /// archive, each inflating to no more than deflate can make of its bytes, and files inside
    /// what the members inflate to. (A table that claimed more would have readers allocate for
    /// files no bundle of its size can hold, and its offsets could overflow.)
    private static func decode(_ encoded: [UInt8], archiveEnd: Int) -> BundleSeekTable? {
        var bytes = PackedBytes(reading: encoded)
        guard bytes.readString() == form, let memberCount = bytes.readCount() else { return nil }
        var table = BundleSeekTable(archiveEnd: archiveEnd)
        var previous = (start: 0, tarOffset: 0)
        for _ in 0..<memberCount {
            // Each step is the size of the member before, compressed and inflated; the first member starts both at 0.
            guard let start = bytes.readInt(), let tar = bytes.readInt(), let digest = digest(&bytes) else { return nil }
            if table.members.isEmpty {
                guard start == 0, tar == 0, archiveEnd > 0 else { return nil }
            } else {
                guard start > 0, start < archiveEnd - previous.start, tar > 0, tar <= start * largestInflation else { return nil }
            }
            previous = (previous.start + start, previous.tarOffset + tar)
            table.members.append(Member(start: previous.start, tarOffset: previous.tarOffset, sha256: digest))
        }
        guard let last = table.members.last, let fileCount = bytes.readCount() else { return nil }
        let tarEnd = last.tarOffset + (archiveEnd - last.start) * largestInflation
        for _ in 0..<fileCount {
            guard let path = bytes.readString(), let start = bytes.readInt(), let count = bytes.readInt(),
                start >= 0, count >= 0, start <= tarEnd, count <= tarEnd - start, let digest = digest(&bytes)
            else { return nil }
            table.files.append((path, start..<start + count, digest))
        }
        return bytes.isAtEnd ? table : nil
    }

    private static func digest(_ bytes: inout PackedBytes) -> [UInt8]? {
        var digest: [UInt8] = []
        for _ in 0..<32 {
            guard let byte = bytes.readByte() else { return nil }
            digest.append(byte)
        }
        return digest
    }

    /// The data of the one subfield `id` of the gzip member at the start of `bytes`, when the
    /// member is one of ours (holding nothing), and the bytes after the member.
    private static func subfield(_ bytes: ArraySlice<UInt8>, id: String) -> (data: ArraySlice<UInt8>, rest: ArraySlice<UInt8>)? {
        let start = bytes.startIndex
        guard bytes.count >= 26, bytes[start..<start + 10].elementsEqual([0x1F, 0x8B, 8, 0x04, 0, 0, 0, 0, 0, 0xFF]) else { return nil }
        let extra = Int(bytes[start + 10]) | Int(bytes[start + 11]) << 8
        let length = Int(bytes[start + 14]) | Int(bytes[start + 15]) << 8
        let end = start + 12 + extra
        guard extra == length + 4, Array(bytes[start + 12..<start + 14]) == Array(id.utf8), end + 10 <= bytes.endIndex,
            bytes[end..<end + 10].elementsEqual([0x03, 0x00, 0, 0, 0, 0, 0, 0, 0, 0])
        else { return nil }
        return (bytes[start + 16..<end], bytes[(end + 10)...])
    }

    /// Refuses a checked bundle whose end claims a seek table (a last gzip member with subfield
    /// "MT") that cannot be read, lists other files than the manifest does, or gives a member a
    /// digest its bytes do not have.
    static func check(_ input: InputFile, files: [String: SiteManifest.FileDigest]) throws {
        guard input.size >= trailerSize, let end = input.bytes(at: input.size - trailerSize, count: trailerSize),
            end[0] == 0x1F, end[1] == 0x8B, end[12] == UInt8(ascii: "M"), end[13] == UInt8(ascii: "T")
        else { return }
        guard let table = read(input) else { throw BundleError.corrupt("its seek table is damaged") }
        let listed = table.files.filter { $0.path != ManifestCheck.manifestPath }
        guard listed.count == files.count,
            listed.allSatisfy({ file in
                files[file.path].map { $0.size == file.range.count && $0.sha256 == Hex.string(file.sha256) } ?? false
            })
        else { throw BundleError.corrupt("its seek table does not match its manifest") }
        for index in table.members.indices {
            let range = table.compressedRange(ofMember: index)
            guard let bytes = input.bytes(at: range.lowerBound, count: range.count),
                Array(SHA256.hash(data: bytes)) == table.members[index].sha256
            else {
                throw BundleError.corrupt("its seek table does not match the gzip member at byte \(range.lowerBound)")
            }
        }
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> Int {
        bytes.reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
