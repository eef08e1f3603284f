/// A regular expression over URLs, for --include, --exclude and cache admission rules.
public struct URLPattern: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: Regex is an immutable value whose matching is thread-safe, but the
    // standard library does not mark it Sendable.
    private let regex: Regex<AnyRegexOutput>
    public let source: String

    /// Compiles `source`; throws with the regex engine's message when it is not valid.
    public init(_ source: String) throws {
        self.source = source
        regex = try Regex(source)
    }

    /// True when the pattern matches anywhere in `url`.
    public func matches(_ url: String) -> Bool {
        url.contains(regex)
    }

    public var description: String { source }
}
