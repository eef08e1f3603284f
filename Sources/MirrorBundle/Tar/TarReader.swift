/// A streaming, hardened reader of ustar, pax and GNU tar archives.
///
/// Feed it bytes as they come, in chunks of any size; it reports entries through `TarEvent`s
/// without copying file data, and refuses (with a `TarError`) anything unsafe to extract:
/// links, devices, unsafe or colliding paths, damaged headers, sizes over `TarLimits`,
/// truncation and trailing garbage. Only files and directories pass.
///
/// The end-of-archive marker must be complete: input that stops after the first of its two
/// zero blocks is refused as truncated (GNU tar only warns), since our writer and GNU tar
/// always write both. Zero bytes may follow the marker (record padding); nothing else may.
/// After a throw, every later call throws the same error.
public struct TarReader {
    private enum Phase {
        case header
        case fileData(remaining: Int64, padding: Int)
        case extended(ExtendedKind, remaining: Int, padding: Int)
        case padding(remaining: Int)
        case secondZeroBlock
        case trailer
    }

    private enum ExtendedKind {
        case pax
        case globalPax
        case longName
        case longLink
    }

    /// What extended headers say about the next entry.
    private struct Pending {
        var path: [UInt8]?
        var linkPath: [UInt8]?
        var size: Int64?
        /// Name of the first extended header, for messages.
        var headerName: String?
    }

    private let limits: TarLimits
    private var phase = Phase.header
    /// The header block being gathered.
    private var block: [UInt8] = []
    private var blockOffset: Int64 = 0
    /// The extended header body being gathered, and its header's name and offset.
    private var extended: [UInt8] = []
    private var extendedName = ""
    private var extendedOffset: Int64 = 0
    private var pending = Pending()
    private var current: TarEntry?
    private var registry = TarPathRegistry()
    private var entryCount = 0
    private var totalSize: Int64 = 0
    private var offset: Int64 = 0
    private var failure: (any Error)?

    public init(limits: TarLimits = .default) {
        self.limits = limits
        block.reserveCapacity(TarHeader.blockSize)
    }

