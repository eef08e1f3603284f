import MirrorCore
public import NIOHTTP1

/// A stored representation a server can answer GET and HEAD with, described by what
/// conditional and range requests compare against: its size and validators.
public struct Representation: Sendable {
    public var size: Int
    /// A strong entity tag, quotes included (`"abc"`).
    public var etag: String?
    /// Last-Modified, in seconds since 1970.
    public var lastModified: Int64?

    public init(size: Int, etag: String?, lastModified: Int64?) {
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
    }

    /// What a request gets.
    public enum Answer: Equatable, Sendable {
        case full
        case notModified
        case preconditionFailed
        case partial(Range<Int>)
        case unsatisfiable
    }

    /// Evaluates the request's preconditions in the order of RFC 9110 §13.2.2, then its Range
    /// (§14.2) with If-Range (§13.1.5).
    public func answer(method: HTTPMethod, headers: HTTPHeaders) -> Answer {
        if let ifMatch = headers.first(name: "if-match") {
            guard matches(ifMatch, weak: false) else { return .preconditionFailed }
        } else if let since = headers.first(name: "if-unmodified-since").flatMap(HTTPDate.parse),
            let lastModified, lastModified > since
        {
            return .preconditionFailed
        }
        if let ifNoneMatch = headers.first(name: "if-none-match") {
            if matches(ifNoneMatch, weak: true) { return method == .GET || method == .HEAD ? .notModified : .preconditionFailed }
        } else if method == .GET || method == .HEAD,
            let since = headers.first(name: "if-modified-since").flatMap(HTTPDate.parse),
            let lastModified, lastModified <= since
        {
            return .notModified
        }
        guard method == .GET, let rangeHeader = headers.first(name: "range"),
            let range = ByteRange(header: rangeHeader)
        else { return .full }
        if let ifRange = headers.first(name: "if-range"), !rangeStillApplies(ifRange) { return .full }
        return range.bytes(in: size).map { .partial($0) } ?? .unsatisfiable
    }

    /// The `Content-Range` of `part` of a representation of `size` bytes; for nil (a 416), `bytes */size`.
    public static func contentRange(_ part: Range<Int>?, of size: Int) -> String {
        guard let part else { return "bytes */\(size)" }
        return "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(size)"
    }

    /// If-Range: an entity tag must match strongly; a date must equal Last-Modified exactly.
    private func rangeStillApplies(_ value: String) -> Bool {
        let value = value.trimmingASCIIWhitespace()
        if value.utf8.first == UInt8(ascii: "\"") || value.utf8.starts(with: "W/".utf8) {
            return !value.utf8.starts(with: "W/".utf8) && value.utf8.elementsEqual((etag ?? "").utf8)
        }
        guard let date = HTTPDate.parse(value), let lastModified else { return false }
        return date == lastModified
    }

    /// Whether an If-Match / If-None-Match list names this representation's tag (`*` names any).
    private func matches(_ list: String, weak: Bool) -> Bool {
        if list.trimmingASCIIWhitespace() == "*" { return true }
        guard let etag else { return false }
        for candidate in HTTPList.members([list]) {
            if candidate.utf8.elementsEqual(etag.utf8) { return true }
            if weak, candidate.utf8.starts(with: "W/".utf8), candidate.utf8.dropFirst(2).elementsEqual(etag.utf8) { return true }
        }
        return false
    }
}
