/// Why a tar archive was refused (by `TarReader`) or could not be written (by `TarWriter`).
///
/// Each description names the entry concerned when it is known and says what is wrong.
/// Offsets count bytes of the uncompressed tar stream.
public enum TarError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What makes a path unsafe to extract.
    public enum PathProblem: Sendable, Hashable {
        case empty
        case absolute
        case parentComponent
        case currentComponent
        case emptyComponent
        case nulByte
        case backslash
        case driveLetter
        case tooLong(limit: Int)
        case notUTF8
    }

    /// Where the input ended too early.
    public enum Truncation: Sendable, Hashable {
        case header
        case data
        case padding
        case endMarker
    }

    case badChecksum(path: String, offset: Int64)
    case badNumericField(path: String, field: String, offset: Int64)
    case badPaxRecord(path: String, problem: String, offset: Int64)
    case extendedHeaderTooLarge(path: String, size: Int64, limit: Int, offset: Int64)
    /// A pax global header sets `path` or `size` for every later entry.
    case globalOverride(key: String, value: String, offset: Int64)
    case malformedHeader(path: String, problem: String, offset: Int64)
    case link(path: String, target: String, hard: Bool)
    case unsupportedType(path: String, type: UInt8)
    case unsafePath(path: String, problem: PathProblem)
    case duplicate(path: String)
    /// Two paths equal after Unicode NFC and case folding, which collide on macOS and Windows.
    case caseConflict(path: String, other: String)
    /// `file` is a file, but `entry` needs it to be a directory.
    case fileUsedAsDirectory(file: String, entry: String)
    case entryTooLarge(path: String, size: Int64, limit: Int64)
    case totalTooLarge(path: String, total: Int64, limit: Int64)
    case tooManyEntries(path: String, limit: Int)
    /// `path` is the entry being read, or the last one read; nil before the first.
    case truncated(path: String?, in: Truncation)
    case dataAfterEnd(offset: Int64)
    /// A writer's caller gave more or fewer bytes than the file header declared.
    case sizeMismatch(path: String, declared: Int64, written: Int64)

    public var description: String {
        switch self {
        case .badChecksum(let path, let offset):
            "the tar header of \(Self.quoted(path)) at byte \(offset) has a wrong checksum: the archive is damaged"
        case .badNumericField(let path, let field, let offset):
            "the tar header of \(Self.quoted(path)) at byte \(offset) has a malformed \(field) field: the archive is damaged"
        case .badPaxRecord(let path, let problem, let offset):
            "the pax extended header \(Self.quoted(path)) at byte \(offset) is malformed: \(problem)"
        case .extendedHeaderTooLarge(let path, let size, let limit, let offset):
            "the extended header \(Self.quoted(path)) at byte \(offset) is \(size) bytes, over the limit of \(limit) bytes"
        case .globalOverride(let key, let value, let offset):
            "a pax global header at byte \(offset) sets \(key) to \(Self.quoted(value)) for every entry; a bundle never does that"
        case .malformedHeader(let path, let problem, let offset):
            "the tar header of \(Self.quoted(path)) at byte \(offset) is malformed: \(problem)"
        case .link(let path, let target, let hard):
            "\(Self.quoted(path)) is a \(hard ? "hard" : "symbolic") link to \(Self.quoted(target)); links are not allowed in a bundle"
        case .unsupportedType(let path, let type):
            "\(Self.quoted(path)) is \(Self.typeName(type)); a bundle holds only files and directories"
        case .unsafePath(let path, let problem):
            "the path \(Self.quoted(path)) is unsafe to extract: \(Self.explain(problem))"
        case .duplicate(let path):
            "\(Self.quoted(path)) appears twice in the archive"
        case .caseConflict(let path, let other):
            "\(Self.quoted(path)) clashes with \(Self.quoted(other)): names that differ only in letter case or "
                + "Unicode normalization are the same file on macOS and Windows"
        case .fileUsedAsDirectory(let file, let entry):
            "\(Self.quoted(file)) is a file, but \(Self.quoted(entry)) needs it to be a directory"
        case .entryTooLarge(let path, let size, let limit):
            "\(Self.quoted(path)) is \(size) bytes, over the limit of \(limit) bytes for one file"
        case .totalTooLarge(let path, let total, let limit):
            "with \(Self.quoted(path)) the files add up to \(total) bytes, over the limit of \(limit) bytes"
        case .tooManyEntries(let path, let limit):
            "\(Self.quoted(path)) is past the limit of \(limit) entries"
        case .truncated(let path, let place):
            Self.explain(place, path: path)
        case .dataAfterEnd(let offset):
            "data after the end of the archive at byte \(offset): the archive is damaged or has something appended"
        case .sizeMismatch(let path, let declared, let written):
            "\(Self.quoted(path)) was declared as \(declared) bytes but \(written) were written; did the file change while it was packed?"
        }
    }

    /// Quotes a path from an archive, escaping control characters so it cannot drive a terminal.
    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                out += scalar.escaped(asASCII: true)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func explain(_ problem: PathProblem) -> String {
        switch problem {
        case .empty: "it is empty"
        case .absolute: "it is absolute (starts with \"/\")"
        case .parentComponent: "it has a \"..\" component, which could write outside the target folder"
        case .currentComponent: "it has a \".\" component inside it"
        case .emptyComponent: "it has an empty component (\"//\", or a file name ending in \"/\")"
        case .nulByte: "it contains a NUL byte"
        case .backslash: "it contains a backslash, a separator on Windows"
        case .driveLetter: "it starts with a Windows drive letter"
        case .tooLong(let limit): "it is longer than \(limit) bytes"
        case .notUTF8: "it is not valid UTF-8"
        }
    }

    private static func explain(_ place: Truncation, path: String?) -> String {
        let after = path.map { " after \(quoted($0))" } ?? ""
        return switch place {
        case .header: "the archive ends in the middle of a header\(after): it is truncated"
        case .data: "the archive ends in the middle of the data of \(quoted(path ?? "")): it is truncated"
        case .padding: "the archive ends in the padding\(after): it is truncated"
        case .endMarker: "the archive ends without its end-of-archive marker\(after): it is truncated"
        }
    }

    private static func typeName(_ type: UInt8) -> String {
        switch type {
        case UInt8(ascii: "3"): "a character device"
        case UInt8(ascii: "4"): "a block device"
        case UInt8(ascii: "6"): "a FIFO"
        case UInt8(ascii: "7"): "a contiguous file"
        case 0x21...0x7E: "an entry of unknown type '\(Character(Unicode.Scalar(type)))'"
        default: "an entry of unknown type \(type)"
        }
    }
}