    /// Parses the next bytes of the archive, reporting what they complete to `handler`.
    /// - Throws: a `TarError` when the archive is refused, or what `handler` throws.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, _ handler: (TarEvent) throws -> Void) throws {
        if let failure { throw failure }
        do {
            try parse(bytes, handler)
        } catch {
            failure = error
            throw error
        }
    }

    /// Checks that the input ended where an archive may end.
    /// - Throws: `TarError.truncated` when it stopped inside a header, data, padding or the end marker.
    public mutating func finish() throws {
        if let failure { throw failure }
        let error: TarError
        switch phase {
        case .trailer:
            return
        case .header where block.isEmpty && pending.headerName == nil:
            error = .truncated(path: current?.path, in: .endMarker)
        case .header, .extended:
            error = .truncated(path: current?.path, in: .header)
        case .fileData:
            error = .truncated(path: current?.path, in: .data)
        case .padding:
            error = .truncated(path: current?.path, in: .padding)
        case .secondZeroBlock:
            error = .truncated(path: current?.path, in: .endMarker)
        }
        failure = error
        throw error
    }

    private mutating func parse(_ bytes: UnsafeRawBufferPointer, _ handler: (TarEvent) throws -> Void) throws {
        var index = 0
        while index < bytes.count {
            let available = bytes.count - index
            switch phase {
            case .header, .secondZeroBlock:
                if block.isEmpty { blockOffset = offset }
                let count = min(TarHeader.blockSize - block.count, available)
                block.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)]))
                index += count
                offset += Int64(count)
                if block.count == TarHeader.blockSize {
                    try parseBlock(handler)
                    block.removeAll(keepingCapacity: true)
                }
            case .fileData(let remaining, let padding):
                let count = Int(min(Int64(available), remaining))
                try handler(.data(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)])))
                index += count
                offset += Int64(count)
                if Int64(count) == remaining {
                    phase = padding > 0 ? .padding(remaining: padding) : .header
                    if let current { try handler(.end(current)) }
                } else {
                    phase = .fileData(remaining: remaining - Int64(count), padding: padding)
                }
            case .extended(let kind, let remaining, let padding):
                let count = min(available, remaining)
                extended.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)]))
                index += count
                offset += Int64(count)
                if count == remaining {
                    try applyExtended(kind)
                    phase = padding > 0 ? .padding(remaining: padding) : .header
                } else {
                    phase = .extended(kind, remaining: remaining - count, padding: padding)
                }
            case .padding(let remaining):
                let count = min(available, remaining)
                index += count
                offset += Int64(count)
                phase = count == remaining ? .header : .padding(remaining: remaining - count)
            case .trailer:
                let rest = UnsafeRawBufferPointer(rebasing: bytes[index...])
                if let nonZero = rest.firstIndex(where: { $0 != 0 }) {
                    throw TarError.dataAfterEnd(offset: offset + Int64(nonZero))
                }
                index = bytes.count
                offset += Int64(rest.count)
            }
        }
    }

    /// Acts on a complete header block.
    private mutating func parseBlock(_ handler: (TarEvent) throws -> Void) throws {
        let isZero = block.allSatisfy { $0 == 0 }
        if case .secondZeroBlock = phase {
            guard isZero else { throw TarError.dataAfterEnd(offset: blockOffset) }
            phase = .trailer
            return
        }
        if isZero {
            if let name = pending.headerName {
                throw TarError.malformedHeader(
                    path: name, problem: "an extended header is not followed by an entry",
                    offset: blockOffset)
            }
            phase = .secondZeroBlock
            return
        }
        var name = Array(TarHeader.text(block, TarHeader.nameField))
        if block[TarHeader.magicField].elementsEqual(TarHeader.posixMagic) {
            let prefix = TarHeader.text(block, TarHeader.prefixField)
            if !prefix.isEmpty { name = prefix + [0x2F] + name }
        }
        let headerName = String(decoding: name, as: UTF8.self)
        guard let stored = TarHeader.number(block[TarHeader.checksumField]),
            [TarHeader.checksums(block).unsigned, TarHeader.checksums(block).signed].contains(stored)
        else { throw TarError.badChecksum(path: headerName, offset: blockOffset) }
        guard let size = TarHeader.number(block[TarHeader.sizeField]) else {
            throw TarError.badNumericField(path: headerName, field: "size", offset: blockOffset)
        }
        let type = block[TarHeader.typeFlagIndex]
        let extendedKind: ExtendedKind? =
            switch type {
            case UInt8(ascii: "x"): .pax
            case UInt8(ascii: "g"): .globalPax
            case UInt8(ascii: "L"): .longName
            case UInt8(ascii: "K"): .longLink
            default: nil
            }
        if let extendedKind {
            guard size <= limits.maxExtendedHeaderSize else {
                throw TarError.extendedHeaderTooLarge(
                    path: headerName, size: size, limit: limits.maxExtendedHeaderSize,
                    offset: blockOffset)
            }
            extended.removeAll(keepingCapacity: true)
            extendedName = headerName
            extendedOffset = blockOffset
            if size == 0 {
                try applyExtended(extendedKind)
            } else {
                phase = .extended(extendedKind, remaining: Int(size), padding: TarHeader.padding(for: size))
            }
            return
        }
        let path = pending.path ?? name
        switch type {
        case 0, UInt8(ascii: "0"), UInt8(ascii: "5"):
            try beginEntry(path: path, isDirectory: type == UInt8(ascii: "5"), size: pending.size ?? size, handler)
        case UInt8(ascii: "1"), UInt8(ascii: "2"):
            let target = pending.linkPath ?? Array(TarHeader.text(block, TarHeader.linkNameField))
            throw TarError.link(
                path: String(decoding: path, as: UTF8.self), target: String(decoding: target, as: UTF8.self),
                hard: type == UInt8(ascii: "1"))
        default:
            throw TarError.unsupportedType(path: String(decoding: path, as: UTF8.self), type: type)
        }
    }

    private mutating func beginEntry(path raw: [UInt8], isDirectory: Bool, size: Int64, _ handler: (TarEvent) throws -> Void) throws {
        let headerOffset = blockOffset
        pending = Pending()
        if isDirectory, size != 0 {
            throw TarError.malformedHeader(
                path: String(decoding: raw, as: UTF8.self),
                problem: "a directory entry has \(size) bytes of data", offset: headerOffset)
        }
        guard let path = try TarPath.normalize(raw, isDirectory: isDirectory) else { return }  // the root, "./"
        entryCount += 1
        guard entryCount <= limits.maxEntryCount else { throw TarError.tooManyEntries(path: path, limit: limits.maxEntryCount) }
        guard size <= limits.maxEntrySize else {
            throw TarError.entryTooLarge(path: path, size: size, limit: limits.maxEntrySize)
        }
        totalSize += size
        guard totalSize <= limits.maxTotalSize else {
            throw TarError.totalTooLarge(path: path, total: totalSize, limit: limits.maxTotalSize)
        }
        try registry.register(path, isDirectory: isDirectory)
        let entry = TarEntry(path: path, kind: isDirectory ? .directory : .file, size: size)
        current = entry
        try handler(.begin(entry))
        if size == 0 {
            try handler(.end(entry))
        } else {
            phase = .fileData(remaining: size, padding: TarHeader.padding(for: size))
        }
    }

    /// Records what a complete extended header says about the next entry.
    private mutating func applyExtended(_ kind: ExtendedKind) throws {
        pending.headerName = pending.headerName ?? extendedName
        switch kind {
        case .longName, .longLink:
            var value = extended[...]
            while value.last == 0 { value = value.dropLast() }
            if kind == .longName { pending.path = Array(value) } else { pending.linkPath = Array(value) }
        case .pax, .globalPax:
            let records: [(key: String, value: ArraySlice<UInt8>)]
            do {
                records = try TarPax.parse(extended)
            } catch {
                throw TarError.badPaxRecord(path: extendedName, problem: error.problem, offset: extendedOffset)
            }
            for (key, value) in records where ["path", "linkpath", "size"].contains(key) {
                if kind == .globalPax {
                    throw TarError.globalOverride(key: key, value: String(decoding: value, as: UTF8.self), offset: extendedOffset)
                }
                switch key {
                case "path": pending.path = value.isEmpty ? nil : Array(value)
                case "linkpath": pending.linkPath = value.isEmpty ? nil : Array(value)
                default:
                    guard value.isEmpty || TarPax.size(value) != nil else {
                        throw TarError.badPaxRecord(
                            path: extendedName, problem: "the size record is not a decimal number",
                            offset: extendedOffset)
                    }
                    pending.size = TarPax.size(value)
                }
            }
            if kind == .globalPax { pending.headerName = nil }
        }
    }
}
