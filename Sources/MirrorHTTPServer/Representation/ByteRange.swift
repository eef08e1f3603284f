import MirrorCore

/// A `Range: bytes=…` header with one range (RFC 9110 §14.1.2): `first-last`, `first-` or
/// `-suffixLength`. Several ranges, or another unit, are not parsed: such a request gets
/// the whole representation, as the RFC allows.
struct ByteRange: Equatable {
    enum Form: Equatable {
        case from(Int, through: Int?)
        case suffix(Int)
    }

    let form: Form

    init?(header: String) {
        let value = header.trimmingASCIIWhitespace()
        guard value.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = value.dropFirst(6).trimmingASCIIWhitespace()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash].trimmingASCIIWhitespace()
        let last = spec[spec.index(after: dash)...].trimmingASCIIWhitespace()
        if first.isEmpty {
            guard let length = Self.number(last) else { return nil }
            form = .suffix(length)
        } else {
            guard let start = Self.number(first) else { return nil }
            if last.isEmpty {
                form = .from(start, through: nil)
            } else {
                guard let end = Self.number(last), end >= start else { return nil }
                form = .from(start, through: end)
            }
        }
    }

    /// The bytes asked for in a representation of `size` bytes; nil when unsatisfiable.
    func bytes(in size: Int) -> Range<Int>? {
        switch form {
        case .from(let start, let end):
            guard start < size else { return nil }
            return start..<min(size, (end ?? size - 1) + 1)
        case .suffix(let length):
            guard length > 0, size > 0 else { return nil }
            return max(0, size - length)..<size
        }
    }

    /// Digits only (no sign, no spaces inside), capped so that arithmetic cannot overflow.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return text.count > 18 ? Int.max / 2 : Int(text)
    }
}
